#include "sluice/alert/baseline.h"

#include <pwd.h>
#include <unistd.h>

#include <cctype>
#include <cstdlib>

#include "sluice/base/json.h"
#include "sluice/base/json_writer.h"
#include "sluice/base/strings.h"
#include "sluice/dialects/spark/spark.h"
#include "sluice/table/time_travel.h"

namespace sluice::alert {

namespace {

constexpr int kBaselineVersion = 1;

bool IsBareMd5(std::string_view text) {
  if (text.size() != 32) return false;
  for (char c : text) {
    if (!std::isxdigit(static_cast<unsigned char>(c))) return false;
  }
  return true;
}

std::string StringMember(const JsonValue& object, std::string_view key) {
  const JsonValue* v = object.Find(key);
  return v != nullptr && v->is_string() ? v->as_string() : std::string();
}

evolution::DriftFingerprints FingerprintsFrom(const JsonValue* object) {
  evolution::DriftFingerprints out;
  if (object == nullptr || !object->is_object()) return out;
  out.sha256 = StringMember(*object, "sha256");
  out.spark_md5 = StringMember(*object, "sparkMd5");
  return out;
}

int64_t TimeMember(const JsonValue& object, std::string_view key) {
  std::string text = StringMember(object, key);
  if (text.empty()) return 0;
  auto ms = table::ParseTimestampMs(text);
  return ms.has_value() ? *ms : 0;
}

Result<Baseline> ParseSluiceBaseline(std::string_view text) {
  SLUICE_ASSIGN_OR_RETURN(JsonValue doc, ParseJson(text));
  if (!doc.is_object()) return ParseError("a baseline is a JSON object or a bare MD5 hash");
  const JsonValue* version = doc.Find("sluiceBaseline");
  if (version == nullptr || version->as_int64() != kBaselineVersion) {
    return ParseError("not a sluice baseline (\"sluiceBaseline\": 1 missing)");
  }
  Baseline b;
  b.kind = "file";
  b.source = StringMember(doc, "source");
  b.recorded_by = StringMember(doc, "recordedBy");
  b.reason = StringMember(doc, "reason");
  b.recorded_ms = TimeMember(doc, "recordedAt");
  b.fingerprints = FingerprintsFrom(doc.Find("fingerprints"));
  const JsonValue* schema = doc.Find("schema");
  if (schema == nullptr || !schema->is_object()) {
    return ParseError("the baseline has no \"schema\" (Spark StructType JSON)");
  }
  JsonWriter w;
  w.Value(*schema);
  auto read = dialects::spark::ReadJson(w.str());
  if (!read.has_value()) return Fail(read.error().WithContext("schema"));
  b.schema = std::move(read->value);
  if (b.fingerprints.sha256.empty()) b.fingerprints = evolution::FingerprintsOf(*b.schema);
  if (const JsonValue* prev = doc.Find("previous"); prev != nullptr && prev->is_object()) {
    b.previous = FingerprintsFrom(prev->Find("fingerprints"));
    b.previous_recorded_ms = TimeMember(*prev, "recordedAt");
  }
  return b;
}

void WriteFingerprints(JsonWriter& w, const evolution::DriftFingerprints& f) {
  w.BeginObject();
  w.Key("sha256").String(f.sha256);
  w.Key("sparkMd5").String(f.spark_md5);
  w.EndObject();
}

}  // namespace

Result<std::optional<Baseline>> ReadBaselineFile(FileSystem& fs, const std::string& path) {
  auto text = fs.ReadFile(path, size_t{64} << 20);
  if (!text.has_value()) {
    if (text.error().code() == ErrorCode::kNotFound) return std::optional<Baseline>();
    return Fail(text.error().WithContext(path));
  }
  std::string_view trimmed = TrimWhitespace(*text);
  if (IsBareMd5(trimmed)) {
    // The seed's `check_schema_changes` file: the hash of PySpark's schema.json(), nothing else.
    Baseline b;
    b.kind = "md5";
    b.fingerprints.spark_md5 = AsciiLower(trimmed);
    return std::optional<Baseline>(std::move(b));
  }
  auto parsed = ParseSluiceBaseline(trimmed);
  if (!parsed.has_value()) {
    return Fail(parsed.error().WithContext(path + ": neither a sluice baseline nor a bare MD5"));
  }
  return std::optional<Baseline>(std::move(*parsed));
}

std::string BaselineJson(const Baseline& baseline) {
  JsonWriter w(JsonFormat{.indent = 2});
  w.BeginObject();
  w.Key("sluiceBaseline").Int(kBaselineVersion);
  w.Key("source").String(baseline.source);
  w.Key("recordedAt").String(table::FormatTimestampMs(baseline.recorded_ms));
  w.Key("recordedBy").String(baseline.recorded_by);
  w.Key("reason").String(baseline.reason);
  w.Key("fingerprints");
  WriteFingerprints(w, baseline.fingerprints);
  if (baseline.previous.has_value()) {
    w.Key("previous").BeginObject();
    w.Key("fingerprints");
    WriteFingerprints(w, *baseline.previous);
    if (baseline.previous_recorded_ms > 0) {
      w.Key("recordedAt").String(table::FormatTimestampMs(baseline.previous_recorded_ms));
    }
    w.EndObject();
  }
  w.Key("schema").Raw(dialects::spark::WriteJson(*baseline.schema).value);
  w.EndObject();
  std::string out = w.Take();
  out += '\n';
  return out;
}

Status WriteBaselineFile(FileSystem& fs, const std::string& path, const Baseline& baseline) {
  if (baseline.schema == nullptr) return InvalidArgument("a baseline needs a schema");
  size_t slash = path.rfind('/');
  if (slash != std::string::npos && slash > 0) {
    if (Status st = fs.CreateDirs(path.substr(0, slash)); !st.has_value()) {
      return Fail(st.error().WithContext(path));
    }
  }
  if (Status st = fs.WriteFile(path, BaselineJson(baseline)); !st.has_value()) {
    return Fail(st.error().WithContext(path));
  }
  return Ok();
}

std::string CurrentUser() {
  if (const char* u = std::getenv("SLUICE_USER"); u != nullptr && *u != '\0') return u;
  if (passwd* pw = ::getpwuid(::geteuid()); pw != nullptr && pw->pw_name != nullptr) {
    return pw->pw_name;
  }
  if (const char* u = std::getenv("USER"); u != nullptr && *u != '\0') return u;
  return "uid " + std::to_string(::geteuid());
}

}  // namespace sluice::alert
