#include "sluice/table/check.h"

#include <fmt/format.h>

#include <algorithm>

#include "sluice/base/json.h"
#include "sluice/parquet/file_reader.h"
#include "sluice/table/check_internal.h"
#include "sluice/table/log_inspect_internal.h"
#include "sluice/table/protocol.h"
#include "sluice/table/snapshot.h"

namespace sluice::table {
namespace {

using internal::Findings;

std::string LogFile(std::string_view name) { return fmt::format("{}/{}", kLogDir, name); }

void Missing(int64_t from, int64_t to, std::string_view why, Findings& f) {
  std::string versions = from == to ? fmt::format("version {} is", from)
                                    : fmt::format("versions {} to {} are", from, to);
  f.Error("missing_version", from, LogFile(CommitFileName(from)),
          fmt::format("{} missing from the log{}", versions, why));
}

// Versions must be contiguous: from 0, or from a checkpoint that stands for the commits before
// the first one present (what a log cleanup leaves), to the newest.
void CheckContinuity(const LogListing& listing, Findings& f) {
  const auto& commits = listing.commits;
  if (commits.empty()) return;  // a log of checkpoints only: nothing to be contiguous
  const int64_t first = commits.front().version;
  if (first > 0) {
    // A checkpoint at or after first-1 holds what the missing versions did.
    auto covering = listing.checkpoints.lower_bound(first - 1);
    if (covering == listing.checkpoints.end()) {
      auto older = listing.checkpoints.upper_bound(first - 1);
      int64_t from = 0;
      if (older != listing.checkpoints.begin()) from = std::prev(older)->first + 1;
      Missing(from, first - 1,
              from == 0 ? " and no checkpoint stands for them"
                        : fmt::format(" after the checkpoint at {}", from - 1),
              f);
    }
  }
  for (size_t i = 1; i < commits.size(); ++i) {
    if (commits[i].version != commits[i - 1].version + 1) {
      Missing(commits[i - 1].version + 1, commits[i].version - 1, "", f);
    }
  }
  // A checkpoint is written after its version's commit, so the newest version has one too.
  if (listing.latest_version > commits.back().version) {
    Missing(commits.back().version + 1, listing.latest_version,
            fmt::format(" though a checkpoint at {} is there", listing.latest_version), f);
  }
}

// `_last_checkpoint` is a hint: readers list the log when it is wrong, so a wrong one warns.
Status CheckLastCheckpoint(FileSystem& fs, std::string_view root, const LogListing& listing,
                           Findings& f) {
  const std::string file = LogFile(kLastCheckpoint);
  Result<std::string> text = fs.ReadFile(LogFilePath(root, kLastCheckpoint));
  if (!text.has_value()) {
    if (text.error().code() == ErrorCode::kNotFound) return Ok();
    return Fail(text.error());
  }
  Result<JsonValue> json = ParseJson(*text);
  const JsonValue* v = json.has_value() ? json->Find("version") : nullptr;
  std::optional<int64_t> version = v != nullptr && v->is_number() ? v->as_int64() : std::nullopt;
  if (!version) {
    f.Warning("last_checkpoint", std::nullopt, file,
              json.has_value() ? "it holds no integer version"
                               : "it is not JSON: " + json.error().message());
    return Ok();
  }
  if (!listing.checkpoints.contains(*version)) {
    f.Warning("missing_checkpoint", *version, file,
              fmt::format("it names the checkpoint at version {}, which is not in the log (or "
                          "lacks parts); readers fall back to listing the log",
                          *version));
  }
  return Ok();
}

// Every commit in the log, in order, with the metaData in force tracked across them.
Status CheckCommits(FileSystem& fs, std::string_view root, const LogListing& listing,
                    TableCheckReport& report, Findings& f) {
  internal::LogState state;
  int64_t previous = -1;
  for (const LogListing::Commit& c : listing.commits) {
    if (c.version != previous + 1) state = {};  // what came before is unknown
    previous = c.version;
    if (!state.partition_keys && listing.checkpoints.contains(c.version - 1)) {
      if (Result<Snapshot> s = LoadSnapshot(fs, root, listing, {.version = c.version - 1}); s) {
        state.partition_keys = internal::PartitionKeys(s->metadata, s->schema.get());
        state.metadata = std::move(s->metadata);
      }
    }
    const std::string name = CommitFileName(c.version);
    Result<std::string> text = fs.ReadFile(LogFilePath(root, name));
    if (!text.has_value()) {
      if (text.error().code() != ErrorCode::kNotFound) return Fail(text.error());
      Missing(c.version, c.version, " (it vanished while the log was checked)", f);
      continue;
    }
    internal::CheckCommit(*text, c.version, LogFile(name), state, f);
    ++report.commits_checked;
  }
  return Ok();
}

bool HasFieldMetadata(const schema::Schema& schema, std::string_view key) {
  bool found = false;
  schema::VisitFields(schema, [&](const schema::FieldPath&, const schema::Field& field) {
    if (field.metadata().Find(key) != nullptr) found = true;
  });
  return found;
}

// What the table uses needs its table feature (or the legacy protocol versions that imply it).
void CheckFeatures(const Snapshot& s, Findings& f) {
  FeatureNeeds needs = NeedsOf(s.metadata, *s.schema);
  auto need = [&](bool used, std::initializer_list<std::string_view> features,
                  std::string_view what) {
    if (!used) return;
    for (std::string_view feature : features) {
      if (Supports(s.protocol, feature)) return;
    }
    f.Error("feature_missing", s.version, "",
            fmt::format("{} needs the table feature {}, which the protocol ({}, {}) lacks", what,
                        *features.begin(), s.protocol.min_reader_version,
                        s.protocol.min_writer_version));
  };
  need(needs.column_mapping, {"columnMapping"}, "column mapping");
  need(needs.timestamp_ntz, {"timestampNtz"}, "a timestamp_ntz column");
  need(needs.type_widening || HasFieldMetadata(*s.schema, "delta.typeChanges"),
       {"typeWidening", "typeWidening-preview"}, "type widening");
  need(needs.check_constraints, {"checkConstraints"}, "a CHECK constraint");
  need(needs.append_only, {"appendOnly"}, "delta.appendOnly");
  need(needs.invariants, {"invariants"}, "a column invariant");
  bool any_dv = std::any_of(s.files.begin(), s.files.end(),
                            [](const AddFile& a) { return a.deletion_vector.has_value(); });
  need(needs.deletion_vectors || any_dv, {"deletionVectors"}, "deletion vectors");
}

// The replayed state at the newest version, or nullopt with why.
std::optional<Snapshot> Replay(FileSystem& fs, std::string_view root, const LogListing& listing,
                               TableCheckReport& report, Findings& f) {
  Result<Snapshot> s = LoadSnapshot(fs, root, listing, {});
  if (!s.has_value()) {
    if (s.error().code() == ErrorCode::kUnimplemented) {
      f.Warning("unsupported_feature", listing.latest_version, "",
                "sluice cannot read this table: " + s.error().message());
    } else if (report.Count(FindingSeverity::kError) == 0) {
      f.Error("replay", listing.latest_version, "", s.error().message());
    }
    report.notes.push_back(
        fmt::format("the table cannot be read at version {}, so its data files were not checked",
                    listing.latest_version));
    return std::nullopt;
  }
  report.checkpoint_version = s->checkpoint_version;
  report.live_files = static_cast<int64_t>(s->files.size());
  // Replay starts at the newest checkpoint that reads; an older one means the newest did not.
  auto newest = listing.checkpoints.upper_bound(listing.latest_version);
  if (newest != listing.checkpoints.begin()) {
    int64_t cp = std::prev(newest)->first;
    if (cp > s->checkpoint_version) {
      f.Warning(
          "checkpoint", cp, LogFile(CheckpointFileName(cp)),
          fmt::format("the checkpoint at version {} cannot be read; readers replay from {}", cp,
                      s->checkpoint_version < 0
                          ? std::string("version 0")
                          : fmt::format("the checkpoint at {}", s->checkpoint_version)));
    }
  }
  return std::move(*s);
}

// Every live file: present, of its logged size, a Parquet file with stats.numRecords rows.
void CheckDataFiles(FileSystem& fs, std::string_view root, const Snapshot& s,
                    TableCheckReport& report, Findings& f) {
  // The reader wants shared ownership; the file system outlives this call.
  std::shared_ptr<FileSystem> shared(std::shared_ptr<FileSystem>(), &fs);
  int64_t rows = 0;
  bool all_read = true;
  int64_t elsewhere = 0;
  const std::string prefix = fmt::format("{}/", root);
  for (const AddFile& add : s.files) {
    Result<std::optional<std::string>> where = internal::DataFilePath(root, add.path);
    if (!where.has_value() || !*where) {
      all_read = false;
      if (where.has_value()) ++elsewhere;  // a malformed path was reported with its commit
      continue;
    }
    const std::string& path = **where;
    std::string file = path.starts_with(prefix) ? path.substr(prefix.size()) : path;
    Result<FileInfo> info = fs.Stat(path);
    if (!info.has_value()) {
      all_read = false;
      if (info.error().code() == ErrorCode::kNotFound) {
        f.Error("missing_file", std::nullopt, file, "a live file of the table is not there");
      } else {
        f.Error("read_failed", std::nullopt, file, info.error().message());
      }
      continue;
    }
    if (static_cast<int64_t>(info->size) != add.size) {
      f.Error("size_mismatch", std::nullopt, file,
              fmt::format("the log says {} bytes, the file has {}", add.size, info->size));
    }
    Result<std::unique_ptr<parquet::FileReader>> reader = parquet::FileReader::Open(shared, path);
    if (!reader.has_value()) {
      all_read = false;
      f.Error("read_failed", std::nullopt, file, reader.error().message());
      continue;
    }
    ++report.files_checked;
    const int64_t footer_rows = (*reader)->num_rows();
    rows += footer_rows;
    if (!add.stats) continue;
    Result<std::optional<int64_t>> logged = internal::StatsNumRecords(*add.stats);
    if (logged.has_value() && *logged && **logged != footer_rows) {
      f.Error("row_count", std::nullopt, file,
              fmt::format("stats.numRecords says {} rows, the file's footer {}", **logged,
                          footer_rows));
    }
  }
  if (all_read) report.rows = rows;
  if (elsewhere > 0) {
    report.notes.push_back(fmt::format("{} live file{} on other file systems (URIs) {} not checked",
                                       elsewhere, elsewhere == 1 ? "" : "s",
                                       elsewhere == 1 ? "was" : "were"));
  }
}

}  // namespace

std::string_view FindingSeverityName(FindingSeverity severity) {
  switch (severity) {
    case FindingSeverity::kError:
      return "error";
    case FindingSeverity::kWarning:
      return "warning";
  }
  return "error";
}

int TableCheckReport::Count(FindingSeverity severity) const {
  return static_cast<int>(
      std::count_if(findings.begin(), findings.end(),
                    [&](const TableFinding& t) { return t.severity == severity; }));
}

Result<TableCheckReport> CheckTable(FileSystem& fs, std::string_view root) {
  SLUICE_ASSIGN_OR_RETURN(LogListing listing, ListLog(fs, root));
  TableCheckReport report;
  report.root = std::string(root);
  report.version = listing.latest_version;
  Findings f(report.findings);
  CheckContinuity(listing, f);
  SLUICE_TRY(CheckLastCheckpoint(fs, root, listing, f));
  SLUICE_TRY(CheckCommits(fs, root, listing, report, f));
  std::optional<Snapshot> snapshot = Replay(fs, root, listing, report, f);
  if (snapshot) {
    CheckFeatures(*snapshot, f);
    CheckDataFiles(fs, root, *snapshot, report, f);
  }
  return report;
}

}  // namespace sluice::table
