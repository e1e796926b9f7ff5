// Fuzz the Avro compatibility checker. The input is two schema texts separated by the first NUL
// byte (without one, the text is checked against itself). When both parse, check both directions
// and every schema against itself, and abort on a broken invariant: the verdict matches the list,
// the count covers the list, an error is kInvalidArgument (Java's multiple-match exception or a
// bound of the options), and a schema is always compatible with itself. Recursive and deeply
// nested pairs must finish: the memo and the options' bounds see to that, libFuzzer's timeout
// catches a hang.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "sluice/dialects/avro/avro_compatibility.h"
#include "sluice/dialects/avro/avro_schema.h"

namespace avro = sluice::dialects::avro;

namespace {

void CheckOne(const avro::AvroSchema& reader, const avro::AvroSchema& writer, bool self) {
  avro::AvroCompatibilityOptions options;
  options.max_incompatibilities = 64;
  auto result = avro::CheckCompatibility(reader, writer, options);
  if (!result.has_value()) {
    if (result.error().code() != sluice::ErrorCode::kInvalidArgument) std::abort();
    return;
  }
  const avro::AvroCompatibility& c = *result;
  if (c.compatible != c.incompatibilities.empty()) std::abort();
  if (c.incompatibility_count < c.incompatibilities.size()) std::abort();
  if (!c.truncated() && c.incompatibility_count != c.incompatibilities.size()) std::abort();
  if (c.incompatibilities.size() > options.max_incompatibilities) std::abort();
  for (const avro::AvroIncompatibility& i : c.incompatibilities) {
    if (i.location.empty() || i.location[0] != '/' || i.reader == nullptr || i.writer == nullptr ||
        i.hint.empty()) {
      std::abort();
    }
  }
  if (self && !c.compatible) std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view input(reinterpret_cast<const char*>(data), size);
  size_t nul = input.find('\0');
  std::string_view first = input.substr(0, nul);
  std::string_view second = nul == std::string_view::npos ? first : input.substr(nul + 1);
  auto a = avro::Parse(first);
  if (!a.has_value()) return 0;
  CheckOne(*a, *a, true);
  auto b = avro::Parse(second);
  if (!b.has_value()) return 0;
  CheckOne(*b, *b, true);
  CheckOne(*a, *b, false);
  CheckOne(*b, *a, false);
  return 0;
}
