#include "sluice/report/render_internal.h"

#include "sluice/base/strings.h"

namespace sluice::report::internal {

std::string GithubData(std::string_view s) {
  std::string out;
  for (char c : s) {
    if (c == '%') {
      out += "%25";
    } else if (c == '\r') {
      out += "%0D";
    } else if (c == '\n') {
      out += "%0A";
    } else {
      out += c;
    }
  }
  return out;
}

std::string GithubProperty(std::string_view s) {
  std::string out;
  for (char c : GithubData(s)) {
    if (c == ':') {
      out += "%3A";
    } else if (c == ',') {
      out += "%2C";
    } else {
      out += c;
    }
  }
  return out;
}

std::string Paint(std::string_view text, Tone tone, bool color) {
  if (!color) return std::string(text);
  std::string_view code = tone == Tone::kBad    ? "\x1b[31m"
                          : tone == Tone::kWarn ? "\x1b[33m"
                                                : "\x1b[32m";
  std::string out(code);
  out += text;
  out += "\x1b[0m";
  return out;
}

std::string ValidUtf8(std::string_view s) {
  std::string out;
  while (true) {
    size_t bad = FindInvalidUtf8(s);
    if (bad == std::string_view::npos) break;
    out.append(s.substr(0, bad));
    out += "\xEF\xBF\xBD";  // U+FFFD
    s.remove_prefix(bad + 1);
  }
  out.append(s);
  return out;
}

JsonWriter ReportWriter() {
  JsonFormat f;
  f.indent = 2;
  return JsonWriter(f);
}

std::string Finish(JsonWriter& w) { return w.Take() + "\n"; }

void OptionalString(JsonWriter& w, const std::optional<std::string>& s) {
  if (s.has_value()) {
    w.String(*s);
  } else {
    w.Null();
  }
}

}  // namespace sluice::report::internal
