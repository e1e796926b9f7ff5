#include "sluice/table/log_inspect_internal.h"

#include <fmt/format.h>

#include <cctype>

#include "sluice/base/json.h"

namespace sluice::table::internal {
namespace {

int HexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

}  // namespace

Result<std::optional<int64_t>> StatsNumRecords(std::string_view stats) {
  Result<JsonValue> parsed = ParseJson(stats);
  if (!parsed.has_value()) {
    return InvalidArgument(fmt::format("stats is not JSON: {}", parsed.error().message()));
  }
  if (!parsed->is_object()) return InvalidArgument("stats is not a JSON object");
  const JsonValue* n = parsed->Find("numRecords");
  if (n == nullptr || n->is_null()) return std::optional<int64_t>();
  std::optional<int64_t> v = n->is_number() ? n->as_int64() : std::nullopt;
  if (!v || *v < 0) {
    return InvalidArgument(fmt::format("stats.numRecords is {}, not a non-negative integer",
                                       n->is_number() ? n->number_text() : "not a number"));
  }
  return v;
}

std::optional<std::string> UriDecode(std::string_view path) {
  std::string out;
  out.reserve(path.size());
  for (size_t i = 0; i < path.size(); ++i) {
    if (path[i] != '%') {
      out += path[i];
      continue;
    }
    if (i + 2 >= path.size()) return std::nullopt;
    int hi = HexValue(path[i + 1]);
    int lo = HexValue(path[i + 2]);
    if (hi < 0 || lo < 0) return std::nullopt;
    out += static_cast<char>(hi * 16 + lo);
    i += 2;
  }
  return out;
}

Result<std::optional<std::string>> DataFilePath(std::string_view root, std::string_view path) {
  // A scheme (RFC 3986: a letter, then letters, digits, '+', '-', '.', then ':') makes the path
  // a URI; only file: URIs name local files.
  size_t scheme_end = 0;
  if (!path.empty() && std::isalpha(static_cast<unsigned char>(path[0]))) {
    scheme_end =
        path.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789+-.");
    if (scheme_end == std::string_view::npos || path[scheme_end] != ':') scheme_end = 0;
  }
  std::string_view rest = path;
  if (scheme_end > 0) {
    if (path.substr(0, scheme_end) != "file") return std::optional<std::string>();
    rest = path.substr(scheme_end + 1);
    if (rest.starts_with("//")) {  // file://host/path: the host is this machine
      size_t slash = rest.find('/', 2);
      rest = slash == std::string_view::npos ? std::string_view() : rest.substr(slash);
    }
  }
  std::optional<std::string> decoded = UriDecode(rest);
  if (!decoded) {
    return InvalidArgument(
        fmt::format("path {} is not URI-encoded (a '%' without two hex digits)", path));
  }
  if (scheme_end > 0 || decoded->starts_with('/')) return decoded;
  return std::optional<std::string>(fmt::format("{}/{}", root, *decoded));
}

}  // namespace sluice::table::internal
