// Fuzz the Data Contract Specification reader and the breaking-change comparison: a contract
// that reads compares with itself to no changes, and every model's schema writes as ODCS.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "sluice/dialects/contract/contract.h"
#include "sluice/dialects/contract/dcs.h"
#include "sluice/evolution/contract_check.h"

namespace contract = sluice::dialects::contract;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  (void)contract::LooksLikeDcs(text);
  auto parsed = contract::ParseDcs(text);
  if (!parsed.has_value()) return 0;
  if (!sluice::evolution::BreakingChanges(*parsed, *parsed).changes.empty()) std::abort();
  for (const contract::ContractObject& object : parsed->objects) {
    (void)sluice::evolution::CheckContract(*object.schema, *parsed, nullptr, {});
    if (!contract::WriteOdcs(*object.schema).has_value()) std::abort();
  }
  return 0;
}
