// Writing JSON: a streaming writer for reports and dialect output, and ToJson for a JsonValue.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "sluice/base/json.h"

namespace sluice {

struct JsonFormat {
  /// Spaces per level; 0 writes compact JSON with no whitespace at all.
  int indent = 0;
  /// Write object members sorted by key (byte order, which is code point order for UTF-8).
  bool sort_keys = false;
  /// Escape every non-ASCII character as \uXXXX (Python's ensure_ascii).
  bool ascii_only = false;
  /// Write numbers the way Python's json module writes what it parsed: integers keep their
  /// digits, other numbers become the shortest repr of the double ("1.50" -> "1.5").
  bool python_numbers = false;
};

/// Append `s` as a quoted JSON string.
void AppendJsonString(std::string& out, std::string_view s, bool ascii_only = false);

/// Serialize `value` with `format`.
std::string ToJson(const JsonValue& value, const JsonFormat& format = {});

/// Build a JSON document front to back. The caller keeps calls balanced; keys only inside objects.
class JsonWriter {
 public:
  explicit JsonWriter(JsonFormat format = {}) : format_(format) {}

  JsonWriter& BeginObject();
  JsonWriter& EndObject();
  JsonWriter& BeginArray();
  JsonWriter& EndArray();
  JsonWriter& Key(std::string_view key);
  JsonWriter& String(std::string_view s);
  JsonWriter& Int(int64_t v);
  JsonWriter& Uint(uint64_t v);
  JsonWriter& Double(double v);
  JsonWriter& Bool(bool v);
  JsonWriter& Null();
  JsonWriter& Value(const JsonValue& v);
  /// Insert already-serialized JSON as one value.
  JsonWriter& Raw(std::string_view json);

  const std::string& str() const { return out_; }
  std::string Take() { return std::move(out_); }

 private:
  struct Level {
    bool object;
    size_t count;
  };
  void BeforeValue();
  void Newline(size_t depth);

  JsonFormat format_;
  std::string out_;
  std::vector<Level> stack_;
  bool after_key_ = false;
};

}  // namespace sluice
