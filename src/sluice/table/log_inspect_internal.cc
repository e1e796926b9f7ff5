#include "sluice/table/log_inspect_internal.h"

#include <fmt/format.h>

#include <cctype>

#include "sluice/base/json.h"
#include "sluice/table/file_stats.h"
#include "sluice/table/partition_path.h"

namespace sluice::table::internal {
Result<std::optional<int64_t>> StatsNumRecords(std::string_view stats) {
  SLUICE_ASSIGN_OR_RETURN(ParsedStats parsed, ParseStats(stats));
  if (parsed.num_records && *parsed.num_records < 0) {
    return InvalidArgument(
        fmt::format("stats.numRecords is {}, not a non-negative integer", *parsed.num_records));
  }
  return parsed.num_records;
}

std::optional<std::string> UriDecode(std::string_view path) {
  Result<std::string> decoded = DecodeAddPath(path);
  if (!decoded.has_value()) return std::nullopt;
  return std::move(*decoded);
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
  if (std::optional<size_t> at = FindUnencodedCharacter(path)) {
    const auto byte = static_cast<unsigned char>(path[*at]);
    return InvalidArgument(fmt::format(
        "path {} is not URI-encoded (byte {} at offset {} must be written %{:02X})", path,
        byte >= 0x20 && byte < 0x7F ? fmt::format("'{}'", static_cast<char>(byte))
                                    : fmt::format("0x{:02X}", byte),
        *at, byte));
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
