// Typed access to a YamlNode with errors that name the key path and the line and column. Shared
// by the seed and ODCS readers; not for other modules.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "sluice/base/result.h"
#include "sluice/dialects/contract/yaml_internal.h"

namespace sluice::dialects::contract::internal {

/// "a.b" or "a[2]": extend a key path.
std::string KeyPath(std::string_view parent, std::string_view key);
std::string IndexPath(std::string_view parent, size_t index);

/// kInvalidArgument "<path>: <message> (line L, column C)".
Unexpected<Error> InvalidAt(std::string_view path, const YamlNode& at, std::string_view message);

/// A scalar's text (quoted or plain); kInvalidArgument for null, lists and mappings.
Result<std::string> ReadString(std::string_view path, const YamlNode& node);
/// ReadString of the member `key` if it is present and not null.
Result<std::optional<std::string>> ReadOptionalString(std::string_view path, const YamlNode& map,
                                                      std::string_view key);
/// A plain boolean scalar (YAML 1.1 spellings); kInvalidArgument otherwise.
Result<bool> ReadBool(std::string_view path, const YamlNode& node);
Result<std::optional<bool>> ReadOptionalBool(std::string_view path, const YamlNode& map,
                                             std::string_view key);
/// A plain integer scalar.
Result<int64_t> ReadInt(std::string_view path, const YamlNode& node);
Result<std::optional<int64_t>> ReadOptionalInt(std::string_view path, const YamlNode& map,
                                               std::string_view key);
/// kInvalidArgument unless `node` has the kind; the message says what was found.
Status ExpectKind(std::string_view path, const YamlNode& node, YamlNode::Kind kind);

}  // namespace sluice::dialects::contract::internal
