// Fuzz whole-file validation of JSON lines and CSV: the input is written to an in-memory file and
// run through data::ValidateFiles with small blocks (so block boundaries move), in the mode and
// format the first byte picks, on one and on two threads. The invariant must hold, the outputs
// must be the same for both thread counts, and what a user reads back must say what the report
// says: every output line is an object with exactly the schema's top-level fields (and the
// rescued column last in permissive mode, non-null on `rescued` of them, and then a JSON
// object's text with unique names and the file's path last); every quarantine line
// is an object with docs/formats/quarantine.md's members whose `raw` is the input's own bytes
// at `offset`, on the `line` that offset is on; a failfast run quarantines at most the record
// it stopped on.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "sluice/base/file_system.h"
#include "sluice/base/json.h"
#include "sluice/base/strings.h"
#include "sluice/data/file_runs.h"
#include "sluice/dialects/spark/spark.h"

namespace {

using namespace sluice;

class Sink : public ByteSink {
 public:
  Status Write(std::string_view bytes) override {
    text.append(bytes);
    return Ok();
  }
  std::string text;
};

// Split `text` into JSON lines; every line must parse as an object and the text end with '\n'.
std::vector<JsonValue> JsonLines(const std::string& text) {
  std::vector<JsonValue> lines;
  size_t pos = 0;
  while (pos < text.size()) {
    size_t nl = text.find('\n', pos);
    if (nl == std::string::npos) std::abort();
    auto v = ParseJson(std::string_view(text).substr(pos, nl - pos));
    if (!v.has_value() || !v->is_object()) std::abort();
    lines.push_back(*std::move(v));
    pos = nl + 1;
  }
  return lines;
}

// `prior_possible`: the input may hold the rescued column itself (its name, or an escape that
// may spell it), whose value a record with nothing else to rescue keeps as it is (the rescued
// column of an earlier pass); such a line's column need not be an object sluice made.
void CheckOutput(const std::vector<JsonValue>& lines, const schema::Schema& schema,
                 const std::string& rescued_column, uint64_t rescued, const std::string& path,
                 bool prior_possible) {
  uint64_t non_null_rescued = 0;
  for (const JsonValue& line : lines) {
    const auto& members = line.members();
    size_t i = 0;
    std::set<std::string_view> seen;
    for (; i < members.size(); ++i) {
      if (!rescued_column.empty() && i + 1 == members.size()) break;
      if (!seen.insert(members[i].key).second) std::abort();  // a field written twice
      bool known = false;
      for (const schema::Field& f : schema.fields()) known = known || f.name() == members[i].key;
      if (!known) std::abort();  // unknown keys are left out
    }
    if (seen.size() != schema.fields().size()) std::abort();  // absent fields come as null
    for (const schema::Field& f : schema.fields()) {
      if (!f.nullable() && line.Find(f.name())->is_null()) std::abort();
    }
    if (!rescued_column.empty()) {
      if (members.size() != seen.size() + 1 || members.back().key != rescued_column) std::abort();
      const JsonValue& r = members.back().value;
      if (!r.is_null()) {
        if (!r.is_string()) std::abort();
        if (prior_possible) continue;
        ++non_null_rescued;
        // A JSON object's text (rescued values may repeat keys inside; its own names may not),
        // the file's path last.
        JsonParseOptions lenient;
        lenient.allow_duplicate_keys = true;
        auto inner = ParseJson(r.as_string(), lenient);
        if (!inner.has_value() || !inner->is_object() || inner->members().size() < 2) std::abort();
        std::set<std::string_view> names;
        for (const JsonMember& m : inner->members()) {
          if (!names.insert(m.key).second) std::abort();
        }
        const JsonMember& last = inner->members().back();
        if (last.key != "_file_path" || !last.value.is_string() || last.value.as_string() != path) {
          std::abort();
        }
      }
    }
  }
  if (prior_possible ? non_null_rescued > rescued : non_null_rescued != rescued) std::abort();
}

void CheckQuarantine(const std::vector<JsonValue>& lines, const std::string& path,
                     std::string_view input) {
  static const char* kOrder[] = {"file",       "line", "offset",      "error",
                                 "violations", "raw",  "raw_encoding"};
  int64_t last_offset = -1;
  int64_t last_line = 0;
  size_t counted = 0;     // input bytes scanned for line breaks
  uint64_t newlines = 0;  // line breaks in input[0, counted)
  for (const JsonValue& q : lines) {
    // Members in the documented order; error_offset is optional, after offset.
    size_t k = 0;
    for (const JsonMember& m : q.members()) {
      if (m.key == "error_offset" && k == 3) continue;
      if (k == std::size(kOrder) || m.key != kOrder[k]) std::abort();
      ++k;
    }
    if (k != std::size(kOrder)) std::abort();
    if (q.Find("file")->as_string() != path) std::abort();
    auto line = q.Find("line")->as_int64();
    auto offset = q.Find("offset")->as_int64();
    if (!line || !offset || *line < 1 || *offset < 0) std::abort();
    if (static_cast<size_t>(*offset) > input.size()) std::abort();
    if (*offset <= last_offset || *line < last_line) std::abort();  // input order
    last_offset = *offset;
    last_line = *line;
    if (const JsonValue* e = q.Find("error_offset")) {
      auto eo = e->as_int64();
      if (!eo || *eo < *offset || static_cast<size_t>(*eo) > input.size()) std::abort();
    }
    if (!q.Find("error")->is_string() || q.Find("error")->as_string().empty()) std::abort();
    if (!q.Find("violations")->is_array()) std::abort();
    for (const JsonValue& v : q.Find("violations")->items()) {
      if (!v.is_object() || v.size() != 2 || v.Find("path") == nullptr ||
          !v.Find("path")->is_string() || v.Find("kind") == nullptr ||
          !v.Find("kind")->is_string()) {
        std::abort();
      }
    }
    const JsonValue* raw = q.Find("raw");
    const std::string& encoding = q.Find("raw_encoding")->as_string();
    if (!raw->is_string()) std::abort();
    std::string bytes;
    if (encoding == "utf8") {
      bytes = raw->as_string();
    } else if (encoding == "base64") {
      auto decoded = Base64Decode(raw->as_string());
      if (!decoded) std::abort();
      bytes = *std::move(decoded);
    } else {
      std::abort();
    }
    // raw is the record's bytes exactly as in the input, from its offset.
    if (input.substr(static_cast<size_t>(*offset), bytes.size()) != bytes) std::abort();
    // Offsets only grow, so the line breaks before each one are counted once in all.
    for (; counted < static_cast<size_t>(*offset); ++counted) newlines += input[counted] == '\n';
    if (static_cast<uint64_t>(*line) != newlines + 1) std::abort();
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* bytes, size_t size) {
  if (size == 0) return 0;
  static const auto files = std::make_shared<MemoryFileSystem>();
  static const std::string path = "/fuzz/input";
  static const schema::SchemaPtr nested =
      dialects::spark::ReadDdl(
          "id BIGINT NOT NULL, name STRING, amount DECIMAL(10,2), ts TIMESTAMP, d DATE, "
          "tags ARRAY<STRING>, attrs MAP<STRING, INT>, addr STRUCT<city: STRING, zip: INT>")
          ->value;
  static const schema::SchemaPtr flat =
      dialects::spark::ReadDdl("id INT NOT NULL, name STRING, amount DOUBLE, d DATE")->value;
  const uint8_t control = bytes[0];
  const std::string_view input(reinterpret_cast<const char*>(bytes) + 1, size - 1);
  if (!files->WriteFile(path, input).has_value()) std::abort();

  data::ValidateRunOptions o;
  o.fs = files;
  o.mode = (control & 3) == 0   ? data::ParseMode::kDropMalformed
           : (control & 3) == 1 ? data::ParseMode::kFailFast
                                : data::ParseMode::kPermissive;
  const bool csv = (control & 4) != 0;
  o.format =
      csv ? data::RecordFormat::kCsv
          : ((control & 8) != 0 ? data::RecordFormat::kJson : data::RecordFormat::kJsonLines);
  o.csv.header = (control & 16) == 0;
  o.csv.reader.multi_line = (control & 32) != 0;
  o.block_bytes = 4096;
  const schema::SchemaPtr& schema = csv ? flat : nested;
  const std::string rescued_column =
      o.mode == data::ParseMode::kPermissive ? o.rescued_column : std::string();
  std::string first_out;
  std::string first_quarantine;
  for (unsigned threads : {1u, 2u}) {
    o.threads = threads;
    Sink out;
    Sink quarantine;
    auto report = data::ValidateFiles({path}, schema, o, out, quarantine);
    if (!report.has_value()) {
      // The one input error a file can cause: a CSV header that is not UTF-8.
      if (csv && report.error().message().find("header is not valid UTF-8") != std::string::npos) {
        return 0;
      }
      std::abort();
    }
    if (!report->invariant_holds()) std::abort();
    if (report->malformed > report->quarantined) std::abort();
    const std::vector<JsonValue> out_lines = JsonLines(out.text);
    const std::vector<JsonValue> quarantine_lines = JsonLines(quarantine.text);
    if (out_lines.size() != report->valid) std::abort();
    if (quarantine_lines.size() != report->quarantined) std::abort();
    if (report->rescued > 0 && o.mode != data::ParseMode::kPermissive) std::abort();
    if (o.mode == data::ParseMode::kFailFast) {
      // The run stops on the first bad record, which is the only one quarantined.
      if (report->quarantined > 1 || report->stopped.has_value() != (report->quarantined == 1)) {
        std::abort();
      }
    } else if (report->stopped.has_value()) {
      std::abort();
    }
    if (threads == 1) {
      const bool prior_possible =
          !rescued_column.empty() && (input.find(rescued_column) != std::string_view::npos ||
                                      input.find('\\') != std::string_view::npos);
      CheckOutput(out_lines, *schema, rescued_column, report->rescued, path, prior_possible);
      CheckQuarantine(quarantine_lines, path, input);
      first_out = out.text;
      first_quarantine = quarantine.text;
    } else if (out.text != first_out || quarantine.text != first_quarantine) {
      std::abort();
    }
  }
  return 0;
}
