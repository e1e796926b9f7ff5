#include "sluice/table/log_path.h"

#include <fmt/format.h>

namespace sluice::table {
namespace {

bool AllDigits(std::string_view s) {
  if (s.empty()) return false;
  for (char c : s) {
    if (c < '0' || c > '9') return false;
  }
  return true;
}

// A fixed-width version: exactly `width` digits, and small enough for an int64.
std::optional<int64_t> ParseVersion(std::string_view s, size_t width) {
  if (s.size() != width || !AllDigits(s)) return std::nullopt;
  int64_t v = 0;
  for (char c : s) {
    if (v > (INT64_MAX - (c - '0')) / 10) return std::nullopt;
    v = v * 10 + (c - '0');
  }
  return v;
}

bool ConsumeSuffix(std::string_view& s, std::string_view suffix) {
  if (!s.ends_with(suffix)) return false;
  s.remove_suffix(suffix.size());
  return true;
}

}  // namespace

std::optional<LogFileName> ParseLogFileName(std::string_view name) {
  if (name.size() < 21 || name[20] != '.') return std::nullopt;
  std::optional<int64_t> version = ParseVersion(name.substr(0, 20), 20);
  if (!version) return std::nullopt;
  LogFileName out;
  out.version = *version;
  std::string_view rest = name.substr(21);
  if (rest == "json") return out;
  if (rest == "crc") {
    out.kind = LogFileKind::kChecksum;
    return out;
  }
  if (rest == "checkpoint.parquet") {
    out.kind = LogFileKind::kCheckpoint;
    return out;
  }
  if (rest.starts_with("checkpoint.")) {
    rest.remove_prefix(11);
    bool json = ConsumeSuffix(rest, ".json");
    if (!json && !ConsumeSuffix(rest, ".parquet")) return std::nullopt;
    // Multi-part: 10-digit part and count, parquet only.
    if (!json && rest.size() == 21 && rest[10] == '.') {
      std::optional<int64_t> part = ParseVersion(rest.substr(0, 10), 10);
      std::optional<int64_t> parts = ParseVersion(rest.substr(11), 10);
      if (part && parts && *part >= 1 && *part <= *parts && *parts <= INT32_MAX) {
        out.kind = LogFileKind::kMultiPartCheckpoint;
        out.part = static_cast<int>(*part);
        out.parts = static_cast<int>(*parts);
        return out;
      }
      return std::nullopt;
    }
    if (rest.empty() || rest.find('.') != std::string_view::npos) return std::nullopt;
    out.kind = LogFileKind::kV2Checkpoint;
    out.uuid = std::string(rest);
    out.json = json;
    return out;
  }
  if (ConsumeSuffix(rest, ".compacted.json")) {
    std::optional<int64_t> end = ParseVersion(rest, 20);
    if (!end || *end < *version) return std::nullopt;
    out.kind = LogFileKind::kCompactedCommits;
    out.end_version = *end;
    return out;
  }
  return std::nullopt;
}

std::string CommitFileName(int64_t version) { return fmt::format("{:020d}.json", version); }

std::string CheckpointFileName(int64_t version) {
  return fmt::format("{:020d}.checkpoint.parquet", version);
}

std::string ChecksumFileName(int64_t version) { return fmt::format("{:020d}.crc", version); }

std::string LogDirPath(std::string_view root) { return fmt::format("{}/{}", root, kLogDir); }

std::string LogFilePath(std::string_view root, std::string_view name) {
  return fmt::format("{}/{}/{}", root, kLogDir, name);
}

}  // namespace sluice::table
