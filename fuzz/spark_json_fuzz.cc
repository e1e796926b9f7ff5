// Fuzz the Spark StructType JSON reader; a schema that reads must write, read again equal, and
// convert to DDL and back.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "sluice/dialects/spark/spark.h"
#include "sluice/schema/canonical.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  auto r = sluice::dialects::spark::ReadJson(text);
  if (!r.has_value()) return 0;
  auto written = sluice::dialects::spark::WriteJson(*r->value);
  auto again = sluice::dialects::spark::ReadJson(written.value);
  if (!again.has_value() || !again->value->Equals(*r->value)) std::abort();
  (void)sluice::schema::Fingerprint(*r->value);
  (void)sluice::dialects::spark::SparkMd5(*r->value);
  (void)sluice::dialects::spark::ReadDdl(sluice::dialects::spark::WriteDdl(*r->value).value);
  return 0;
}
