// Rendering what a write does to a table's schema (`sluice merge`): text and JSON
// (docs/formats/merge-report.md).
#pragma once

#include <string>

#include "sluice/base/result.h"
#include "sluice/evolution/table_merge.h"
#include "sluice/report/format.h"

namespace sluice::report {

/// The write being judged, and the table's resulting schema as the caller wrote it out.
struct MergeContext {
  /// The table's schema and the incoming data's schema, as the user named them.
  std::string table_name;
  std::string incoming_name;
  /// The rules the result was decided with (format, write mode, type widening).
  evolution::MergeOptions options;
  /// The schema language of `schema_text`, as the user named it ("spark-json").
  std::string schema_format;
  /// The resulting schema in that language, ending in a newline; empty when the write is
  /// rejected.
  std::string schema_text;
  /// Text: print the resulting schema after the report (false when it went to a file instead).
  bool schema_in_text = true;
};

/// Render `result` in `format`: kText (the verdict, each violation with its fix, each change,
/// then the resulting schema), kJson. kUnimplemented otherwise.
Result<std::string> Render(const evolution::MergeResult& result, const MergeContext& context,
                           Format format, const RenderOptions& options = {});

}  // namespace sluice::report
