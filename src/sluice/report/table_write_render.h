// Rendering a write into a Delta table (`sluice table create|append|overwrite`): what was
// committed, what the write did to the schema, the accounting of every record, or why Delta's
// rules refused it.
#pragma once

#include <string>

#include "sluice/base/result.h"
#include "sluice/report/format.h"
#include "sluice/table/write.h"

namespace sluice::report {

/// Render `result` for the table at `path`: kText (one line for the commit, the schema
/// changes, the records' accounting; or the refusal with each violation and its fix), kJson
/// (docs/tables.md "Write results"). kUnimplemented otherwise.
Result<std::string> Render(const table::TableWriteResult& result, std::string_view path,
                           Format format, const RenderOptions& options = {});

}  // namespace sluice::report
