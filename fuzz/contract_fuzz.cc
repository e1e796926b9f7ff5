// Fuzz the seed contract reader. Whatever it accepts must write back to YAML that reads again
// to the same schema and policy (unless the writer reported a lossy note).
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "sluice/dialects/contract/contract.h"

namespace contract = sluice::dialects::contract;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  (void)contract::LooksLikeSeedContract(text);
  auto parsed = contract::ParseSeedContract(text);
  if (!parsed.has_value()) return 0;
  const contract::ContractObject& object = parsed->objects.front();
  std::string version = parsed->version.empty() ? "1.0" : parsed->version;
  auto written = contract::WriteSeedContract(*object.schema, parsed->policy, version);
  if (!written.has_value()) std::abort();
  auto again = contract::ParseSeedContract(written->value);
  if (!again.has_value()) std::abort();
  if (!(again->policy == parsed->policy) || again->version != version) std::abort();
  if (written->notes.empty() && !again->objects.front().schema->Equals(*object.schema)) {
    std::abort();
  }
  return 0;
}
