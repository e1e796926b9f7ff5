// Rendering the reports of whole-file runs: validation (`sluice validate`: the JSON report of
// docs/formats/validation-report.md, and a one-line summary) and inference (`sluice infer`: a
// summary; the inferred schema itself is written by a dialect).
#pragma once

#include <string>

#include "sluice/base/result.h"
#include "sluice/data/file_runs.h"
#include "sluice/report/format.h"

namespace sluice::report {

/// Render `report` in `format`: kJson (the accounting of every record, the violations and
/// where they occurred), kText (the counts on one line, and where a failfast run stopped).
/// kUnimplemented otherwise.
Result<std::string> Render(const data::ValidateReport& report, Format format,
                           const RenderOptions& options = {});

/// Render the counts of an inference run in `format`: kText (one line), kJson (the counts and
/// the schema as Spark's StructType JSON, docs/formats/infer-summary.md). kUnimplemented
/// otherwise.
Result<std::string> Render(const data::InferResult& result, Format format,
                           const RenderOptions& options = {});

}  // namespace sluice::report
