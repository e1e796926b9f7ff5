// Fuzz the Spark DDL reader; a schema that reads must survive toDDL and read back equal in
// shape (names, types, nullability).
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "sluice/dialects/spark/spark.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  (void)sluice::dialects::spark::ParseDataType(text);
  auto r = sluice::dialects::spark::ReadDdl(text);
  if (!r.has_value()) return 0;
  // An empty schema writes an empty DDL string, which no DDL parser reads (WriteDdl notes it).
  if (r->value->fields().empty()) return 0;
  auto again = sluice::dialects::spark::ReadDdl(sluice::dialects::spark::WriteDdl(*r->value).value);
  if (!again.has_value()) std::abort();
  if (!again->value->struct_type()->Equals(*r->value->struct_type(), false)) {
    // DDL cannot say containsNull=false; everything else must survive.
    bool has_not_null_elements = false;
    sluice::schema::VisitFields(*r->value, [&](const auto&, const auto& f) {
      if ((f.type()->is_array() && !f.type()->contains_null()) ||
          (f.type()->is_map() && !f.type()->value_contains_null())) {
        has_not_null_elements = true;
      }
    });
    if (!has_not_null_elements) std::abort();
  }
  return 0;
}
