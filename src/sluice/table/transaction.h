// Commits with optimistic concurrency (PROTOCOL.md "Optimistic Concurrency Control"; the rules
// of Delta Spark's ConflictChecker): a transaction reads a snapshot, stages actions, and puts
// the next version's commit file only if it is absent (FileSystem::CreateFileExclusive). When
// another writer won that version, the winners are checked against what this transaction read
// and changed: blind appends retry at the next version; a concurrent protocol or metadata change,
// an append into files this transaction read, or a delete of files it read or deletes fails with
// Delta's error class.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "sluice/base/file_system.h"
#include "sluice/base/json.h"
#include "sluice/base/result.h"
#include "sluice/table/actions.h"
#include "sluice/table/snapshot.h"

namespace sluice::table {

/// A random (version 4) UUID in its 36-character text form.
std::string RandomUuid();

/// The commitInfo.engineInfo sluice writes: "sluice/<version>".
std::string EngineInfo();

struct CommitOptions {
  /// commitInfo.operation: "WRITE", "CREATE TABLE", "ADD COLUMNS", ...
  std::string operation = "WRITE";
  /// commitInfo.operationParameters and operationMetrics: objects of strings, as Delta writes.
  JsonValue operation_parameters = JsonValue::Object();
  JsonValue operation_metrics = JsonValue::Object();
  /// Attempts at a version before giving up (a lost race against a compatible commit retries).
  int max_attempts = 1000;
  /// Write a checkpoint after the commit when its version is a multiple of the table's
  /// delta.checkpointInterval (default 10).
  bool checkpoint = true;
};

struct CommitResult {
  int64_t version = -1;
  /// How many versions were tried (1: no race was lost).
  int attempts = 0;
  /// The checkpoint written after the commit, if any.
  std::optional<int64_t> checkpoint_version;
  /// A checkpoint that could not be written does not undo the commit: why, when that happened.
  std::optional<std::string> checkpoint_warning;
};

/// One write to a table. Not thread-safe; one commit per transaction.
class Transaction {
 public:
  /// Start from the latest snapshot of the table at `root`; a table that does not exist yet
  /// starts empty (the first commit then needs a protocol and a metaData).
  static Result<Transaction> Begin(std::shared_ptr<FileSystem> fs, std::string root);

  /// The snapshot read, or nullptr for a new table.
  const Snapshot* snapshot() const { return snapshot_ ? &*snapshot_ : nullptr; }
  int64_t read_version() const { return snapshot_ ? snapshot_->version : -1; }
  FileSystem& fs() const { return *fs_; }
  const std::string& root() const { return root_; }

  /// Stage a new protocol / metadata (written only when they differ from the snapshot's).
  void SetProtocol(Protocol protocol) { protocol_ = std::move(protocol); }
  void SetMetadata(Metadata metadata) { metadata_ = std::move(metadata); }
  /// The protocol and metadata the commit will leave (staged, else the snapshot's).
  const Protocol* protocol() const;
  const Metadata* metadata() const;

  void AddFile(table::AddFile add) { adds_.push_back(std::move(add)); }
  void RemoveFile(table::RemoveFile remove) { removes_.push_back(std::move(remove)); }
  /// An idempotent writer's (appId, version); several for several appIds (one per Kafka
  /// partition). A concurrent commit of one of them is DELTA_CONCURRENT_TRANSACTION.
  void SetTxn(Txn txn) { txns_.push_back(std::move(txn)); }
  /// The transaction's result depends on every file of the snapshot (an overwrite, adding a
  /// CHECK constraint): a concurrent append then conflicts.
  void ReadAllFiles() { read_all_files_ = true; }

  /// Commit. kConflict with Delta's error class in the message ("[DELTA_METADATA_CHANGED] ...")
  /// when a concurrent commit conflicts; kInvalidArgument for a commit the protocol forbids
  /// (no protocol/metaData in a first commit, removes from an append-only table).
  Result<CommitResult> Commit(const CommitOptions& options = {});

 private:
  Transaction(std::shared_ptr<FileSystem> fs, std::string root, std::optional<Snapshot> snapshot)
      : fs_(std::move(fs)), root_(std::move(root)), snapshot_(std::move(snapshot)) {}

  Status CheckWinner(int64_t version, const std::vector<Action>& winner) const;
  std::vector<Action> Actions(const CommitOptions& options, int64_t now_ms) const;
  bool IsBlindAppend() const;

  std::shared_ptr<FileSystem> fs_;
  std::string root_;
  std::optional<Snapshot> snapshot_;
  std::optional<Protocol> protocol_;
  std::optional<Metadata> metadata_;
  std::vector<table::AddFile> adds_;
  std::vector<table::RemoveFile> removes_;
  std::vector<Txn> txns_;
  bool read_all_files_ = false;
  std::string txn_id_ = RandomUuid();
};

}  // namespace sluice::table
