// Helpers shared by the Avro dialect's parser, writers and converters. Not for other modules.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "sluice/base/json.h"
#include "sluice/dialects/avro/avro_schema.h"

namespace sluice::dialects::avro::internal {

/// [A-Za-z_][A-Za-z0-9_]*
bool IsValidName(std::string_view s);
/// Names joined by dots ("a.b.C"); no empty parts.
bool IsValidFullName(std::string_view s);
/// The primitive type spelled `name`, if it is one.
std::optional<AvroType> PrimitiveType(std::string_view name);

/// Avro writes bytes and fixed values in JSON as strings whose code points U+0000..U+00FF are the
/// bytes. Return the bytes of such a (UTF-8) string, or nullopt if a code point is above U+00FF.
std::optional<std::vector<uint8_t>> DecodeByteString(std::string_view s);
/// The inverse: one code point per byte, encoded as UTF-8.
std::string EncodeByteString(const std::vector<uint8_t>& bytes);

/// The members of a JSON object by key, for looking up many keys in one object (every field of
/// a wide record in its default value): a scan over a few members, a hash index over more, so
/// the lookups stay linear in the object's size. Points into `object`, which must outlive it.
class MemberLookup {
 public:
  explicit MemberLookup(const JsonValue& object) : object_(object) {
    if (object.members().size() <= kScanLimit) return;
    index_.reserve(object.members().size());
    for (const JsonMember& m : object.members()) index_.try_emplace(m.key, &m.value);
  }
  /// The first member named `key`, as JsonValue::Find finds it; nullptr if there is none.
  const JsonValue* Find(std::string_view key) const {
    if (object_.members().size() <= kScanLimit) return object_.Find(key);
    auto it = index_.find(key);
    return it == index_.end() ? nullptr : it->second;
  }

 private:
  static constexpr size_t kScanLimit = 8;
  const JsonValue& object_;
  std::unordered_map<std::string_view, const JsonValue*> index_;
};

/// An enum's symbols as a set, for checking many values against one enum in linear time.
class SymbolSet {
 public:
  explicit SymbolSet(const AvroNode& e) : symbols_(e.symbols().begin(), e.symbols().end()) {}
  bool Contains(std::string_view s) const { return symbols_.contains(s); }

 private:
  std::unordered_set<std::string_view> symbols_;
};

/// Nesting levels of a JSON value: 1 for a scalar or an empty container.
size_t JsonLevels(const JsonValue& v);

/// The decimal text ("-12.50") of a big-endian two's-complement unscaled value with `scale`.
/// Empty bytes are zero.
std::string UnscaledBytesToDecimalText(const std::vector<uint8_t>& bytes, int scale);

/// The big-endian two's-complement unscaled bytes of a JSON number (or a string holding one) at
/// `scale`: as few bytes as hold the value, or exactly `fixed_size` bytes when given. Nullopt if
/// the value needs more than `precision` digits, more fractional digits than `scale`, or more
/// than `fixed_size` bytes.
std::optional<std::vector<uint8_t>> DecimalToUnscaledBytes(std::string_view number_text,
                                                           int precision, int scale,
                                                           std::optional<int64_t> fixed_size);

}  // namespace sluice::dialects::avro::internal
