// Avro schemas in their own terms: a faithful parsed form of the JSON schema language (names,
// namespaces, aliases, unions, logical types, defaults, custom properties), the full JSON form, the
// Parsing Canonical Form and its fingerprints. The model conversion lives in avro_convert.h; a
// compatibility checker walks AvroSchema/AvroNode directly, since the model cannot hold Avro's
// names, aliases and unions.
//
// Rules follow the Avro 1.11/1.12 specification. Where the spec leaves room, sluice follows the
// Java implementation (the reference for fingerprints and for Confluent's registry): a short name
// that is not defined in the enclosing namespace falls back to the null namespace, `{"type":
// "Name"}` is a reference, an `error` record is canonicalised as `record`.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "sluice/base/json.h"
#include "sluice/base/result.h"

namespace sluice::dialects::avro {

/// The Avro schema types. Records written as `"error"` (Avro protocols) are kRecord with
/// AvroNode::is_error().
enum class AvroType : uint8_t {
  kNull,
  kBoolean,
  kInt,
  kLong,
  kFloat,
  kDouble,
  kBytes,
  kString,
  kRecord,
  kEnum,
  kArray,
  kMap,
  kUnion,
  kFixed,
};

/// The type's name as the spec spells it: "null", "int", "record", "union", ...
std::string_view AvroTypeName(AvroType type);

/// The logical types of the spec that sluice recognises. An annotation that is invalid for its
/// base type (or unknown) is ignored, as the spec says, and kept among the node's props.
enum class LogicalKind : uint8_t {
  kNone,
  kDecimal,               // bytes or fixed; precision, scale
  kUuid,                  // string, or fixed of size 16
  kDate,                  // int
  kTimeMillis,            // int
  kTimeMicros,            // long
  kTimestampMillis,       // long
  kTimestampMicros,       // long
  kTimestampNanos,        // long
  kLocalTimestampMillis,  // long
  kLocalTimestampMicros,  // long
  kLocalTimestampNanos,   // long
  kDuration,              // fixed of size 12
};

/// The `logicalType` string: "decimal", "timestamp-millis", ...; "" for kNone.
std::string_view LogicalKindName(LogicalKind kind);

struct LogicalType {
  LogicalKind kind = LogicalKind::kNone;
  int precision = 0;  // decimal only: >= 1
  int scale = 0;      // decimal only: 0 <= scale <= precision

  bool operator==(const LogicalType&) const = default;
};

/// The largest decimal precision a fixed of `size` bytes holds: floor(log10(2^(8*size-1) - 1)).
int MaxDecimalPrecisionForFixedSize(int64_t size);

/// A record field's sort order ("order" attribute; ascending when absent).
enum class SortOrder : uint8_t { kAscending, kDescending, kIgnore };

class AvroNode;
class AvroSchema;

namespace internal {
class AvroParser;
struct AvroLayout;
struct LayoutSlot;
struct LayoutSlotDeleter {
  void operator()(LayoutSlot* slot) const;
};
/// The packed form of the schema `node` belongs to (avro_layout.h), built on first use (from any
/// thread); nullptr when the schema is too large to pack.
const AvroLayout* LayoutOf(const AvroNode& node);
const AvroLayout* LayoutOf(const AvroSchema& schema);
}  // namespace internal

/// One field of a record. Owned by its record node; valid as long as the AvroSchema lives.
class AvroField {
 public:
  const std::string& name() const { return name_; }
  const AvroNode& type() const { return *type_; }
  const std::optional<std::string>& doc() const { return doc_; }
  /// The default as written in the schema, already checked against the field's type (for a union,
  /// against its first branch).
  const std::optional<JsonValue>& default_value() const { return default_; }
  SortOrder order() const { return order_; }
  /// Alternate names of the field, for schema resolution (simple names, no namespace).
  const std::vector<std::string>& aliases() const { return aliases_; }
  /// Attributes the spec does not define, in source order; always a JSON object.
  const JsonValue& props() const { return props_; }
  /// Index of the field in its record.
  size_t position() const { return position_; }

 private:
  friend class internal::AvroParser;
  std::string name_;
  const AvroNode* type_ = nullptr;
  std::optional<std::string> doc_;
  std::optional<JsonValue> default_;
  SortOrder order_ = SortOrder::kAscending;
  std::vector<std::string> aliases_;
  JsonValue props_ = JsonValue::Object();
  size_t position_ = 0;
};

/// One schema node. Nodes live in the arena of their AvroSchema and refer to each other by raw
/// pointer, so recursive schemas (a record that refers to itself) need no reference counting. A
/// reference to a named type is the named node itself: walkers that follow references must stop
/// at named nodes they have seen (memoise on id()).
class AvroNode {
 public:
  AvroType type() const { return type_; }
  bool is_primitive() const { return type_ <= AvroType::kString; }
  /// Record, enum or fixed.
  bool is_named() const {
    return type_ == AvroType::kRecord || type_ == AvroType::kEnum || type_ == AvroType::kFixed;
  }
  bool is_union() const { return type_ == AvroType::kUnion; }
  /// A stable index of the node in its schema's arena, for memo tables.
  size_t id() const { return id_; }

  /// Named types only: the unqualified name, the namespace ("" for the null namespace) and the
  /// full name ("ns.name", or the name alone in the null namespace).
  const std::string& name() const { return name_; }
  const std::string& namespace_name() const { return namespace_; }
  const std::string& full_name() const { return full_name_; }
  /// Named types only: alternate names, resolved to full names against the type's namespace.
  const std::vector<std::string>& aliases() const { return aliases_; }
  /// Named types only.
  const std::optional<std::string>& doc() const { return doc_; }

  /// Record only.
  const std::vector<AvroField>& fields() const { return fields_; }
  /// Record only: the field named exactly `name`, or nullptr.
  const AvroField* FindField(std::string_view name) const;
  /// Record only: written with type "error" (an Avro protocol error).
  bool is_error() const { return is_error_; }

  /// Enum only: the symbols in order, and the enum-level `default` symbol if any.
  const std::vector<std::string>& symbols() const { return symbols_; }
  const std::optional<std::string>& enum_default() const { return enum_default_; }

  /// Array only.
  const AvroNode& items() const { return *child_; }
  /// Map only (keys are always strings).
  const AvroNode& values() const { return *child_; }

  /// Union only: the branches in order. Never unions themselves.
  const std::vector<const AvroNode*>& branches() const { return branches_; }
  /// Union only: the index of the "null" branch, if there is one.
  std::optional<size_t> NullBranch() const;

  /// Fixed only: the size in bytes.
  int64_t size() const { return size_; }

  /// A recognised logical type (kind kNone when there is none, or it was invalid).
  const LogicalType& logical_type() const { return logical_; }

  /// Attributes the spec does not define for this type, in source order (a JSON object). An
  /// ignored (invalid or unknown) `logicalType` and its parameters are kept here.
  const JsonValue& props() const { return props_; }

 private:
  friend class internal::AvroParser;
  friend class AvroSchema;
  friend const internal::AvroLayout* internal::LayoutOf(const AvroNode& node);

  AvroType type_ = AvroType::kNull;
  size_t id_ = 0;
  internal::LayoutSlot* layout_ = nullptr;
  std::string name_;
  std::string namespace_;
  std::string full_name_;
  std::vector<std::string> aliases_;
  std::optional<std::string> doc_;
  std::vector<AvroField> fields_;
  bool is_error_ = false;
  std::vector<std::string> symbols_;
  std::optional<std::string> enum_default_;
  const AvroNode* child_ = nullptr;
  std::vector<const AvroNode*> branches_;
  int64_t size_ = 0;
  LogicalType logical_;
  JsonValue props_ = JsonValue::Object();
};

/// A parsed Avro schema: owns every node. Immutable after Parse; movable, not copyable (nodes
/// stay at their addresses when the schema is moved). Safe to read from any thread.
class AvroSchema {
 public:
  AvroSchema(AvroSchema&&) noexcept;
  AvroSchema& operator=(AvroSchema&&) noexcept;
  AvroSchema(const AvroSchema&) = delete;
  AvroSchema& operator=(const AvroSchema&) = delete;
  ~AvroSchema();

  const AvroNode& root() const { return *root_; }
  /// Every named type, in order of definition.
  const std::vector<const AvroNode*>& named_types() const { return named_; }
  /// The named type with this full name, or nullptr.
  const AvroNode* FindNamed(std::string_view full_name) const;
  /// The number of nodes in the arena.
  size_t node_count() const { return nodes_.size(); }

 private:
  friend class internal::AvroParser;
  friend const internal::AvroLayout* internal::LayoutOf(const AvroSchema& schema);
  AvroSchema();

  std::vector<std::unique_ptr<AvroNode>> nodes_;
  std::unique_ptr<internal::LayoutSlot, internal::LayoutSlotDeleter> layout_;
  const AvroNode* root_ = nullptr;
  std::vector<const AvroNode*> named_;
  std::map<std::string, const AvroNode*, std::less<>> by_name_;
};

/// Parse an Avro schema from its JSON text and validate it: names, namespaces, duplicate fields
/// and symbols, union rules, fixed sizes, logical types, and every default against its type.
/// Errors are kParseError for malformed JSON (with line, column and offset) and kInvalidArgument
/// for schema errors, naming the place as a JSON pointer (`/fields/2/type`) and a line/column.
/// Forward references to named types defined later in the document are accepted (Java 1.11 and
/// Python's avro reject them); such a type is written where a depth-first walk meets it first.
Result<AvroSchema> Parse(std::string_view json_text);

/// Parse a schema that uses named types defined in other schemas (a schema registry's
/// references): `references` are those schemas' texts, each after the ones it needs. Their named
/// types can be used by name in `json_text`; the schema's root is `json_text`'s, and WriteJson
/// writes it standalone (each referenced type in full at its first use). Errors in a referenced
/// schema say which one ("referenced schema 2: ...").
Result<AvroSchema> Parse(std::string_view json_text, std::span<const std::string_view> references);

/// Return the full JSON form: every attribute kept, each named type written in full at its first
/// occurrence (depth first) and referenced by full name after that. Compact when `indent` is 0.
/// Parse(WriteJson(s)) describes the same schema.
std::string WriteJson(const AvroSchema& schema, int indent = 0);

/// Return the spec's Parsing Canonical Form (PRIMITIVES, FULLNAMES, STRIP, ORDER, STRINGS,
/// INTEGERS, WHITESPACE): the input to the fingerprints below.
std::string ParsingCanonicalForm(const AvroSchema& schema);

/// CRC-64-AVRO (Rabin) of the Parsing Canonical Form, as Java's `parsingFingerprint64` (cast to
/// int64_t for Java's signed long); the CLI prints it as %016x.
uint64_t Crc64Fingerprint(const AvroSchema& schema);
/// Lower-case hex SHA-256 of the Parsing Canonical Form.
std::string Sha256Fingerprint(const AvroSchema& schema);
/// Lower-case hex MD5 of the Parsing Canonical Form.
std::string Md5Fingerprint(const AvroSchema& schema);

/// A short description of a node for messages: the full name of a named type, else the type
/// name ("int", "array", "union"), with a recognised logical type in parentheses ("long
/// (timestamp-millis)").
std::string DescribeNode(const AvroNode& node);

}  // namespace sluice::dialects::avro
