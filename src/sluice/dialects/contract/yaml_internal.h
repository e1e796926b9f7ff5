// The contract dialect's YAML adapter: yaml-cpp behind a small, exception-free tree with limits
// against hostile input, plus the scalar quoting the writers share. Not for other modules.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "sluice/base/json.h"
#include "sluice/base/result.h"

namespace sluice::dialects::contract::internal {

/// Bounds on what a YAML document may expand to. Aliases are the only way a document grows
/// beyond its own size, so the budgets are generous multiples of the text length.
struct YamlLimits {
  /// Collections nested deeper than this are rejected (yaml-cpp's own guard trips near 500).
  int max_depth = 300;
  /// Nodes after expanding aliases: max(min_nodes, nodes_per_byte * text size).
  size_t min_nodes = 200'000;
  size_t nodes_per_byte = 4;
  /// Scalar bytes after expanding aliases: max(min_scalar_bytes, 8 * text size).
  size_t min_scalar_bytes = 16u << 20;
};

struct YamlMember;

/// One YAML node. Scalars keep their text as written, so a plain `1.10` stays "1.10" and a
/// column named `no` stays "no"; callers decide how to read them.
struct YamlNode {
  enum class Kind : uint8_t { kNull, kScalar, kSequence, kMap };

  YamlNode();
  YamlNode(const YamlNode&);
  YamlNode(YamlNode&&) noexcept;
  YamlNode& operator=(const YamlNode&);
  YamlNode& operator=(YamlNode&&) noexcept;
  ~YamlNode();

  Kind kind = Kind::kNull;
  /// True for quoted, block (`|`, `>`) and `!!str` scalars: always strings.
  bool quoted = false;
  std::string text;
  std::vector<YamlNode> items;      // kSequence
  std::vector<YamlMember> members;  // kMap, document order, keys unique
  size_t offset = 0;                // byte offset in the source text
  int line = 0;                     // 1-based
  int column = 0;                   // 1-based, in bytes

  bool is_null() const { return kind == Kind::kNull; }
  bool is_scalar() const { return kind == Kind::kScalar; }
  bool is_sequence() const { return kind == Kind::kSequence; }
  bool is_map() const { return kind == Kind::kMap; }
  /// The member named `key` of a map, or nullptr.
  const YamlNode* Find(std::string_view key) const;
};

struct YamlMember {
  std::string key;
  YamlNode value;
};

// Defined here, once YamlMember is complete (clang needs it for the vector's element type).
inline YamlNode::YamlNode() = default;
inline YamlNode::YamlNode(const YamlNode&) = default;
inline YamlNode::YamlNode(YamlNode&&) noexcept = default;
inline YamlNode& YamlNode::operator=(const YamlNode&) = default;
inline YamlNode& YamlNode::operator=(YamlNode&&) noexcept = default;
inline YamlNode::~YamlNode() = default;

/// "a mapping", "a list", "a scalar", "null": for messages.
std::string_view YamlKindName(YamlNode::Kind kind);

/// Parse one YAML document. Rejects (kParseError, with line and column): invalid UTF-8, control
/// characters, syntax errors, nesting deeper than the limit, alias expansion beyond the budgets,
/// duplicate or non-scalar keys, more than one document. An empty document is a null node.
Result<YamlNode> ParseYaml(std::string_view text, const YamlLimits& limits = {});

/// The plain scalar read by the YAML 1.1 rules PyYAML uses (the reference implementations of
/// both contract formats are Python): true/false/yes/no/on/off in three casings.
bool ParseYamlBool(std::string_view text, bool* value);

/// A plain scalar that YAML reads as null: "", "~", "null", "Null", "NULL".
bool IsYamlNullText(std::string_view text);

/// Convert a node to JSON: plain scalars become null, booleans and numbers where YAML would read
/// them so (numbers normalised to JSON syntax; .inf and .nan stay strings), everything else a
/// string. Offsets are kept.
JsonValue YamlToJson(const YamlNode& node);

/// Return `s` as a YAML scalar: plain when that reads back as the same string, else double-quoted.
std::string YamlScalar(std::string_view s);

/// Write a JSON value as YAML flow (`{a: 1, b: [x, "y z"]}`), for short option maps.
std::string JsonToYamlFlow(const JsonValue& value);

/// "line L, column C" of a node.
std::string DescribeNode(const YamlNode& node);

}  // namespace sluice::dialects::contract::internal
