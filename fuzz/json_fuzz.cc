// Fuzz the JSON parser and writer: parse arbitrary bytes (strict and lenient); whatever parses
// must serialize and parse again to an equal value.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "sluice/base/json.h"
#include "sluice/base/json_writer.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  for (bool lenient : {false, true}) {
    sluice::JsonParseOptions opt;
    opt.allow_trailing_commas = lenient;
    opt.allow_duplicate_keys = lenient;
    auto v = sluice::ParseJson(text, opt);
    if (!v.has_value()) continue;
    std::string out = sluice::ToJson(*v);
    auto again = sluice::ParseJson(out, opt);
    if (!again.has_value() || !again->Equals(*v)) std::abort();
    sluice::JsonFormat pretty;
    pretty.indent = 2;
    pretty.sort_keys = true;
    pretty.ascii_only = true;
    if (!sluice::ParseJson(sluice::ToJson(*v, pretty), opt).has_value()) std::abort();
  }
  return 0;
}
