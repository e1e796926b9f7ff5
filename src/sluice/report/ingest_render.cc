#include "sluice/report/ingest_render.h"

#include <fmt/format.h>

#include "sluice/base/json_writer.h"

namespace sluice::report {
namespace {

std::string Join(const std::vector<std::string>& items) {
  std::string out;
  for (const std::string& s : items) out += (out.empty() ? "" : ", ") + s;
  return out;
}

std::string Text(const ingest::BatchReport& r) {
  std::string what =
      !r.ranges.empty()
          ? fmt::format("{} partition{}", r.ranges.size(), r.ranges.size() == 1 ? "" : "s")
          : fmt::format("{} file{}", r.files.size(), r.files.size() == 1 ? "" : "s");
  std::string line =
      fmt::format("batch {}: {}, {} records in, {} written ({} rescued), {} quarantined", r.batch,
                  what, r.records_in, r.written, r.rescued, r.quarantined);
  if (r.unreadable_files > 0) line += fmt::format(", {} unreadable files", r.unreadable_files);
  if (r.table_version >= 0) line += fmt::format(", table version {}", r.table_version);
  if (r.status != "committed") line += fmt::format(" ({})", r.status);
  line += '\n';
  if (!r.added_columns.empty()) {
    line += fmt::format("  schema version {}: added {}\n", r.schema_version, Join(r.added_columns));
  }
  if (!r.widened_columns.empty()) {
    line +=
        fmt::format("  schema version {}: widened {}\n", r.schema_version, Join(r.widened_columns));
  }
  return line;
}

}  // namespace

Result<std::string> Render(const ingest::BatchReport& report, Format format) {
  switch (format) {
    case Format::kText:
      return Text(report);
    case Format::kJson:
      return ToJson(ingest::BatchReportToJson(report)) + "\n";
    case Format::kGithub:
    case Format::kSlack:
    case Format::kHtml:
      break;
  }
  return Fail(Unsupported("an ingest batch report", format));
}

}  // namespace sluice::report
