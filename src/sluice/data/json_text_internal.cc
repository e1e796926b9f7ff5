#include "sluice/data/json_text_internal.h"

#include "sluice/base/strings.h"

namespace sluice::data::internal {

void UnescapeJsonString(std::string_view body, std::string& out) {
  out.clear();
  for (size_t i = 0; i < body.size(); ++i) {
    char c = body[i];
    if (c != '\\') {
      out += c;
      continue;
    }
    char e = body[++i];
    switch (e) {
      case 'b':
        out += '\b';
        break;
      case 'f':
        out += '\f';
        break;
      case 'n':
        out += '\n';
        break;
      case 'r':
        out += '\r';
        break;
      case 't':
        out += '\t';
        break;
      case 'u': {
        uint32_t cp = static_cast<uint32_t>(Hex4(body.data() + i + 1));
        i += 4;
        if (cp >= 0xD800 && cp <= 0xDBFF) {
          uint32_t lo = static_cast<uint32_t>(Hex4(body.data() + i + 3));
          i += 6;
          cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
        }
        AppendUtf8(out, cp);
        break;
      }
      default:
        out += e;
        break;  // " \ /
    }
  }
}

}  // namespace sluice::data::internal
