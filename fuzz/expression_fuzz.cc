// Fuzz Spark SQL constraint expressions: parse, bind to one of four schemas (the first byte
// picks) and evaluate on fixed rows. An expression that parses must print (ToSql) to text that
// parses to the same text again and, when it binds, evaluates the same on every row.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "sluice/base/json.h"
#include "sluice/dialects/spark/spark.h"
#include "sluice/table/expression.h"

namespace {

constexpr std::string_view kSchemas[] = {
    "a INT, b BIGINT, s STRING, d DOUBLE",
    "amount DECIMAL(10,2), status STRING, dt DATE, ts TIMESTAMP, ok BOOLEAN",
    "n STRUCT<x: INT, y: STRUCT<z: STRING>>, arr ARRAY<INT>, m MAP<STRING, DECIMAL(38,10)>",
    "`weird name` SMALLINT, t TINYINT, f FLOAT, bin BINARY, ntz TIMESTAMP_NTZ",
};

constexpr std::string_view kRows[] = {
    "{}",
    R"({"a": -2147483648, "b": 9223372036854775807, "s": "10", "d": "NaN"})",
    R"({"amount": "99999999.99", "status": "paid", "dt": "2024-02-29", "ts": "2024-01-01T00:00:00Z",
        "ok": true})",
    R"({"n": {"x": 3, "y": {"z": "\u00e9"}}, "arr": [1, null, 3], "m": {"k": "1.5"}})",
    R"({"weird name": 7, "t": -128, "f": 1e38, "bin": "AAE=", "ntz": "2024-01-01 10:00:00"})",
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const std::string_view text(reinterpret_cast<const char*>(data) + 1, size - 1);
  auto parsed = sluice::table::ParseExpression(text);
  if (!parsed.has_value()) return 0;
  const std::string sql = sluice::table::ToSql(**parsed);
  auto again = sluice::table::ParseExpression(sql);
  if (!again.has_value() || sluice::table::ToSql(**again) != sql) std::abort();

  auto schema = sluice::dialects::spark::ReadDdl(kSchemas[data[0] % std::size(kSchemas)]);
  if (!schema.has_value()) std::abort();
  auto bound = sluice::table::Bind(**parsed, *schema->value);
  auto bound_again = sluice::table::Bind(**again, *schema->value);
  if (bound.has_value() != bound_again.has_value()) std::abort();
  if (!bound.has_value()) return 0;
  (void)bound->ToSql();
  for (std::string_view row_text : kRows) {
    auto row = sluice::ParseJson(row_text);
    if (!row.has_value()) std::abort();
    auto r1 = bound->Evaluate(*row);
    auto r2 = bound_again->Evaluate(*row);
    if (r1.has_value() != r2.has_value()) std::abort();
    if (r1.has_value() && *r1 != *r2) std::abort();
  }
  return 0;
}
