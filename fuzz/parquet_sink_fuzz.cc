// Fuzz the Parquet record sink on JSON lines: the first byte picks the schema (flat with every
// leaf conversion, nested structs, arrays and maps, a null-typed field), the rest is split into
// lines appended one by one. The sink reads each line with a scanner of its own, so another
// parser judges what it accepts: a line the sink takes must be one JSON object by the base
// module's parser (base/json.h, which keeps numbers as text, as the sink may). After
// the first error every call fails; a file closed without errors holds every line taken, and
// the reader reads that many rows back.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <string_view>

#include "sluice/base/file_system.h"
#include "sluice/base/json.h"
#include "sluice/data/parquet_sink.h"
#include "sluice/dialects/spark/spark.h"
#include "sluice/parquet/file_reader.h"

namespace {

using namespace sluice;

void Check(bool ok) {
  if (!ok) std::abort();
}

const char* kSchemas[] = {
    "id BIGINT NOT NULL, name STRING, amount DECIMAL(10,2), big DECIMAL(30,4), ts TIMESTAMP, "
    "d DATE, ok BOOLEAN, f FLOAT, g DOUBLE, t TINYINT, b BINARY, n TIMESTAMP_NTZ",
    "a STRUCT<b: ARRAY<STRUCT<c: INT NOT NULL, d: STRING>>, m: MAP<INT, DOUBLE>>, s STRING",
    "m MAP<STRING, ARRAY<BIGINT>> NOT NULL, n MAP<DATE, STRUCT<v: DECIMAL(38,10)>>, z VOID",
    "`we\"ird` STRING, `a\\b` INT, x ARRAY<ARRAY<BOOLEAN>>",
};

std::shared_ptr<const data::ParquetRecordPlan> MakePlan(int schema) {
  auto s = dialects::spark::ReadDdl(kSchemas[schema]);
  if (!s.has_value()) std::abort();
  data::ParquetPlanOptions options;
  if (schema == 0) options.rescued_column = "_rescued_data";
  auto plan = data::ParquetRecordPlan::Compile(s->value, options);
  if (!plan.has_value()) std::abort();
  return *plan;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* bytes, size_t size) {
  if (size == 0) return 0;
  static std::shared_ptr<const data::ParquetRecordPlan> plans[4] = {MakePlan(0), MakePlan(1),
                                                                    MakePlan(2), MakePlan(3)};
  const auto& plan = plans[bytes[0] & 3];
  auto fs = std::make_shared<MemoryFileSystem>();
  auto file = fs->OpenWritable("f.parquet", {});
  Check(file.has_value());
  auto sink = data::ParquetRecordSink::Open(plan, std::move(*file));
  Check(sink.has_value());
  std::string_view rest(reinterpret_cast<const char*>(bytes) + 1, size - 1);
  int64_t taken = 0;
  bool failed = false;
  while (!rest.empty()) {
    const size_t nl = rest.find('\n');
    const std::string_view line = rest.substr(0, nl);
    rest.remove_prefix(nl == std::string_view::npos ? rest.size() : nl + 1);
    if (line.empty()) continue;
    // The line alone in memory of its own, so that reading past it is caught by ASan.
    std::unique_ptr<char[]> own(new char[line.size()]);
    std::memcpy(own.get(), line.data(), line.size());
    Status s = (*sink)->Append(std::string_view(own.get(), line.size()));
    if (!s.has_value()) {
      Check(s.error().message().find("line ") != std::string::npos);
      failed = true;
      break;
    }
    ++taken;
    // A map may hold a key twice (each is an entry, as Parquet readers read them back), so
    // the parser is asked to allow it; a struct's key twice the sink refuses itself.
    JsonParseOptions maps_may_repeat;
    maps_may_repeat.allow_duplicate_keys = true;
    auto doc = ParseJson(line, maps_may_repeat);
    Check(doc.has_value() && doc->is_object());
  }
  if (failed) {
    Check(!(*sink)->Append("{}").has_value());
    Check(!(*sink)->Close().has_value());
    Check(!*fs->Exists("f.parquet"));
    return 0;
  }
  Check((*sink)->Close().has_value());
  Check((*sink)->num_rows() == taken);
  auto reader = parquet::FileReader::Open(fs, "f.parquet");
  Check(reader.has_value());
  int64_t rows = 0;
  Check((*reader)
            ->ReadAllRows({},
                          [&](std::string_view) -> Status {
                            ++rows;
                            return Ok();
                          })
            .has_value());
  Check(rows == taken);
  return 0;
}
