// Fuzz the Confluent-style JSON Schema comparison: the input is two schemas separated by the
// first newline (without one, the schema is compared with itself). Both are parsed, compared
// both ways under both policies, and every difference is described; nothing may crash or hang.
// The pattern engine gets the first line as a pattern and the rest as a subject.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "sluice/dialects/jsonschema/json_schema.h"
#include "sluice/dialects/jsonschema/json_schema_diff.h"

namespace js = sluice::dialects::jsonschema;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  size_t newline = text.find('\n');
  std::string_view first = text.substr(0, newline);
  std::string_view second = newline == std::string_view::npos ? first : text.substr(newline + 1);

  size_t steps = 0;
  (void)js::internal::RegexSearch(first.substr(0, 512), second.substr(0, 512), &steps);

  js::ParseOptions parse;
  parse.default_draft = js::Draft::kDraft7;  // as Confluent reads schemas
  parse.allow_trailing_commas = true;
  auto a = js::Parse(first, parse);
  auto b = js::Parse(second, parse);
  if (!a.has_value() || !b.has_value()) return 0;

  js::CompareOptions options;
  options.max_steps = 200'000;  // keep each input fast; exceeding is a clean error
  options.max_differences = 10'000;
  options.original_metadata["confluent:reserved"] = "a, b";
  options.update_metadata["confluent:reserved"] = "b,c";
  for (js::CompatibilityPolicy policy :
       {js::CompatibilityPolicy::kStrict, js::CompatibilityPolicy::kLenient}) {
    options.policy = policy;
    for (bool forward : {false, true}) {
      auto diffs = forward ? js::Compare(*b, *a, options) : js::Compare(*a, *b, options);
      if (!diffs.has_value()) continue;
      for (const js::Difference& d : *diffs) {
        if (d.json_path.empty()) std::abort();
        if (js::FormatConfluentError(d).empty()) std::abort();
        (void)js::FixHint(d);
      }
      (void)js::IsCompatible(*diffs, policy);
    }
  }
  // A schema never differs from itself.
  auto same = js::Compare(*a, *a, options);
  if (same.has_value() && !same->empty()) {
    for (const js::Difference& d : *same) {
      // Metadata differences do not depend on the schema pair.
      if (d.type != js::DifferenceType::kReservedPropertyRemoved &&
          d.type != js::DifferenceType::kReservedPropertyConflictsWithProperty) {
        std::abort();
      }
    }
  }
  return 0;
}
