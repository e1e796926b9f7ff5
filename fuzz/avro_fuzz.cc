// Fuzz the Avro dialect: parse arbitrary bytes as an Avro schema; on success exercise every
// writer and both conversions, and check the invariants a user relies on (the full JSON form
// parses back to the same canonical form; the model's Avro form parses). An input with NUL bytes
// is also read as referenced schemas (each piece before the last NUL) and the schema after it,
// as a registry's references are: its standalone form must parse alone to the same schema.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

#include "sluice/dialects/avro/avro_convert.h"
#include "sluice/dialects/avro/avro_schema.h"

namespace avro = sluice::dialects::avro;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  if (size_t last = text.rfind('\0'); last != std::string_view::npos) {
    std::vector<std::string_view> refs;
    for (std::string_view rest = text.substr(0, last); !rest.empty() || refs.empty();) {
      size_t nul = rest.find('\0');
      refs.push_back(rest.substr(0, nul));
      if (nul == std::string_view::npos) break;
      rest.remove_prefix(nul + 1);
    }
    auto with_refs = avro::Parse(text.substr(last + 1), refs);
    if (with_refs.has_value()) {
      auto standalone = avro::Parse(avro::WriteJson(*with_refs));
      if (!standalone.has_value() ||
          avro::ParsingCanonicalForm(*standalone) != avro::ParsingCanonicalForm(*with_refs)) {
        std::abort();
      }
    }
  }
  auto parsed = avro::Parse(text);
  if (!parsed.has_value()) return 0;

  std::string pcf = avro::ParsingCanonicalForm(*parsed);
  (void)avro::Crc64Fingerprint(*parsed);
  (void)avro::Sha256Fingerprint(*parsed);
  std::string compact = avro::WriteJson(*parsed);
  (void)avro::WriteJson(*parsed, 2);
  auto again = avro::Parse(compact);
  if (!again.has_value() || avro::ParsingCanonicalForm(*again) != pcf) std::abort();

  auto model = avro::ToModel(*parsed);
  if (!model.has_value()) return 0;
  auto written = avro::WriteSchema(*model->value);
  // WriteSchema checks its own output with Parse; kInvalidArgument (a name Avro does not allow,
  // e.g. from a member struct) is fine, an internal error is a converter bug.
  if (!written.has_value() && written.error().code() == sluice::ErrorCode::kInternal) std::abort();
  if (written.has_value()) {
    auto back = avro::ReadSchema(written->value);
    if (!back.has_value() && back.error().code() == sluice::ErrorCode::kInternal) std::abort();
  }
  return 0;
}
