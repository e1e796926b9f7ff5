#include "sluice/table/transaction.h"

#include <fmt/format.h>

#include <chrono>
#include <random>
#include <thread>
#include <unordered_set>

#include "sluice/table/checkpoint.h"
#include "sluice/table/log_path.h"
#include "sluice/table/protocol.h"

#ifndef SLUICE_VERSION
#define SLUICE_VERSION "0"
#endif

namespace sluice::table {
namespace {

int64_t NowMs() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

std::mt19937_64& Rng() {
  thread_local std::mt19937_64 rng([] {
    std::random_device rd;
    return (static_cast<uint64_t>(rd()) << 32) ^ rd() ^
           static_cast<uint64_t>(std::chrono::steady_clock::now().time_since_epoch().count());
  }());
  return rng;
}

Unexpected<Error> ConflictError(std::string_view error_class, std::string_view exception,
                                std::string_view what, int64_t version) {
  return Fail(ErrorCode::kConflict,
              fmt::format("[{}] {}: {} Please try the operation again. Conflicting commit: "
                          "version {}",
                          error_class, exception, what, version));
}

int64_t CheckpointInterval(const Metadata& m) {
  auto it = m.configuration.find("delta.checkpointInterval");
  if (it == m.configuration.end()) return 10;
  char* end = nullptr;
  long long v = std::strtoll(it->second.c_str(), &end, 10);
  return end != nullptr && *end == '\0' && v > 0 ? v : 10;
}

}  // namespace

std::string RandomUuid() {
  uint64_t hi = Rng()();
  uint64_t lo = Rng()();
  hi = (hi & 0xFFFFFFFFFFFF0FFFull) | 0x0000000000004000ull;  // version 4
  lo = (lo & 0x3FFFFFFFFFFFFFFFull) | 0x8000000000000000ull;  // variant 10
  return fmt::format("{:08x}-{:04x}-{:04x}-{:04x}-{:012x}", hi >> 32, (hi >> 16) & 0xFFFF,
                     hi & 0xFFFF, lo >> 48, lo & 0xFFFFFFFFFFFFull);
}

std::string EngineInfo() { return fmt::format("sluice/{}", SLUICE_VERSION); }

Result<Transaction> Transaction::Begin(std::shared_ptr<FileSystem> fs, std::string root) {
  while (!root.empty() && root.size() > 1 && root.back() == '/') root.pop_back();
  Result<Snapshot> snapshot = LoadSnapshot(*fs, root);
  if (!snapshot.has_value()) {
    if (snapshot.error().code() != ErrorCode::kNotFound) return Fail(snapshot.error());
    return Transaction(std::move(fs), std::move(root), std::nullopt);
  }
  return Transaction(std::move(fs), std::move(root), std::move(*snapshot));
}

const Protocol* Transaction::protocol() const {
  if (protocol_) return &*protocol_;
  return snapshot_ ? &snapshot_->protocol : nullptr;
}

const Metadata* Transaction::metadata() const {
  if (metadata_) return &*metadata_;
  return snapshot_ ? &snapshot_->metadata : nullptr;
}

bool Transaction::IsBlindAppend() const { return !read_all_files_ && removes_.empty(); }

std::vector<Action> Transaction::Actions(const CommitOptions& options, int64_t now_ms) const {
  std::vector<Action> out;
  JsonValue info = JsonValue::Object();
  info.Set("timestamp", JsonValue::Int(now_ms));
  info.Set("operation", JsonValue::String(options.operation));
  info.Set("operationParameters", options.operation_parameters);
  if (snapshot_) info.Set("readVersion", JsonValue::Int(snapshot_->version));
  info.Set("isolationLevel", JsonValue::String("Serializable"));
  info.Set("isBlindAppend", JsonValue::Bool(IsBlindAppend()));
  info.Set("operationMetrics", options.operation_metrics);
  info.Set("engineInfo", JsonValue::String(EngineInfo()));
  info.Set("txnId", JsonValue::String(txn_id_));
  out.push_back(CommitInfo{std::move(info)});
  if (protocol_ && (!snapshot_ || !(snapshot_->protocol == *protocol_))) out.push_back(*protocol_);
  if (metadata_ && (!snapshot_ || !(snapshot_->metadata == *metadata_))) out.push_back(*metadata_);
  for (Txn t : txns_) {
    if (!t.last_updated) t.last_updated = now_ms;
    out.push_back(std::move(t));
  }
  for (const table::RemoveFile& r : removes_) {
    table::RemoveFile copy = r;
    if (!copy.deletion_timestamp) copy.deletion_timestamp = now_ms;
    out.push_back(std::move(copy));
  }
  for (const table::AddFile& a : adds_) out.push_back(a);
  return out;
}

Status Transaction::CheckWinner(int64_t version, const std::vector<Action>& winner) const {
  std::unordered_set<std::string> removing;
  const std::string key_root = TableRootForKeys(root_);
  for (const table::RemoveFile& r : removes_) {
    removing.insert(FileKey(key_root, r.path, r.deletion_vector));
  }
  for (const Action& a : winner) {
    if (std::holds_alternative<Protocol>(a)) {
      return ConflictError(
          "DELTA_PROTOCOL_CHANGED", "ProtocolChangedException",
          snapshot_ ? "The protocol version of the Delta table has been changed by a concurrent "
                      "update."
                    : "The protocol version of the Delta table has been changed by a concurrent "
                      "update. This happens when multiple writers are writing to an empty "
                      "directory. Creating the table at the same time will cause conflicts.",
          version);
    }
    if (std::holds_alternative<Metadata>(a)) {
      return ConflictError("DELTA_METADATA_CHANGED", "MetadataChangedException",
                           "The metadata of the Delta table has been changed by a concurrent "
                           "update.",
                           version);
    }
    const auto* t = std::get_if<Txn>(&a);
    if (t != nullptr && std::any_of(txns_.begin(), txns_.end(),
                                    [&](const Txn& mine) { return mine.app_id == t->app_id; })) {
      return ConflictError("DELTA_CONCURRENT_TRANSACTION", "ConcurrentTransactionException",
                           fmt::format("This error occurs when multiple streaming queries are "
                                       "using the same checkpoint to write into this table "
                                       "(appId {}).",
                                       t->app_id),
                           version);
    }
    if (const auto* add = std::get_if<table::AddFile>(&a);
        add != nullptr && add->data_change && read_all_files_) {
      return ConflictError("DELTA_CONCURRENT_APPEND", "ConcurrentAppendException",
                           fmt::format("Files were added to the table by a concurrent update "
                                       "({}).",
                                       add->path),
                           version);
    }
    if (const auto* rm = std::get_if<table::RemoveFile>(&a)) {
      std::string key = FileKey(key_root, rm->path, rm->deletion_vector);
      if (removing.contains(key)) {
        return ConflictError("DELTA_CONCURRENT_DELETE_DELETE", "ConcurrentDeleteDeleteException",
                             fmt::format("This transaction attempted to delete one or more files "
                                         "that were deleted by a concurrent update ({}).",
                                         rm->path),
                             version);
      }
      if (read_all_files_ && rm->data_change) {
        return ConflictError("DELTA_CONCURRENT_DELETE_READ", "ConcurrentDeleteReadException",
                             fmt::format("This transaction attempted to read one or more files "
                                         "that were deleted by a concurrent update ({}).",
                                         rm->path),
                             version);
      }
    }
  }
  return Ok();
}

Result<CommitResult> Transaction::Commit(const CommitOptions& options) {
  const Protocol* protocol = this->protocol();
  const Metadata* metadata = this->metadata();
  if (protocol == nullptr || metadata == nullptr) {
    return InvalidArgument(fmt::format(
        "{}: the first commit of a table needs a protocol and a metaData action", root_));
  }
  if (!removes_.empty() && metadata->configuration.contains("delta.appendOnly")) {
    std::string v = metadata->configuration.at("delta.appendOnly");
    bool data_change = false;
    for (const table::RemoveFile& r : removes_) data_change |= r.data_change;
    if (data_change && (v == "true" || v == "TRUE" || v == "True")) {
      return InvalidArgument(
          "[DELTA_CANNOT_MODIFY_APPEND_ONLY] This table is configured to only allow appends. "
          "If you would like to permit updates or deletes, use 'ALTER TABLE <table_name> SET "
          "TBLPROPERTIES (delta.appendOnly=false)'.");
    }
  }
  SLUICE_TRY(fs_->CreateDirs(LogDirPath(root_)));
  CommitResult result;
  int64_t version = read_version() + 1;
  std::uniform_int_distribution<int> jitter(0, 1000);
  for (int attempt = 1;; ++attempt) {
    result.attempts = attempt;
    std::string text = CommitText(Actions(options, NowMs()));
    Status put = fs_->CreateFileExclusive(LogFilePath(root_, CommitFileName(version)), text);
    if (put.has_value()) break;
    if (put.error().code() != ErrorCode::kAlreadyExists) return Fail(put.error());
    if (attempt >= options.max_attempts) {
      return Fail(ErrorCode::kConflict,
                  fmt::format("{}: gave up after {} attempts to commit (version {} was taken)",
                              root_, attempt, version));
    }
    // Another writer won `version`: check it and every later winner, then try after them.
    SLUICE_ASSIGN_OR_RETURN(LogListing listing, ListLog(*fs_, root_, /*with_times=*/false));
    int64_t latest = std::max(listing.latest_version, version);
    for (int64_t v = version; v <= latest; ++v) {
      SLUICE_ASSIGN_OR_RETURN(std::vector<Action> winner, ReadCommit(*fs_, root_, v));
      SLUICE_TRY(CheckWinner(v, winner));
    }
    version = latest + 1;
    // Back off a little, more with every lost race, so that many writers spread out.
    int spread = std::min(attempt, 20) * 50;
    std::this_thread::sleep_for(std::chrono::microseconds(jitter(Rng()) * spread / 1000 + 50));
  }
  result.version = version;
  if (options.checkpoint && version > 0 && version % CheckpointInterval(*metadata) == 0 &&
      !Supports(*protocol, "v2Checkpoint")) {
    Status written = WriteCheckpointAt(*fs_, root_, version);
    if (written.has_value()) {
      result.checkpoint_version = version;
    } else {
      result.checkpoint_warning = written.error().message();
    }
  }
  return result;
}

}  // namespace sluice::table
