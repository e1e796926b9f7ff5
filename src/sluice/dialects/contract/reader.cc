#include <fmt/format.h>

#include <charconv>

#include "sluice/base/strings.h"
#include "sluice/dialects/contract/reader_internal.h"

namespace sluice::dialects::contract::internal {
namespace {

std::string Found(const YamlNode& node) {
  if (node.is_scalar()) return fmt::format("\"{}\"", EscapeForMessage(node.text, 60));
  return std::string(YamlKindName(node.kind));
}

}  // namespace

std::string KeyPath(std::string_view parent, std::string_view key) {
  if (parent.empty()) return std::string(key);
  return fmt::format("{}.{}", parent, key);
}

std::string IndexPath(std::string_view parent, size_t index) {
  return fmt::format("{}[{}]", parent, index);
}

Unexpected<Error> InvalidAt(std::string_view path, const YamlNode& at, std::string_view message) {
  if (path.empty()) return InvalidArgument(fmt::format("{} ({})", message, DescribeNode(at)));
  return InvalidArgument(fmt::format("{}: {} ({})", path, message, DescribeNode(at)));
}

Status ExpectKind(std::string_view path, const YamlNode& node, YamlNode::Kind kind) {
  if (node.kind == kind) return Ok();
  return InvalidAt(path, node,
                   fmt::format("expected {}, found {}", YamlKindName(kind), Found(node)));
}

Result<std::string> ReadString(std::string_view path, const YamlNode& node) {
  if (!node.is_scalar()) {
    return InvalidAt(path, node, fmt::format("expected a string, found {}", Found(node)));
  }
  return node.text;
}

Result<std::optional<std::string>> ReadOptionalString(std::string_view path, const YamlNode& map,
                                                      std::string_view key) {
  const YamlNode* node = map.Find(key);
  if (node == nullptr || node->is_null()) return std::optional<std::string>();
  SLUICE_ASSIGN_OR_RETURN(std::string s, ReadString(KeyPath(path, key), *node));
  return std::optional<std::string>(std::move(s));
}

Result<bool> ReadBool(std::string_view path, const YamlNode& node) {
  bool value = false;
  if (node.is_scalar() && !node.quoted && ParseYamlBool(node.text, &value)) return value;
  return InvalidAt(path, node, fmt::format("expected true or false, found {}", Found(node)));
}

Result<std::optional<bool>> ReadOptionalBool(std::string_view path, const YamlNode& map,
                                             std::string_view key) {
  const YamlNode* node = map.Find(key);
  if (node == nullptr || node->is_null()) return std::optional<bool>();
  SLUICE_ASSIGN_OR_RETURN(bool b, ReadBool(KeyPath(path, key), *node));
  return std::optional<bool>(b);
}

Result<int64_t> ReadInt(std::string_view path, const YamlNode& node) {
  if (node.is_scalar() && !node.quoted) {
    std::string_view s = node.text;
    if (!s.empty() && s[0] == '+') s.remove_prefix(1);
    int64_t v = 0;
    auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
    if (ec == std::errc() && end == s.data() + s.size() && !s.empty()) return v;
  }
  return InvalidAt(path, node, fmt::format("expected an integer, found {}", Found(node)));
}

Result<std::optional<int64_t>> ReadOptionalInt(std::string_view path, const YamlNode& map,
                                               std::string_view key) {
  const YamlNode* node = map.Find(key);
  if (node == nullptr || node->is_null()) return std::optional<int64_t>();
  SLUICE_ASSIGN_OR_RETURN(int64_t v, ReadInt(KeyPath(path, key), *node));
  return std::optional<int64_t>(v);
}

}  // namespace sluice::dialects::contract::internal
