#include "sluice/ingest/checkpoint.h"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <map>

#include "sluice/base/file_system.h"
#include "sluice/base/sqlite_db.h"
#include "sluice/ingest/ingest.h"
#include "sluice/table/transaction.h"

namespace sluice::ingest {

using Row = SqliteDb::Row;

namespace {

constexpr const char* kSchema[] = {
    "CREATE TABLE IF NOT EXISTS meta(key TEXT PRIMARY KEY, value TEXT NOT NULL)",
    "CREATE TABLE IF NOT EXISTS batches(id INTEGER PRIMARY KEY, state TEXT NOT NULL, "
    "schema_version INTEGER NOT NULL DEFAULT -1, table_version INTEGER NOT NULL DEFAULT -1, "
    "quarantine TEXT NOT NULL DEFAULT '', report TEXT NOT NULL DEFAULT '', "
    "quarantine_offset INTEGER NOT NULL DEFAULT -1, report_offset INTEGER NOT NULL DEFAULT -1, "
    "started_ms INTEGER NOT NULL DEFAULT 0)",
    "CREATE TABLE IF NOT EXISTS files(path TEXT PRIMARY KEY, size INTEGER NOT NULL, "
    "modified_ms INTEGER NOT NULL, batch INTEGER NOT NULL, reason TEXT)",
    "CREATE INDEX IF NOT EXISTS files_batch ON files(batch)",
    "CREATE TABLE IF NOT EXISTS ranges(batch INTEGER NOT NULL, topic TEXT NOT NULL, "
    "part INTEGER NOT NULL, from_offset INTEGER NOT NULL, until_offset INTEGER NOT NULL, "
    "PRIMARY KEY(batch, topic, part))",
};

int64_t NowMs() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

int64_t ToInt(const std::optional<std::string>& v) { return v ? std::stoll(*v) : -1; }

BatchState StateOf(const std::string& s) {
  if (s == "committed") return BatchState::kCommitted;
  if (s == "done") return BatchState::kDone;
  return BatchState::kPlanned;
}

}  // namespace

Checkpoint::~Checkpoint() {
  db_.reset();
  if (lock_fd_ >= 0) ::close(lock_fd_);  // releases the lock
}

Result<std::unique_ptr<Checkpoint>> Checkpoint::Open(const std::string& dir,
                                                     const CheckpointIdentity& identity) {
  SLUICE_TRY(LocalFileSystem()->CreateDirs(dir));
  std::unique_ptr<Checkpoint> ckpt(new Checkpoint());
  // One process per checkpoint: two would plan the same files into two batches.
  const std::string lock = dir + "/lock";
  ckpt->lock_fd_ = ::open(lock.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (ckpt->lock_fd_ < 0) {
    return IoError("cannot open " + lock + ": " + std::strerror(errno));
  }
  if (::flock(ckpt->lock_fd_, LOCK_EX | LOCK_NB) != 0) {
    return Fail(ErrorCode::kConflict, "the checkpoint " + dir +
                                          " is in use by another sluice ingest; each process "
                                          "needs its own checkpoint");
  }
  ckpt->path_ = dir + "/checkpoint.db";
  SLUICE_ASSIGN_OR_RETURN(
      ckpt->db_, SqliteDb::Open(ckpt->path_, "the checkpoint", SqliteDb::Mode::kDurable, 30000));
  SqliteDb& db = *ckpt->db_;
  Status made = db.InTransaction([&]() -> Status {
    for (const char* s : kSchema) SLUICE_TRY(db.Exec(s));
    SLUICE_ASSIGN_OR_RETURN(auto rows, db.Query("SELECT key, value FROM meta"));
    if (rows.empty()) {
      ckpt->created_ = true;
      ckpt->id_ = table::RandomUuid();
      for (auto [k, v] : {std::pair<std::string_view, std::string_view>{"id", ckpt->id_},
                          {"kind", identity.kind},
                          {"source", identity.source},
                          {"table", identity.table}}) {
        SLUICE_TRY(db.Exec("INSERT INTO meta(key, value) VALUES(?, ?)", {k, v}));
      }
      std::string created = std::to_string(NowMs());
      return db.Exec("INSERT INTO meta(key, value) VALUES('created_ms', ?)",
                     {std::string_view(created)});
    }
    std::map<std::string, std::string> meta;
    for (const Row& r : rows) meta[*r[0]] = *r[1];
    ckpt->id_ = meta["id"];
    // Paths compare in their normal form, so a checkpoint that recorded `t/` (before paths
    // were normalised) still belongs to the table `t`. A Kafka source is not a path.
    const bool folder = identity.kind == "folder";
    auto same = [&](const char* key, const std::string& want) {
      const std::string_view k(key);
      if (k == "table" || (k == "source" && folder))
        return NormalPath(meta[key]) == NormalPath(want);
      return meta[key] == want;
    };
    auto differs = [&](const char* key, const std::string& want) -> Status {
      if (same(key, want)) return Ok();
      return InvalidArgument("the checkpoint " + dir + " belongs to the " + key + " " + meta[key] +
                             ", not " + want + ": give each source and table its own checkpoint");
    };
    SLUICE_TRY(differs("kind", identity.kind));
    SLUICE_TRY(differs("source", identity.source));
    return differs("table", identity.table);
  });
  if (!made.has_value()) return Fail(made.error());
  return ckpt;
}

Result<std::set<std::string>> Checkpoint::KnownFiles() {
  SLUICE_ASSIGN_OR_RETURN(auto rows, db_->Query("SELECT path FROM files"));
  std::set<std::string> out;
  for (const Row& r : rows) out.insert(*r[0]);
  return out;
}

Result<std::optional<Batch>> Checkpoint::OpenBatch() {
  SLUICE_ASSIGN_OR_RETURN(
      auto rows, db_->Query("SELECT id, state, schema_version, table_version, quarantine, report, "
                            "quarantine_offset, report_offset, started_ms FROM batches "
                            "WHERE state != 'done' ORDER BY id DESC LIMIT 1"));
  if (rows.empty()) return std::optional<Batch>();
  const Row& r = rows[0];
  Batch b;
  b.id = ToInt(r[0]);
  b.state = StateOf(*r[1]);
  b.schema_version = ToInt(r[2]);
  b.table_version = ToInt(r[3]);
  b.quarantine = r[4].value_or("");
  b.report = r[5].value_or("");
  b.quarantine_offset = ToInt(r[6]);
  b.report_offset = ToInt(r[7]);
  b.started_ms = ToInt(r[8]);
  SLUICE_ASSIGN_OR_RETURN(
      auto files,
      db_->Query("SELECT path, size, modified_ms FROM files WHERE batch = ? ORDER BY rowid",
                 {b.id}));
  for (const Row& f : files)
    b.files.push_back({*f[0], static_cast<uint64_t>(ToInt(f[1])), ToInt(f[2])});
  SLUICE_ASSIGN_OR_RETURN(
      auto ranges, db_->Query("SELECT topic, part, from_offset, until_offset FROM ranges WHERE "
                              "batch = ? ORDER BY topic, part",
                              {b.id}));
  for (const Row& g : ranges) {
    b.ranges.push_back({*g[0], static_cast<int32_t>(ToInt(g[1])), ToInt(g[2]), ToInt(g[3])});
  }
  return std::optional<Batch>(std::move(b));
}

Result<int64_t> Checkpoint::NextBatchId() {
  SLUICE_ASSIGN_OR_RETURN(auto rows, db_->Query("SELECT MAX(id) FROM batches"));
  return rows.empty() || !rows[0][0] ? int64_t{0} : ToInt(rows[0][0]) + 1;
}

Status Checkpoint::Plan(const Batch& batch) {
  return db_->InTransaction([&]() -> Status {
    SLUICE_TRY(db_->Exec("INSERT INTO batches(id, state, started_ms) VALUES(?, 'planned', ?)",
                         {batch.id, batch.started_ms}));
    for (const BatchFile& f : batch.files) {
      SLUICE_TRY(db_->Exec(
          "INSERT INTO files(path, size, modified_ms, batch) VALUES(?, ?, ?, ?)",
          {std::string_view(f.path), static_cast<int64_t>(f.size), f.modified_ms, batch.id}));
    }
    for (const PartitionRange& g : batch.ranges) {
      SLUICE_TRY(
          db_->Exec("INSERT INTO ranges(batch, topic, part, from_offset, until_offset) "
                    "VALUES(?, ?, ?, ?, ?)",
                    {batch.id, std::string_view(g.topic), int64_t{g.partition}, g.from, g.until}));
    }
    return Ok();
  });
}

Status Checkpoint::Drop(int64_t batch) {
  return db_->InTransaction([&]() -> Status {
    SLUICE_TRY(db_->Exec("DELETE FROM files WHERE batch = ?", {batch}));
    SLUICE_TRY(db_->Exec("DELETE FROM ranges WHERE batch = ?", {batch}));
    return db_->Exec("DELETE FROM batches WHERE id = ?", {batch});
  });
}

Status Checkpoint::Stage(int64_t batch, int64_t schema_version, const std::string& quarantine,
                         const std::string& report) {
  return db_->Exec("UPDATE batches SET schema_version = ?, quarantine = ?, report = ? WHERE id = ?",
                   {schema_version, std::string_view(quarantine), std::string_view(report), batch});
}

Status Checkpoint::MarkCommitted(int64_t batch, int64_t table_version, int64_t quarantine_offset,
                                 int64_t report_offset) {
  return db_->Exec(
      "UPDATE batches SET state = 'committed', table_version = ?, quarantine_offset = ?, "
      "report_offset = ? WHERE id = ?",
      {table_version, quarantine_offset, report_offset, batch});
}

Status Checkpoint::MarkDone(int64_t batch) {
  return db_->Exec("UPDATE batches SET state = 'done', quarantine = '' WHERE id = ?", {batch});
}

Status Checkpoint::RecordUnreadable(const UnreadableFile& file) {
  return db_->Exec(
      "INSERT OR REPLACE INTO files(path, size, modified_ms, batch, reason) VALUES(?, ?, ?, ?, ?)",
      {std::string_view(file.file.path), static_cast<int64_t>(file.file.size),
       file.file.modified_ms, file.batch, std::string_view(file.reason)});
}

Status Checkpoint::Forget(const std::string& path) {
  return db_->Exec("DELETE FROM files WHERE path = ?", {std::string_view(path)});
}

Result<std::map<std::pair<std::string, int32_t>, int64_t>> Checkpoint::OffsetsOutsideTable() {
  SLUICE_ASSIGN_OR_RETURN(
      auto rows, db_->Query("SELECT r.topic, r.part, MAX(r.until_offset) FROM ranges r JOIN "
                            "batches b ON b.id = r.batch WHERE b.state != 'planned' AND "
                            "b.table_version < 0 GROUP BY r.topic, r.part"));
  std::map<std::pair<std::string, int32_t>, int64_t> out;
  for (const Row& r : rows) out[{*r[0], static_cast<int32_t>(ToInt(r[1]))}] = ToInt(r[2]);
  return out;
}

Result<std::vector<std::string>> Checkpoint::RecentReports(size_t n) {
  SLUICE_ASSIGN_OR_RETURN(
      auto rows, db_->Query("SELECT report FROM (SELECT id, report FROM batches WHERE state = "
                            "'done' ORDER BY id DESC LIMIT ?) ORDER BY id",
                            {static_cast<int64_t>(n)}));
  std::vector<std::string> out;
  for (const Row& r : rows) out.push_back(r[0].value_or(""));
  return out;
}

Result<CheckpointSummary> ReadCheckpoint(const std::string& dir, size_t max_reports) {
  const std::string path = dir + "/checkpoint.db";
  SLUICE_ASSIGN_OR_RETURN(bool exists, LocalFileSystem()->Exists(path));
  if (!exists) return Fail(ErrorCode::kNotFound, "no ingest checkpoint at " + dir);
  // Read-only and lock-free: the ingest that owns the checkpoint keeps writing (WAL lets a
  // reader see the last commit while it does).
  SLUICE_ASSIGN_OR_RETURN(auto db,
                          SqliteDb::Open(path, "the checkpoint", SqliteDb::Mode::kReadOnly, 5000));
  CheckpointSummary out;
  auto meta = db->Query("SELECT key, value FROM meta");
  if (!meta.has_value()) return Fail(meta.error().WithContext(path));
  for (const Row& r : *meta) {
    const std::string key = r[0].value_or("");
    if (key == "kind") out.identity.kind = r[1].value_or("");
    if (key == "source") out.identity.source = r[1].value_or("");
    if (key == "table") out.identity.table = r[1].value_or("");
  }
  auto rows = db->Query(
      "SELECT report FROM (SELECT id, report FROM batches WHERE state = 'done' AND report != '' "
      "ORDER BY id DESC LIMIT ?) ORDER BY id",
      {static_cast<int64_t>(max_reports)});
  if (!rows.has_value()) return Fail(rows.error().WithContext(path));
  for (const Row& r : *rows) out.reports.push_back(r[0].value_or(""));
  return out;
}

}  // namespace sluice::ingest
