// A small JSON document model for schemas, contracts and reports: objects keep their key order,
// numbers keep their source text (so big integers and decimals survive), and every value remembers
// the byte offset it came from, for error messages. Record data goes through simdjson instead.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "sluice/base/result.h"

namespace sluice {

struct JsonMember;

/// One JSON value. A value type: copying copies the whole tree.
class JsonValue {
 public:
  enum class Kind : uint8_t { kNull, kBool, kNumber, kString, kArray, kObject };

  JsonValue();  // null
  JsonValue(const JsonValue&);
  JsonValue(JsonValue&&) noexcept;
  JsonValue& operator=(const JsonValue&);
  JsonValue& operator=(JsonValue&&) noexcept;
  ~JsonValue();
  static JsonValue Null() { return JsonValue(); }
  static JsonValue Bool(bool b);
  static JsonValue Int(int64_t v);
  static JsonValue Double(double v);
  /// A number given by its JSON text; the caller guarantees `text` is a valid JSON number.
  static JsonValue NumberText(std::string text);
  static JsonValue String(std::string s);
  static JsonValue Array();
  static JsonValue Array(std::vector<JsonValue> items);
  static JsonValue Object();
  static JsonValue Object(std::vector<JsonMember> members);

  Kind kind() const { return kind_; }
  bool is_null() const { return kind_ == Kind::kNull; }
  bool is_bool() const { return kind_ == Kind::kBool; }
  bool is_number() const { return kind_ == Kind::kNumber; }
  bool is_string() const { return kind_ == Kind::kString; }
  bool is_array() const { return kind_ == Kind::kArray; }
  bool is_object() const { return kind_ == Kind::kObject; }

  /// Accessors: the caller checks the kind first.
  bool as_bool() const { return bool_; }
  const std::string& as_string() const { return text_; }
  /// The number's JSON text, as written in the source ("1e3", "-0", "12.50").
  const std::string& number_text() const { return text_; }
  double as_double() const { return number_; }
  /// The number as an int64 if it is written without fraction or exponent and fits.
  std::optional<int64_t> as_int64() const;
  /// True if the number's text has no fraction and no exponent.
  bool is_integer_text() const;

  const std::vector<JsonValue>& items() const { return items_; }
  std::vector<JsonValue>& mutable_items() { return items_; }
  const std::vector<JsonMember>& members() const { return members_; }
  std::vector<JsonMember>& mutable_members() { return members_; }

  /// Return the member named `key` of an object, or nullptr (also for non-objects).
  const JsonValue* Find(std::string_view key) const;
  /// Set `key` on an object: replace the value if present, else append.
  void Set(std::string key, JsonValue value);
  /// Remove `key` from an object; return whether it was there.
  bool Remove(std::string_view key);
  /// Append to an array.
  void Append(JsonValue value);
  /// Number of items of an array or members of an object; 0 otherwise.
  size_t size() const;

  /// Byte offset of this value in the text it was parsed from (0 for built values).
  size_t offset() const { return offset_; }
  void set_offset(size_t offset) { offset_ = offset; }

  /// Semantic equality: numbers compare by value, objects ignore member order.
  bool Equals(const JsonValue& other) const;

  /// The kind as a JSON Schema style word: "null", "boolean", "number", "string", "array",
  /// "object".
  static std::string_view KindName(Kind kind);

 private:
  // Plain members rather than a variant: a variant over a vector of the still-incomplete
  // JsonMember is rejected by clang. Only the member matching kind_ is in use.
  Kind kind_ = Kind::kNull;
  bool bool_ = false;
  double number_ = 0;
  std::string text_;  // string value, or the number's source text
  std::vector<JsonValue> items_;
  std::vector<JsonMember> members_;
  size_t offset_ = 0;
};

struct JsonMember {
  std::string key;
  JsonValue value;
};

// Defined here, once JsonMember is complete.
inline JsonValue::JsonValue() = default;
inline JsonValue::JsonValue(const JsonValue&) = default;
inline JsonValue::JsonValue(JsonValue&&) noexcept = default;
inline JsonValue& JsonValue::operator=(const JsonValue&) = default;
inline JsonValue& JsonValue::operator=(JsonValue&&) noexcept = default;
inline JsonValue::~JsonValue() = default;

struct JsonParseOptions {
  /// Deeper documents are rejected before recursion can exhaust the stack.
  size_t max_depth = 512;
  /// Accept `[1,2,]` and `{"a":1,}` (some published test files use them).
  bool allow_trailing_commas = false;
  /// Accept repeated keys in an object; the last one wins. Rejected by default.
  bool allow_duplicate_keys = false;
};

/// Parse one JSON document. Errors are kParseError with "line L, column C (offset O)".
Result<JsonValue> ParseJson(std::string_view text, const JsonParseOptions& options = {});

/// Return "line L, column C" for a byte offset in `text` (1-based, columns count bytes).
std::string DescribeOffset(std::string_view text, size_t offset);

}  // namespace sluice
