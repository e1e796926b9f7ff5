// The names of a Delta table's log files (PROTOCOL.md "Delta Log Entries", "Checkpoints"):
// `_delta_log/00000000000000000007.json` commits, classic, multi-part and V2 checkpoints,
// `_last_checkpoint`, and the `.crc` checksums beside commits.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace sluice::table {

inline constexpr std::string_view kLogDir = "_delta_log";
inline constexpr std::string_view kLastCheckpoint = "_last_checkpoint";

enum class LogFileKind : uint8_t {
  kCommit,               // 00000000000000000007.json
  kCheckpoint,           // 00000000000000000010.checkpoint.parquet
  kMultiPartCheckpoint,  // 00000000000000000010.checkpoint.0000000001.0000000003.parquet
  kV2Checkpoint,         // 00000000000000000010.checkpoint.<uuid>.json|parquet
  kChecksum,             // 00000000000000000007.crc
  kCompactedCommits,     // 00000000000000000004.00000000000000000006.compacted.json
};

/// What a file name in `_delta_log/` is.
struct LogFileName {
  LogFileKind kind = LogFileKind::kCommit;
  int64_t version = 0;
  /// Multi-part checkpoints: this part (1-based) and the number of parts.
  int part = 0;
  int parts = 0;
  /// V2 checkpoints: the uuid and whether the file is JSON (else Parquet).
  std::string uuid;
  bool json = false;
  /// Compacted commits: the last version they cover.
  int64_t end_version = 0;
};

/// Read a file name (not a path); nullopt for names that are no log file (temporary files,
/// `_last_checkpoint`, `.crc` of other files, `_sidecars`). Versions must be 20 digits.
std::optional<LogFileName> ParseLogFileName(std::string_view name);

/// `00000000000000000007.json`.
std::string CommitFileName(int64_t version);
/// `00000000000000000010.checkpoint.parquet`.
std::string CheckpointFileName(int64_t version);
/// `00000000000000000007.crc`.
std::string ChecksumFileName(int64_t version);

/// `root/_delta_log`, `root/_delta_log/name`; `root` without a trailing '/'.
std::string LogDirPath(std::string_view root);
std::string LogFilePath(std::string_view root, std::string_view name);

}  // namespace sluice::table
