// What one ingest batch did, accounting for every record: records_in = written + quarantined,
// rescued ones counted among the written. Kept with the batch in the checkpoint and appended to
// the --report file; its JSON shape is in docs/ingest.md.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "sluice/base/json.h"
#include "sluice/base/result.h"
#include "sluice/ingest/checkpoint.h"

namespace sluice::ingest {

struct BatchReport {
  int64_t batch = 0;
  /// "committed"; "recovered" (committed before a crash, finished on the next start).
  std::string status = "committed";
  std::string source;
  std::vector<std::string> files;
  std::vector<PartitionRange> ranges;
  uint64_t records_in = 0;
  uint64_t written = 0;
  uint64_t rescued = 0;
  uint64_t quarantined = 0;
  uint64_t malformed = 0;
  /// Files quarantined whole because they could not be read.
  uint64_t unreadable_files = 0;
  uint64_t bytes = 0;
  int64_t schema_version = -1;
  int64_t table_version = -1;
  std::vector<std::string> added_columns;
  std::vector<std::string> widened_columns;
  int64_t started_ms = 0;
  int64_t duration_ms = 0;

  bool invariant_holds() const { return records_in == written + quarantined && rescued <= written; }
  bool operator==(const BatchReport&) const = default;
};

/// The report as a JSON object (docs/ingest.md) and back.
JsonValue BatchReportToJson(const BatchReport& report);
Result<BatchReport> BatchReportFromJson(const JsonValue& json);

}  // namespace sluice::ingest
