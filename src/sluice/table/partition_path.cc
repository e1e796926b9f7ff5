#include "sluice/table/partition_path.h"

#include <fmt/format.h>

#include <array>
#include <cstdint>

#include "sluice/base/strings.h"

namespace sluice::table {
namespace {

constexpr char kHexUpper[] = "0123456789ABCDEF";

// Hive's FileUtils.charToEscape (without the extra characters it adds on Windows).
constexpr std::array<bool, 128> MakeHiveEscapes() {
  std::array<bool, 128> e{};
  for (int c = 0; c < 0x20; ++c) e[static_cast<size_t>(c)] = true;
  for (char c : std::string_view("\"#%'*/:=?\\\x7F{[]^")) e[static_cast<unsigned char>(c)] = true;
  return e;
}
constexpr std::array<bool, 128> kHiveEscapes = MakeHiveEscapes();

// The ASCII bytes java.net.URI keeps in a path: unreserved, punct, '/' and '@'.
constexpr std::array<bool, 128> MakeUriPathBytes() {
  std::array<bool, 128> k{};
  for (int c = '0'; c <= '9'; ++c) k[static_cast<size_t>(c)] = true;
  for (int c = 'a'; c <= 'z'; ++c) k[static_cast<size_t>(c)] = true;
  for (int c = 'A'; c <= 'Z'; ++c) k[static_cast<size_t>(c)] = true;
  for (char c : std::string_view("-_.!~*'(),;:$&+=/@")) k[static_cast<unsigned char>(c)] = true;
  return k;
}
constexpr std::array<bool, 128> kUriPathBytes = MakeUriPathBytes();

int HexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

void AppendEscaped(std::string& out, unsigned char c) {
  out.push_back('%');
  out.push_back(kHexUpper[c >> 4]);
  out.push_back(kHexUpper[c & 0xF]);
}

// The code point of the UTF-8 sequence at s[i] and its length, or length 0 when invalid.
std::pair<uint32_t, size_t> DecodeUtf8(std::string_view s, size_t i) {
  const auto b0 = static_cast<unsigned char>(s[i]);
  size_t len = b0 >= 0xF0 ? 4 : b0 >= 0xE0 ? 3 : b0 >= 0xC0 ? 2 : 0;
  if (len == 0 || i + len > s.size() || !IsValidUtf8(s.substr(i, len))) return {0, 0};
  uint32_t cp = b0 & (0x7F >> len);
  for (size_t k = 1; k < len; ++k) cp = (cp << 6) | (static_cast<unsigned char>(s[i + k]) & 0x3F);
  return {cp, len};
}

// java.net.URI quotes these non-ASCII characters too: ISO controls and Unicode spaces
// (Character.isISOControl, Character.isSpaceChar).
bool JavaQuotesCodePoint(uint32_t cp) {
  return (cp >= 0x80 && cp <= 0x9F) || cp == 0xA0 || cp == 0x1680 ||
         (cp >= 0x2000 && cp <= 0x200A) || cp == 0x2028 || cp == 0x2029 || cp == 0x202F ||
         cp == 0x205F || cp == 0x3000;
}

}  // namespace

std::string EscapePartitionPathName(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (char ch : text) {
    const auto c = static_cast<unsigned char>(ch);
    if (c < 128 && kHiveEscapes[c]) {
      AppendEscaped(out, c);
    } else {
      out.push_back(ch);
    }
  }
  return out;
}

std::string UnescapePartitionPathName(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '%' && i + 2 < text.size()) {
      const int hi = HexValue(text[i + 1]);
      const int lo = HexValue(text[i + 2]);
      if (hi >= 0 && lo >= 0) {
        out.push_back(static_cast<char>(hi * 16 + lo));
        i += 2;
        continue;
      }
    }
    out.push_back(text[i]);
  }
  return out;
}

std::string PartitionDirectoryName(std::string_view column, std::optional<std::string_view> value) {
  std::string out = EscapePartitionPathName(column);
  out.push_back('=');
  if (!value || value->empty()) {
    out += kHiveDefaultPartition;
  } else {
    out += EscapePartitionPathName(*value);
  }
  return out;
}

Result<std::string> PartitionDirectory(const std::vector<std::string>& columns,
                                       const JsonValue& partition_values) {
  if (!columns.empty() && !partition_values.is_object()) {
    return InvalidArgument(
        fmt::format("partitionValues at byte {}: expected an object", partition_values.offset()));
  }
  std::string dir;
  for (const std::string& column : columns) {
    const JsonValue* v = partition_values.Find(column);
    if (v == nullptr) {
      return InvalidArgument(
          fmt::format("partitionValues at byte {}: partition column `{}` is "
                      "missing",
                      partition_values.offset(), EscapeForMessage(column)));
    }
    if (!v->is_null() && !v->is_string()) {
      return InvalidArgument(fmt::format("partitionValues.{} at byte {}: expected a string or null",
                                         EscapeForMessage(column), v->offset()));
    }
    dir += PartitionDirectoryName(
        column, v->is_null() ? std::nullopt : std::optional<std::string_view>(v->as_string()));
    dir.push_back('/');
  }
  return dir;
}

Result<std::vector<std::pair<std::string, std::optional<std::string>>>> ParsePartitionDirectory(
    std::string_view directory) {
  std::vector<std::pair<std::string, std::optional<std::string>>> out;
  if (EndsWith(directory, "/")) directory.remove_suffix(1);
  if (directory.empty()) return out;
  for (std::string_view segment : SplitString(directory, '/')) {
    const size_t eq = segment.find('=');
    if (eq == std::string_view::npos || eq == 0) {
      return InvalidArgument(fmt::format("partition directory `{}`: `{}` is no `column=value`",
                                         EscapeForMessage(directory), EscapeForMessage(segment)));
    }
    const std::string_view value = segment.substr(eq + 1);
    std::optional<std::string> parsed;
    if (value != kHiveDefaultPartition) parsed = UnescapePartitionPathName(value);
    out.emplace_back(UnescapePartitionPathName(segment.substr(0, eq)), std::move(parsed));
  }
  return out;
}

std::string EncodeAddPath(std::string_view relative_path) {
  std::string out;
  out.reserve(relative_path.size() + 16);
  const size_t first_slash = relative_path.find('/');
  for (size_t i = 0; i < relative_path.size();) {
    const auto c = static_cast<unsigned char>(relative_path[i]);
    if (c < 128) {
      // A ':' before the first '/' would make the path read as a URI with a scheme.
      const bool keep = kUriPathBytes[c] && !(c == ':' && i < first_slash);
      if (keep) {
        out.push_back(static_cast<char>(c));
      } else {
        AppendEscaped(out, c);
      }
      ++i;
      continue;
    }
    const auto [cp, len] = DecodeUtf8(relative_path, i);
    if (len == 0 || JavaQuotesCodePoint(cp)) {
      // Quoted as its UTF-8 bytes (or the one invalid byte).
      const size_t n = len == 0 ? 1 : len;
      for (size_t k = 0; k < n; ++k) {
        AppendEscaped(out, static_cast<unsigned char>(relative_path[i + k]));
      }
      i += n;
    } else {
      out.append(relative_path.substr(i, len));
      i += len;
    }
  }
  return out;
}

std::optional<size_t> FindUnencodedCharacter(std::string_view path) {
  for (size_t i = 0; i < path.size();) {
    const auto c = static_cast<unsigned char>(path[i]);
    if (c < 128) {
      if (!kUriPathBytes[c] && c != '%') return i;
      ++i;
      continue;
    }
    const auto [cp, len] = DecodeUtf8(path, i);
    if (len == 0 || JavaQuotesCodePoint(cp)) return i;
    i += len;
  }
  return std::nullopt;
}

Result<std::string> DecodeAddPath(std::string_view path) {
  std::string out;
  out.reserve(path.size());
  for (size_t i = 0; i < path.size(); ++i) {
    if (path[i] != '%') {
      out.push_back(path[i]);
      continue;
    }
    const int hi = i + 1 < path.size() ? HexValue(path[i + 1]) : -1;
    const int lo = i + 2 < path.size() ? HexValue(path[i + 2]) : -1;
    if (hi < 0 || lo < 0) {
      return InvalidArgument(fmt::format("path `{}` at offset {}: '%' needs two hex digits",
                                         EscapeForMessage(path), i));
    }
    if (hi == 0 && lo == 0) {
      return InvalidArgument(
          fmt::format("path `{}` at offset {}: an encoded NUL byte", EscapeForMessage(path), i));
    }
    out.push_back(static_cast<char>(hi * 16 + lo));
    i += 2;
  }
  return out;
}

}  // namespace sluice::table
