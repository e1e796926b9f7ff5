// Rendering what `sluice table history` and `sluice table check` find: a table's history (text,
// JSON) and a table check report (text, JSON). The JSON shapes are in docs/tables.md.
#pragma once

#include <string>
#include <vector>

#include "sluice/base/result.h"
#include "sluice/report/format.h"
#include "sluice/table/check.h"
#include "sluice/table/history.h"

namespace sluice::report {

/// What the history is of, as the user named it.
struct HistoryContext {
  std::string table;
};

/// Render a table's history (newest first, as TableHistory gives it) in `format`: kText (a
/// block per version: its headline, then the protocol, partitioning, properties and schema it
/// changed, the schema change as `sluice diff` prints it) or kJson. kUnimplemented otherwise.
Result<std::string> Render(const std::vector<table::HistoryEntry>& history,
                           const HistoryContext& context, Format format,
                           const RenderOptions& options = {});

/// Render a table check report in `format`: kText (a headline, a line per finding, the notes and
/// a summary) or kJson. kUnimplemented otherwise.
Result<std::string> Render(const table::TableCheckReport& report, Format format,
                           const RenderOptions& options = {});

}  // namespace sluice::report
