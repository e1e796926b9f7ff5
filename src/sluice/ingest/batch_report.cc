#include "sluice/ingest/batch_report.h"

#include <utility>

namespace sluice::ingest {
namespace {

JsonValue Strings(const std::vector<std::string>& items) {
  JsonValue out = JsonValue::Array();
  for (const std::string& s : items) out.Append(JsonValue::String(s));
  return out;
}

JsonValue Count(uint64_t n) { return JsonValue::Int(static_cast<int64_t>(n)); }

// Reads the members of one report object, remembering the first problem.
class Reader {
 public:
  explicit Reader(const JsonValue& json) : json_(json) {}

  int64_t Int(std::string_view key) {
    const JsonValue* v = json_.Find(key);
    if (v == nullptr || v->is_null()) return -1;
    if (!v->is_number() || !v->as_int64()) return Bad(key), 0;
    return *v->as_int64();
  }
  uint64_t Count(std::string_view key) {
    int64_t n = Int(key);
    return n < 0 ? 0 : static_cast<uint64_t>(n);
  }
  std::string String(std::string_view key) {
    const JsonValue* v = json_.Find(key);
    if (v == nullptr) return {};
    if (!v->is_string()) return Bad(key), std::string();
    return v->as_string();
  }
  std::vector<std::string> Strings(std::string_view key) {
    std::vector<std::string> out;
    const JsonValue* v = json_.Find(key);
    if (v == nullptr) return out;
    if (!v->is_array()) return Bad(key), out;
    for (const JsonValue& item : v->items()) {
      if (!item.is_string()) return Bad(key), out;
      out.push_back(item.as_string());
    }
    return out;
  }
  const JsonValue* Find(std::string_view key) const { return json_.Find(key); }
  void Bad(std::string_view key) {
    if (problem_.empty()) problem_ = std::string(key);
  }
  const std::string& problem() const { return problem_; }

 private:
  const JsonValue& json_;
  std::string problem_;
};

}  // namespace

JsonValue BatchReportToJson(const BatchReport& r) {
  JsonValue out = JsonValue::Object();
  out.Set("batch", JsonValue::Int(r.batch));
  out.Set("status", JsonValue::String(r.status));
  out.Set("source", JsonValue::String(r.source));
  out.Set("files", Strings(r.files));
  JsonValue ranges = JsonValue::Array();
  for (const PartitionRange& g : r.ranges) {
    JsonValue range = JsonValue::Object();
    range.Set("topic", JsonValue::String(g.topic));
    range.Set("partition", JsonValue::Int(g.partition));
    range.Set("fromOffset", JsonValue::Int(g.from));
    range.Set("untilOffset", JsonValue::Int(g.until));
    ranges.Append(std::move(range));
  }
  out.Set("ranges", std::move(ranges));
  out.Set("recordsIn", Count(r.records_in));
  out.Set("written", Count(r.written));
  out.Set("rescued", Count(r.rescued));
  out.Set("quarantined", Count(r.quarantined));
  out.Set("malformed", Count(r.malformed));
  out.Set("unreadableFiles", Count(r.unreadable_files));
  out.Set("bytes", Count(r.bytes));
  out.Set("schemaVersion", JsonValue::Int(r.schema_version));
  out.Set("tableVersion",
          r.table_version < 0 ? JsonValue::Null() : JsonValue::Int(r.table_version));
  out.Set("addedColumns", Strings(r.added_columns));
  out.Set("widenedColumns", Strings(r.widened_columns));
  out.Set("startedMs", JsonValue::Int(r.started_ms));
  out.Set("durationMs", JsonValue::Int(r.duration_ms));
  return out;
}

Result<BatchReport> BatchReportFromJson(const JsonValue& json) {
  if (!json.is_object()) return ParseError("a batch report is a JSON object");
  Reader in(json);
  BatchReport r;
  r.batch = in.Int("batch");
  r.status = in.String("status");
  r.source = in.String("source");
  r.files = in.Strings("files");
  if (const JsonValue* ranges = in.Find("ranges"); ranges != nullptr && ranges->is_array()) {
    for (const JsonValue& g : ranges->items()) {
      Reader range(g);
      r.ranges.push_back({range.String("topic"), static_cast<int32_t>(range.Int("partition")),
                          range.Int("fromOffset"), range.Int("untilOffset")});
      if (!range.problem().empty()) in.Bad("ranges." + range.problem());
    }
  }
  r.records_in = in.Count("recordsIn");
  r.written = in.Count("written");
  r.rescued = in.Count("rescued");
  r.quarantined = in.Count("quarantined");
  r.malformed = in.Count("malformed");
  r.unreadable_files = in.Count("unreadableFiles");
  r.bytes = in.Count("bytes");
  r.schema_version = in.Int("schemaVersion");
  r.table_version = in.Int("tableVersion");
  r.added_columns = in.Strings("addedColumns");
  r.widened_columns = in.Strings("widenedColumns");
  r.started_ms = in.Int("startedMs");
  r.duration_ms = in.Int("durationMs");
  if (!in.problem().empty()) {
    return ParseError("batch report: \"" + in.problem() + "\" has the wrong type");
  }
  return r;
}

}  // namespace sluice::ingest
