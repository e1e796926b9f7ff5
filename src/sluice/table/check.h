// Checking a Delta table against the Delta protocol and its own files: the log's continuity and
// form, every action, the protocol's rules, and every live data file (present, of its logged
// size, with as many rows as its stats say). What is wrong comes back as findings, never as an
// error: an error means the check could not run.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "sluice/base/file_system.h"
#include "sluice/base/result.h"

namespace sluice::table {

enum class FindingSeverity : uint8_t {
  kError,    // the table breaks the protocol, or a reader would get wrong or no data
  kWarning,  // readers cope (an unknown action, a stale _last_checkpoint), or sluice cannot
             // read what the table needs
};

/// "error", "warning".
std::string_view FindingSeverityName(FindingSeverity severity);

/// One thing wrong with the table.
struct TableFinding {
  /// The rule broken: "missing_version", "bad_json", "size_mismatch", ... (docs/tables.md lists
  /// them).
  std::string rule;
  FindingSeverity severity = FindingSeverity::kError;
  /// The version of the commit or checkpoint it is about, if any.
  std::optional<int64_t> version;
  /// The file it is about, relative to the table's root (`_delta_log/00000000000000000003.json`,
  /// a data file's decoded path); empty when it is about the table as a whole.
  std::string file;
  std::string message;
};

struct TableCheckReport {
  std::string root;
  /// The newest version in the log.
  int64_t version = -1;
  /// The checkpoint the live files were replayed from; -1 when replay read every commit.
  int64_t checkpoint_version = -1;
  /// Commit files read.
  int64_t commits_checked = 0;
  /// Live files at `version`, and how many of them were opened and their footers read.
  int64_t live_files = 0;
  int64_t files_checked = 0;
  /// Rows in the live files, from their footers, when every one was read.
  std::optional<int64_t> rows;
  std::vector<TableFinding> findings;
  /// What was not checked, and why (files on other file systems, a log that cannot be
  /// replayed).
  std::vector<std::string> notes;

  bool clean() const { return findings.empty(); }
  int Count(FindingSeverity severity) const;
};

/// Check the table at `root`: every commit still in the log, `_last_checkpoint`, the replayed
/// state at the newest version, and its live data files (their Parquet footers). kNotFound when
/// `root` holds no table; the file system's error when the log cannot be listed or read.
Result<TableCheckReport> CheckTable(FileSystem& fs, std::string_view root);

}  // namespace sluice::table
