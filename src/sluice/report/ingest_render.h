// Rendering an ingest batch's report (`sluice ingest`): one text line per batch, or the batch's
// JSON object (docs/ingest.md), the shape the --report file holds.
#pragma once

#include <string>

#include "sluice/base/result.h"
#include "sluice/ingest/batch_report.h"
#include "sluice/report/format.h"

namespace sluice::report {

/// kText: "batch 3: 2 files, 1000 records in, 998 written (5 rescued), 2 quarantined, table
/// version 4" and the schema change when there was one, ended by '\n'; kJson: the object on
/// one line. kUnimplemented for other formats.
Result<std::string> Render(const ingest::BatchReport& report, Format format);

}  // namespace sluice::report
