#include "sluice/table/snapshot.h"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <unordered_map>

#include "sluice/base/json.h"
#include "sluice/data/parquet_source.h"
#include "sluice/dialects/spark/spark.h"
#include "sluice/table/file_stats.h"
#include "sluice/table/protocol.h"

namespace sluice::table {
namespace {

// Replay state: files by key, the newest add or remove winning.
struct Replay {
  // The table root files are keyed under (TableRootForKeys).
  std::string key_root;
  std::optional<Protocol> protocol;
  std::optional<Metadata> metadata;
  std::unordered_map<std::string, AddFile> adds;
  std::unordered_map<std::string, RemoveFile> removes;
  std::map<std::string, int64_t, std::less<>> app_versions;
  std::map<std::string, DomainMetadata, std::less<>> domains;
  std::vector<Sidecar> sidecars;

  void Apply(Action&& action) {
    if (auto* p = std::get_if<Protocol>(&action)) {
      protocol = std::move(*p);
    } else if (auto* m = std::get_if<Metadata>(&action)) {
      metadata = std::move(*m);
    } else if (auto* a = std::get_if<AddFile>(&action)) {
      std::string key = FileKey(key_root, a->path, a->deletion_vector);
      removes.erase(key);
      adds.insert_or_assign(std::move(key), std::move(*a));
    } else if (auto* r = std::get_if<RemoveFile>(&action)) {
      std::string key = FileKey(key_root, r->path, r->deletion_vector);
      adds.erase(key);
      removes.insert_or_assign(std::move(key), std::move(*r));
    } else if (auto* t = std::get_if<Txn>(&action)) {
      app_versions[t->app_id] = t->version;
    } else if (auto* d = std::get_if<DomainMetadata>(&action)) {
      if (d->removed) {
        domains.erase(d->domain);
      } else {
        domains[d->domain] = std::move(*d);
      }
    } else if (auto* s = std::get_if<Sidecar>(&action)) {
      sidecars.push_back(std::move(*s));
    }
  }
};

std::string NoTable(std::string_view root) {
  return fmt::format("no Delta table at {} (it has no {}/ with a commit)", root, kLogDir);
}

// The rows of a Parquet checkpoint (or sidecar), applied to the replay.
Status ApplyParquetActions(FileSystem& fs, const std::string& path, Replay& replay) {
  SLUICE_ASSIGN_OR_RETURN(auto rows, data::OpenParquetRows(fs, path));
  std::string pending;
  char buf[1 << 16];
  size_t line_no = 0;
  auto apply_line = [&](std::string_view line) -> Status {
    ++line_no;
    if (line.empty()) return Ok();
    Result<JsonValue> row = ParseJson(line);
    if (!row.has_value()) {
      return InvalidArgument(fmt::format("{}: row {}: {}", path, line_no, row.error().message()));
    }
    Result<std::vector<Action>> actions = ActionsFromCheckpointRow(*row);
    if (!actions.has_value()) {
      return InvalidArgument(
          fmt::format("{}: row {}: {}", path, line_no, actions.error().message()));
    }
    for (Action& a : *actions) replay.Apply(std::move(a));
    return Ok();
  };
  while (true) {
    SLUICE_ASSIGN_OR_RETURN(size_t n, rows->Read(buf, sizeof(buf)));
    if (n == 0) break;
    pending.append(buf, n);
    size_t start = 0;
    for (size_t nl; (nl = pending.find('\n', start)) != std::string::npos; start = nl + 1) {
      SLUICE_TRY(apply_line(std::string_view(pending).substr(start, nl - start)));
    }
    pending.erase(0, start);
  }
  return apply_line(pending);
}

Status ApplyJsonActions(FileSystem& fs, const std::string& path, Replay& replay) {
  SLUICE_ASSIGN_OR_RETURN(std::string text, fs.ReadFile(path));
  SLUICE_ASSIGN_OR_RETURN(std::vector<Action> actions, ParseCommit(text, path));
  for (Action& a : actions) replay.Apply(std::move(a));
  return Ok();
}

Status ApplyCheckpoint(FileSystem& fs, std::string_view root, const std::vector<LogFileName>& files,
                       Replay& replay) {
  for (const LogFileName& f : files) {
    std::string name;
    switch (f.kind) {
      case LogFileKind::kCheckpoint:
        name = CheckpointFileName(f.version);
        break;
      case LogFileKind::kMultiPartCheckpoint:
        name =
            fmt::format("{:020d}.checkpoint.{:010d}.{:010d}.parquet", f.version, f.part, f.parts);
        break;
      case LogFileKind::kV2Checkpoint:
        name =
            fmt::format("{:020d}.checkpoint.{}.{}", f.version, f.uuid, f.json ? "json" : "parquet");
        break;
      case LogFileKind::kCommit:
      case LogFileKind::kChecksum:
      case LogFileKind::kCompactedCommits:
        return Internal("not a checkpoint file");
    }
    std::string path = LogFilePath(root, name);
    if (f.kind == LogFileKind::kV2Checkpoint && f.json) {
      SLUICE_TRY(ApplyJsonActions(fs, path, replay));
    } else {
      SLUICE_TRY(ApplyParquetActions(fs, path, replay));
    }
  }
  // A V2 checkpoint's adds and removes may live in sidecar files.
  std::vector<Sidecar> sidecars = std::move(replay.sidecars);
  replay.sidecars.clear();
  for (const Sidecar& s : sidecars) {
    std::string path = s.path.find("://") != std::string::npos || s.path.starts_with("/")
                           ? s.path
                           : LogFilePath(root, "_sidecars/" + s.path);
    SLUICE_TRY(ApplyParquetActions(fs, path, replay));
  }
  return Ok();
}

template <class T, class Key>
std::vector<T> SortedValues(std::unordered_map<std::string, T>& map, Key key) {
  std::vector<T> out;
  out.reserve(map.size());
  for (auto& [k, v] : map) out.push_back(std::move(v));
  std::sort(out.begin(), out.end(), [&](const T& a, const T& b) { return key(a) < key(b); });
  return out;
}

// The version a load is for: options.version, the newest at or before options.timestamp_ms,
// or the latest. `times` receives the commit times when the search needed them.
Result<int64_t> TargetVersion(FileSystem& fs, std::string_view root, const LogListing& listing,
                              const SnapshotOptions& options,
                              std::optional<std::map<int64_t, int64_t>>& times) {
  if (options.version) {
    if (*options.version < 0 || *options.version > listing.latest_version) {
      return NotFound(fmt::format("{}: version {} does not exist (the latest is {})", root,
                                  *options.version, listing.latest_version));
    }
    return *options.version;
  }
  if (!options.timestamp_ms) return listing.latest_version;
  SLUICE_ASSIGN_OR_RETURN(times, CommitTimestamps(fs, root, listing));
  // In-commit timestamps grow with the versions, and so do the file times made monotonic, so
  // the newest version at or before the time is the answer (for a table that turned in-commit
  // timestamps on later, an earlier time finds only the versions before, whose file times are
  // older than the enablement, as PROTOCOL.md's time travel rules ask).
  int64_t found = -1;
  for (const auto& [version, ts] : *times) {
    if (ts <= *options.timestamp_ms) found = version;
  }
  if (found < 0) {
    return NotFound(fmt::format("{}: no version was committed at or before the timestamp {} ms",
                                root, *options.timestamp_ms));
  }
  return found;
}

bool HasCommit(const LogListing& listing, int64_t version) {
  auto it = std::lower_bound(listing.commits.begin(), listing.commits.end(), version,
                             [](const LogListing::Commit& c, int64_t v) { return c.version < v; });
  return it != listing.commits.end() && it->version == version;
}

// Commits start..target must all be there.
Status CheckContiguous(std::string_view root, const LogListing& listing, int64_t start,
                       int64_t target) {
  for (int64_t v = start; v <= target; ++v) {
    if (!HasCommit(listing, v)) {
      return InvalidArgument(fmt::format(
          "{}: the log is missing {} (versions must be contiguous; the table cannot be read at "
          "version {})",
          root, LogFilePath(root, CommitFileName(v)), target));
    }
  }
  return Ok();
}

Result<Snapshot> Finish(std::string_view root, int64_t version, Replay& replay) {
  if (!replay.protocol || !replay.metadata) {
    return InvalidArgument(fmt::format("{}: the log up to version {} holds no {} action", root,
                                       version, replay.protocol ? "metaData" : "protocol"));
  }
  SLUICE_TRY(CheckReadable(*replay.protocol));
  Snapshot s;
  s.root = std::string(root);
  s.version = version;
  s.protocol = std::move(*replay.protocol);
  s.metadata = std::move(*replay.metadata);
  Result<schema::Converted<schema::SchemaPtr>> parsed =
      dialects::spark::ReadJson(s.metadata.schema_string);
  if (!parsed.has_value()) {
    return InvalidArgument(fmt::format("{}: the schemaString of version {} does not parse: {}",
                                       root, version, parsed.error().message()));
  }
  s.schema = std::move(parsed->value);
  s.files = SortedValues<AddFile>(replay.adds,
                                  [](const AddFile& a) -> const std::string& { return a.path; });
  s.tombstones = SortedValues<RemoveFile>(
      replay.removes, [](const RemoveFile& r) -> const std::string& { return r.path; });
  s.app_versions = std::move(replay.app_versions);
  s.domains = std::move(replay.domains);
  return s;
}

// The commit files' modification times, raised where needed so that they grow with the
// versions (as Delta's DeltaHistoryManager monotonizes them).
std::map<int64_t, int64_t> FileTimes(const LogListing& listing) {
  std::map<int64_t, int64_t> out;
  int64_t last = INT64_MIN;
  for (const LogListing::Commit& c : listing.commits) {
    int64_t ts = std::max(c.modified_ms, last == INT64_MIN ? c.modified_ms : last + 1);
    out[c.version] = ts;
    last = ts;
  }
  return out;
}

// The table's state at `target` (the newest usable checkpoint at or below it, then the commits
// after it), without checking that sluice can read it.
Result<Replay> ReplayTo(FileSystem& fs, std::string_view root, const LogListing& listing,
                        int64_t target, int64_t* checkpoint_version) {
  *checkpoint_version = -1;
  const std::string key_root = TableRootForKeys(root);
  // The newest checkpoint at or below the target that reads; an unreadable one falls back to
  // the one before it, as Delta does.
  std::optional<Error> checkpoint_error;
  for (auto it = listing.checkpoints.upper_bound(target); it != listing.checkpoints.begin();) {
    --it;
    if (!CheckContiguous(root, listing, it->first + 1, target).has_value()) continue;
    Replay replay{.key_root = key_root};
    Status read = ApplyCheckpoint(fs, root, it->second, replay);
    if (!read.has_value()) {
      if (!checkpoint_error) checkpoint_error = read.error();
      continue;
    }
    for (int64_t v = it->first + 1; v <= target; ++v) {
      SLUICE_ASSIGN_OR_RETURN(std::vector<Action> actions, ReadCommit(fs, root, v));
      for (Action& a : actions) replay.Apply(std::move(a));
    }
    *checkpoint_version = it->first;
    return replay;
  }
  Status contiguous = CheckContiguous(root, listing, 0, target);
  if (!contiguous.has_value()) {
    if (checkpoint_error) {
      return InvalidArgument(fmt::format("{} and its checkpoint cannot be read: {}",
                                         contiguous.error().message(),
                                         checkpoint_error->message()));
    }
    return Fail(contiguous.error());
  }
  Replay replay{.key_root = key_root};
  for (int64_t v = 0; v <= target; ++v) {
    SLUICE_ASSIGN_OR_RETURN(std::vector<Action> actions, ReadCommit(fs, root, v));
    for (Action& a : actions) replay.Apply(std::move(a));
  }
  return replay;
}

// commitInfo.inCommitTimestamp of commit `version`, or nullopt. The protocol puts commitInfo
// first, so only the lines up to the first commitInfo are parsed.
std::optional<int64_t> InCommitTimestamp(FileSystem& fs, std::string_view root, int64_t version) {
  Result<std::string> text = fs.ReadFile(LogFilePath(root, CommitFileName(version)));
  if (!text.has_value()) return std::nullopt;
  std::string_view rest = *text;
  while (!rest.empty()) {
    size_t nl = rest.find('\n');
    std::string_view line = rest.substr(0, nl);
    rest = nl == std::string_view::npos ? std::string_view() : rest.substr(nl + 1);
    if (line.find("\"commitInfo\"") == std::string_view::npos) continue;
    Result<JsonValue> parsed = ParseJson(line);
    if (!parsed.has_value() || !parsed->is_object()) continue;
    const JsonValue* info = parsed->Find("commitInfo");
    if (info == nullptr || !info->is_object()) continue;
    return CommitInfo{*info}.in_commit_timestamp();
  }
  return std::nullopt;
}

// When `version` was committed, for a table whose in-commit timestamps date the versions from
// `ict_from` on (nullopt: none): its commitInfo.inCommitTimestamp there, else `file_time`. The
// one rule behind every commit time sluice shows or travels to.
int64_t VersionTime(FileSystem& fs, std::string_view root, int64_t version,
                    std::optional<int64_t> ict_from, int64_t file_time) {
  if (ict_from && version >= *ict_from) {
    if (std::optional<int64_t> ict = InCommitTimestamp(fs, root, version)) return *ict;
  }
  return file_time;
}

// When a load that did not search by time was committed: under the snapshot's own metaData,
// as Delta's Snapshot.timestamp is.
int64_t SnapshotTime(FileSystem& fs, std::string_view root, const LogListing& listing,
                     const Snapshot& s) {
  int64_t file_time = 0;
  if (listing.has_times) {
    std::map<int64_t, int64_t> times = FileTimes(listing);
    if (auto t = times.find(s.version); t != times.end()) file_time = t->second;
  } else if (HasCommit(listing, s.version)) {
    Result<FileInfo> info = fs.Stat(LogFilePath(root, CommitFileName(s.version)));
    if (info.has_value()) file_time = info->modified_ms;
  }
  return VersionTime(fs, root, s.version, InCommitTimestampsFrom(s.metadata), file_time);
}

}  // namespace

Result<LogListing> ListLog(FileSystem& fs, std::string_view root, bool with_times) {
  std::string dir = LogDirPath(root);
  std::vector<FileInfo> entries;
  if (with_times) {
    Result<std::vector<FileInfo>> listed = fs.ListFiles(dir);
    if (!listed.has_value()) {
      if (listed.error().code() == ErrorCode::kNotFound) return NotFound(NoTable(root));
      return Fail(listed.error());
    }
    entries = std::move(*listed);
  } else {
    Result<std::vector<std::string>> names = fs.ListDir(dir);
    if (!names.has_value()) {
      if (names.error().code() == ErrorCode::kNotFound) return NotFound(NoTable(root));
      return Fail(names.error());
    }
    entries.reserve(names->size());
    for (std::string& n : *names) entries.push_back(FileInfo{std::move(n), FileKind::kFile, 0, 0});
  }
  LogListing out;
  out.has_times = with_times;
  std::map<std::pair<int64_t, int>, std::vector<LogFileName>> multipart;  // (version, parts)
  for (const FileInfo& e : entries) {
    if (e.kind != FileKind::kFile) continue;
    std::optional<LogFileName> name = ParseLogFileName(e.name);
    if (!name) continue;
    switch (name->kind) {
      case LogFileKind::kCommit:
        out.commits.push_back({name->version, e.modified_ms, e.size});
        out.latest_version = std::max(out.latest_version, name->version);
        break;
      case LogFileKind::kCheckpoint:
      case LogFileKind::kV2Checkpoint:
        // One checkpoint per version is enough: prefer a classic one.
        if (!out.checkpoints.contains(name->version) || name->kind == LogFileKind::kCheckpoint) {
          out.checkpoints[name->version] = {*name};
        }
        out.latest_version = std::max(out.latest_version, name->version);
        break;
      case LogFileKind::kMultiPartCheckpoint:
        multipart[{name->version, name->parts}].push_back(*name);
        break;
      case LogFileKind::kChecksum:
      case LogFileKind::kCompactedCommits:
        break;
    }
  }
  for (auto& [key, parts] : multipart) {
    if (static_cast<int>(parts.size()) != key.second) continue;  // incomplete: not usable
    std::sort(parts.begin(), parts.end(),
              [](const LogFileName& a, const LogFileName& b) { return a.part < b.part; });
    if (!out.checkpoints.contains(key.first)) out.checkpoints[key.first] = parts;
    out.latest_version = std::max(out.latest_version, key.first);
  }
  std::sort(out.commits.begin(), out.commits.end(),
            [](const auto& a, const auto& b) { return a.version < b.version; });
  if (out.latest_version < 0) return NotFound(NoTable(root));
  return out;
}

Result<std::vector<Action>> ReadCommit(FileSystem& fs, std::string_view root, int64_t version) {
  std::string path = LogFilePath(root, CommitFileName(version));
  SLUICE_ASSIGN_OR_RETURN(std::string text, fs.ReadFile(path));
  return ParseCommit(text, path);
}

std::optional<int64_t> InCommitTimestampsFrom(const Metadata& metadata) {
  if (!PropertyTrue(metadata, "delta.enableInCommitTimestamps")) return std::nullopt;
  auto it = metadata.configuration.find("delta.inCommitTimestampEnablementVersion");
  int64_t from = 0;
  if (it != metadata.configuration.end()) {
    const std::string& text = it->second;
    auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), from);
    if (ec != std::errc() || end != text.data() + text.size() || from < 0) from = 0;
  }
  return from;
}

Result<std::map<int64_t, int64_t>> CommitTimestamps(FileSystem& fs, std::string_view root,
                                                    const LogListing& listing,
                                                    const Metadata* latest) {
  std::optional<Metadata> loaded;
  if (latest == nullptr && !listing.commits.empty()) {
    // A table that cannot be replayed at its latest version is dated by its files' times.
    int64_t checkpoint_version = -1;
    Result<Replay> replay =
        ReplayTo(fs, root, listing, listing.latest_version, &checkpoint_version);
    if (replay.has_value() && replay->metadata) loaded = std::move(replay->metadata);
    latest = loaded ? &*loaded : nullptr;
  }
  std::optional<int64_t> ict_from =
      latest != nullptr ? InCommitTimestampsFrom(*latest) : std::nullopt;
  std::map<int64_t, int64_t> out = FileTimes(listing);
  if (ict_from) {
    for (auto it = out.lower_bound(*ict_from); it != out.end(); ++it) {
      it->second = VersionTime(fs, root, it->first, ict_from, it->second);
    }
  }
  return out;
}

Result<Snapshot> LoadSnapshot(FileSystem& fs, std::string_view root,
                              const SnapshotOptions& options) {
  SLUICE_ASSIGN_OR_RETURN(LogListing listing,
                          ListLog(fs, root, /*with_times=*/options.timestamp_ms.has_value()));
  return LoadSnapshot(fs, root, listing, options);
}

Result<Snapshot> LoadSnapshot(FileSystem& fs, std::string_view root, const LogListing& listing,
                              const SnapshotOptions& options) {
  std::optional<std::map<int64_t, int64_t>> times;
  SLUICE_ASSIGN_OR_RETURN(int64_t target, TargetVersion(fs, root, listing, options, times));
  int64_t checkpoint_version = -1;
  SLUICE_ASSIGN_OR_RETURN(Replay replay, ReplayTo(fs, root, listing, target, &checkpoint_version));
  SLUICE_ASSIGN_OR_RETURN(Snapshot s, Finish(root, target, replay));
  s.checkpoint_version = checkpoint_version;
  if (times) {
    auto t = times->find(target);
    s.timestamp_ms = t == times->end() ? 0 : t->second;
  } else {
    s.timestamp_ms = SnapshotTime(fs, root, listing, s);
  }
  return s;
}

std::optional<std::string> Snapshot::Property(std::string_view key) const {
  auto it = metadata.configuration.find(key);
  if (it == metadata.configuration.end()) return std::nullopt;
  return it->second;
}

std::optional<int64_t> Snapshot::NumRecords() const {
  int64_t total = 0;
  for (const AddFile& f : files) {
    if (!f.stats) return std::nullopt;
    Result<ParsedStats> stats = ParseStats(*f.stats);
    if (!stats.has_value() || !stats->num_records) return std::nullopt;
    total += *stats->num_records;
  }
  return total;
}

}  // namespace sluice::table
