// Fuzz the field path grammar: whatever parses must print back to the same path.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "sluice/schema/field_path.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  auto p = sluice::schema::FieldPath::Parse(text);
  if (!p.has_value()) return 0;
  auto again = sluice::schema::FieldPath::Parse(p->ToString());
  if (!again.has_value() || !(*again == *p)) std::abort();
  return 0;
}
