// Fuzz the ODCS reader. Every schema object it accepts must write back to an ODCS document that
// reads again to the same fields (unless the writer reported a lossy note).
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "sluice/dialects/contract/contract.h"

namespace contract = sluice::dialects::contract;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  (void)contract::LooksLikeOdcs(text);
  auto parsed = contract::ParseOdcs(text);
  if (!parsed.has_value()) return 0;
  for (const contract::ContractObject& object : parsed->objects) {
    auto written = contract::WriteOdcs(*object.schema);
    if (!written.has_value()) std::abort();
    auto again = contract::ParseOdcs(written->value);
    if (!again.has_value() || again->objects.size() != 1) std::abort();
    if (written->notes.empty() && !again->objects.front().schema->Equals(*object.schema)) {
      std::abort();
    }
  }
  return 0;
}
