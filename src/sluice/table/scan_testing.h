// Test helpers for table scans (json_rows_testing.h compares the rows).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "sluice/table/json_rows_testing.h"
#include "sluice/table/scan.h"

namespace sluice::table::testing {

/// Every row of a scan, or the error.
inline Result<std::vector<std::string>> ScanRows(std::shared_ptr<FileSystem> fs,
                                                 const std::string& root,
                                                 const ScanOptions& options = {},
                                                 ScanStats* stats = nullptr) {
  std::vector<std::string> rows;
  auto r = ScanTable(std::move(fs), root, options, [&](std::string_view row) -> Status {
    rows.emplace_back(row);
    return Ok();
  });
  if (!r.has_value()) return Fail(r.error());
  if (stats != nullptr) *stats = *r;
  return rows;
}

}  // namespace sluice::table::testing
