// Rendering what `sluice cat --meta` shows about a Parquet file (parquet/file_summary.h): text
// in the manner of parquet-tools' `meta`, and JSON (docs/formats/parquet-meta.md).
#pragma once

#include <string>

#include "sluice/base/result.h"
#include "sluice/parquet/file_summary.h"
#include "sluice/report/format.h"

namespace sluice::report {

/// Render `summary` in `format`: kText (the file, its key/value keys and schema, then each row
/// group and its column chunks one per line), kJson. kUnimplemented otherwise.
Result<std::string> Render(const parquet::ParquetFileSummary& summary, Format format,
                           const RenderOptions& options = {});

}  // namespace sluice::report
