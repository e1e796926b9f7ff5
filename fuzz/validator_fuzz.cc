// Fuzz the record validator on one JSON record: the first byte picks the schema (flat, nested,
// maps and arrays, a rescued column in the schema) and whether there is a rescued column; the
// rest is the record. A valid or rescued record must append exactly one line of JSON that
// parses, with the rescued column a JSON object's text; a bad or malformed one appends nothing.
// Checked again with a tape (leaf_tape.h), the record gives the same verdict and line, and the
// Parquet rows made from its tape are the rows made from its line (or both fail).
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <set>
#include <string>
#include <string_view>

#include "sluice/base/json.h"
#include "sluice/base/string_sink_testing.h"
#include "sluice/data/parquet_sink.h"
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

std::shared_ptr<const data::ParquetRecordPlan> MakeWriter(int schema, bool rescue) {
  auto s = dialects::spark::ReadDdl(kSchemas[schema]);
  if (!s.has_value()) std::abort();
  data::ParquetPlanOptions o;
  if (rescue) o.rescued_column = "_rescued_data";
  auto plan = data::ParquetRecordPlan::Compile(s->value, o);
  if (!plan.has_value()) std::abort();
  return *plan;
}

std::string FileOf(const std::shared_ptr<const data::ParquetRecordPlan>& plan,
                   const data::ParquetFragment& fragment) {
  sluice::testing::StringSink out;
  auto sink = data::ParquetRecordSink::Open(plan, out);
  if (!sink.has_value() || !(*sink)->AppendFragment(fragment).has_value() ||
      !(*sink)->Close().has_value()) {
    std::abort();
  }
  return out.text;
}

// The record again with a tape: the same verdict and line, and the same Parquet rows.
void CheckTaped(int pick, const std::shared_ptr<const data::ValidationPlan>& plan,
                std::string_view record, const data::RecordResult& plain, const std::string& line) {
  static std::shared_ptr<const data::ParquetRecordPlan> writers[8] = {
      MakeWriter(0, true),  MakeWriter(1, true),  MakeWriter(2, true),  MakeWriter(3, true),
      MakeWriter(0, false), MakeWriter(1, false), MakeWriter(2, false), MakeWriter(3, false)};
  const auto& writer = writers[pick];
  data::LeafTape tape;
  tape.map = writer->TapeMapFor(*plan);
  if (tape.map == nullptr) std::abort();
  data::RecordValidator validator(plan);
  std::string out;
  const data::RecordResult& r = validator.CheckJson(record, "f", out, &tape);
  if (r.status != plain.status || out != line) std::abort();
  const bool kept =
      r.status == data::RecordStatus::kValid || r.status == data::RecordStatus::kRescued;
  if (tape.records.size() != (kept ? 1u : 0u)) std::abort();
  if (!kept) return;
  data::ParquetFragment by_tape(writer);
  data::ParquetFragment by_line(writer);
  const Status a = by_tape.AppendLines(out, tape);
  const Status b = by_line.AppendLines(out);
  if (a.has_value() != b.has_value()) std::abort();
  if (a.has_value() && FileOf(writer, by_tape) != FileOf(writer, by_line)) std::abort();
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
  CheckTaped(pick, plans[pick], std::string_view(buffer.data(), n), r, appended);
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
