// The table endpoints: the configured Delta tables, each one's history as `sluice table history
// --format json` gives it, and any version's schema, properties, constraints and protocol.
#include <charconv>
#include <utility>
#include <variant>

#include "sluice/base/json_writer.h"
#include "sluice/report/table_info_render.h"
#include "sluice/table/history.h"
#include "sluice/table/snapshot.h"
#include "sluice/table/time_travel.h"
#include "sluice/ui/api_internal.h"

namespace sluice::ui::internal {
namespace {

using registry::HttpResponse;

constexpr std::string_view kConstraintPrefix = "delta.constraints.";

void WriteStrings(JsonWriter& w, const std::vector<std::string>& items) {
  w.BeginArray();
  for (const std::string& s : items) w.String(s);
  w.EndArray();
}

struct LatestCommit {
  int64_t version = 0;
  int64_t timestamp_ms = 0;
  std::string operation;
};

// The newest commit of the table at `root`, from the log's listing and that one commit: the
// list of tables stays quick however long a table's history is.
Result<LatestCommit> Latest(FileSystem& fs, const std::string& root) {
  SLUICE_ASSIGN_OR_RETURN(table::LogListing listing, table::ListLog(fs, root));
  if (listing.commits.empty()) return Fail(ErrorCode::kNotFound, "no commit in the log");
  LatestCommit out;
  out.version = listing.commits.back().version;
  SLUICE_ASSIGN_OR_RETURN(auto times, table::CommitTimestamps(fs, root, listing));
  if (auto it = times.find(out.version); it != times.end()) out.timestamp_ms = it->second;
  SLUICE_ASSIGN_OR_RETURN(std::vector<table::Action> actions,
                          table::ReadCommit(fs, root, out.version));
  for (const table::Action& a : actions) {
    if (const auto* info = std::get_if<table::CommitInfo>(&a)) {
      out.operation = info->operation();  // its time is CommitTimestamps', as history's
    }
  }
  return out;
}

}  // namespace

HttpResponse TableList(const UiOptions& options, const ApiRequest& request) {
  if (!MayRead(request.user)) return ApiError(403, 40301, "User is denied read access");
  JsonWriter w;
  w.BeginArray();
  for (const NamedPath& t : options.tables) {
    w.BeginObject().Key("name").String(t.name).Key("path").String(t.path);
    auto latest = Latest(*options.fs, t.path);
    if (latest.has_value()) {
      w.Key("version").Int(latest->version);
      w.Key("updatedAt").String(table::FormatTimestampMs(latest->timestamp_ms));
      w.Key("operation").String(latest->operation);
    } else {
      // A table that is gone or broken is listed with why, so the page can say so.
      w.Key("version").Null().Key("updatedAt").Null().Key("operation").Null();
      w.Key("error").String(latest.error().message());
    }
    w.EndObject();
  }
  w.EndArray();
  return Json(200, w.Take());
}

HttpResponse TableHistory(const UiOptions& options, const ApiRequest& request) {
  if (!MayRead(request.user)) return ApiError(403, 40301, "User is denied read access");
  const NamedPath* t = FindNamed(options.tables, request.segments[1]);
  if (!t) return NotFound("Table '" + request.segments[1] + "' not found.");
  auto history = table::TableHistory(*options.fs, t->path);
  if (!history.has_value()) return FromError(history.error());
  auto json = report::Render(*history, report::HistoryContext{t->name}, report::Format::kJson);
  if (!json.has_value()) return FromError(json.error());
  return Json(200, std::move(*json));
}

HttpResponse TableSchema(const UiOptions& options, const ApiRequest& request) {
  if (!MayRead(request.user)) return ApiError(403, 40301, "User is denied read access");
  const NamedPath* t = FindNamed(options.tables, request.segments[1]);
  if (!t) return NotFound("Table '" + request.segments[1] + "' not found.");
  table::SnapshotOptions so;
  if (auto it = request.query.find("version");
      it != request.query.end() && !it->second.empty() && it->second != "latest") {
    int64_t v = 0;
    const char* end = it->second.data() + it->second.size();
    auto [ptr, ec] = std::from_chars(it->second.data(), end, v);
    if (ec != std::errc() || ptr != end || v < 0) {
      return ApiError(422, 42202, "version must be a table version number: " + it->second);
    }
    so.version = v;
  }
  auto snap = table::LoadSnapshot(*options.fs, t->path, so);
  if (!snap.has_value()) {
    if (snap.error().code() == ErrorCode::kNotFound) {
      return NotFound("Table '" + t->name + "' has no such version: " + snap.error().message());
    }
    return FromError(snap.error());
  }
  JsonWriter w;
  w.BeginObject();
  w.Key("version").Int(snap->version);
  w.Key("updatedAt").String(table::FormatTimestampMs(snap->timestamp_ms));
  w.Key("fields").Raw(snap->schema ? FieldsJson(*snap->schema) : "[]");
  w.Key("properties").BeginObject();
  for (const auto& [k, v] : snap->metadata.configuration) {
    if (!k.starts_with(kConstraintPrefix)) w.Key(k).String(v);
  }
  w.EndObject();
  w.Key("constraints").BeginObject();
  for (const auto& [k, v] : snap->metadata.configuration) {
    if (k.starts_with(kConstraintPrefix)) w.Key(k.substr(kConstraintPrefix.size())).String(v);
  }
  w.EndObject();
  w.Key("partitionColumns");
  WriteStrings(w, snap->metadata.partition_columns);
  w.Key("protocol").BeginObject();
  w.Key("minReaderVersion").Int(snap->protocol.min_reader_version);
  w.Key("minWriterVersion").Int(snap->protocol.min_writer_version);
  w.Key("readerFeatures");
  WriteStrings(w, snap->protocol.reader_features.value_or(std::vector<std::string>{}));
  w.Key("writerFeatures");
  WriteStrings(w, snap->protocol.writer_features.value_or(std::vector<std::string>{}));
  w.EndObject();
  w.EndObject();
  return Json(200, w.Take());
}

}  // namespace sluice::ui::internal
