// Fuzz the record validator on one JSON record: the first byte picks the schema (flat, nested,
// maps and arrays, a rescued column in the schema) and whether there is a rescued column; the
// rest is the record. A valid or rescued record must append exactly one line of JSON that
// parses, with the rescued column a JSON object's text; a bad or malformed one appends nothing.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <set>
#include <string>
#include <string_view>

#include "sluice/base/json.h"
#include "sluice/data/validator.h"
#include "sluice/dialects/spark/spark.h"

namespace {

using namespace sluice;

const char* kSchemas[] = {
    "id BIGINT NOT NULL, name STRING, amount DECIMAL(10,2), ts TIMESTAMP, d DATE, ok BOOLEAN",
    "a STRUCT<b: ARRAY<STRUCT<c: INT NOT NULL, d: VARCHAR(3)>>, m: MAP<INT, DOUBLE>>, s STRING",
    "x FLOAT, y DOUBLE, z TINYINT, t TIMESTAMP_NTZ, b BINARY, _rescued_data STRING",
    "m MAP<STRING, ARRAY<BIGINT>> NOT NULL, n MAP<DATE, STRUCT<v: DECIMAL(38,10)>>",
};

std::shared_ptr<const data::ValidationPlan> MakePlan(int schema, bool rescue) {
  auto s = dialects::spark::ReadDdl(kSchemas[schema]);
  if (!s.has_value()) std::abort();
  data::ValidatorOptions o;
  if (!rescue) o.rescued_column.clear();
  o.max_depth = 64;
  auto plan = data::ValidationPlan::Compile(s->value, o);
  if (!plan.has_value()) std::abort();
  return *plan;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* bytes, size_t size) {
  if (size == 0) return 0;
  static std::shared_ptr<const data::ValidationPlan> plans[8] = {
      MakePlan(0, true),  MakePlan(1, true),  MakePlan(2, true),  MakePlan(3, true),
      MakePlan(0, false), MakePlan(1, false), MakePlan(2, false), MakePlan(3, false)};
  const int pick = bytes[0] & 7;
  data::RecordValidator validator(plans[pick]);
  std::string buffer(reinterpret_cast<const char*>(bytes) + 1, size - 1);
  const size_t n = buffer.size();
  buffer.append(64, '\0');
  std::string out = "x\n";
  const data::RecordResult& r = validator.CheckJson(std::string_view(buffer.data(), n), "f", out);
  const std::string appended = out.substr(2);
  if (out.substr(0, 2) != "x\n") std::abort();
  switch (r.status) {
    case data::RecordStatus::kBad:
    case data::RecordStatus::kMalformed:
      if (!appended.empty()) std::abort();
      if (r.violations.empty()) std::abort();
      return 0;
    case data::RecordStatus::kValid:
    case data::RecordStatus::kRescued:
      break;
  }
  if (appended.empty() || appended.back() != '\n') std::abort();
  if (appended.find('\n') != appended.size() - 1) std::abort();
  auto parsed = ParseJson(std::string_view(appended).substr(0, appended.size() - 1));
  if (!parsed.has_value() || !parsed->is_object()) std::abort();
  if (pick < 4) {
    const JsonValue* rescued = parsed->Find("_rescued_data");
    if (rescued == nullptr) std::abort();
    if (r.status == data::RecordStatus::kRescued) {
      if (!rescued->is_string()) std::abort();
      // Rescued values are the record's own text, which may repeat keys inside; the rescued
      // object's own member names must be unique.
      JsonParseOptions lenient;
      lenient.allow_duplicate_keys = true;
      auto inner = ParseJson(rescued->as_string(), lenient);
      if (!inner.has_value() || !inner->is_object()) std::abort();
      std::set<std::string> names;
      for (const JsonMember& m : inner->members()) {
        if (!names.insert(m.key).second) std::abort();
      }
    }
  } else if (r.status == data::RecordStatus::kRescued) {
    std::abort();  // without a rescued column nothing can be rescued
  }
  return 0;
}
