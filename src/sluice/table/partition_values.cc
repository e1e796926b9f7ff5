#include "sluice/table/partition_values.h"

#include <fmt/format.h>

#include <charconv>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>

#include "sluice/base/strings.h"
#include "sluice/data/parquet_values_internal.h"
#include "sluice/parquet/value_text.h"

namespace sluice::table {
namespace {

namespace dint = sluice::data::internal;
using schema::Type;
using schema::TypeKind;

constexpr int64_t kMicrosPerSecond = 1000000;
constexpr int64_t kMicrosPerDay = 86400 * kMicrosPerSecond;

Unexpected<Error> BadValue(std::string_view column, std::string_view text, const Type& type,
                           std::string_view why = "") {
  return InvalidArgument(fmt::format("partition column `{}`: `{}` is no {} value{}{}",
                                     EscapeForMessage(column), EscapeForMessage(text),
                                     type.ToString(), why.empty() ? "" : ": ", why));
}

Unexpected<Error> NotPartitionType(std::string_view column, const Type& type) {
  return InvalidArgument(
      fmt::format("partition column `{}`: a Delta table cannot be partitioned "
                  "by a {} column",
                  EscapeForMessage(column), type.ToString()));
}

// Java's Double.toString / Float.toString (JDK 19 and later): the shortest decimal that reads
// back as the value (when one digit does, the closest of one or two digits), plain between 1e-3
// and 1e7, else as d.dddE<exponent>; always a digit after the point.
template <class T>
std::string JavaFloatingText(T v) {
  if (std::isnan(v)) return "NaN";
  if (std::isinf(v)) return v > 0 ? "Infinity" : "-Infinity";
  if (v == 0) return std::signbit(v) ? "-0.0" : "0.0";
  auto digits_of = [](T x, int precision, std::string* digits, int* exponent) {
    char buf[64];
    auto r = precision < 0 ? std::to_chars(buf, buf + sizeof buf, x, std::chars_format::scientific)
                           : std::to_chars(buf, buf + sizeof buf, x, std::chars_format::scientific,
                                           precision);
    std::string_view s(buf, static_cast<size_t>(r.ptr - buf));
    if (s.front() == '-') s.remove_prefix(1);
    const size_t e = s.find('e');
    std::string_view exp = s.substr(e + 1);
    if (exp.front() == '+') exp.remove_prefix(1);
    std::from_chars(exp.data(), exp.data() + exp.size(), *exponent);
    digits->clear();
    for (char c : s.substr(0, e)) {
      if (c != '.') digits->push_back(c);
    }
    while (digits->size() > 1 && digits->back() == '0') digits->pop_back();
  };
  std::string digits;
  int exponent = 0;
  digits_of(v, -1, &digits, &exponent);
  if (digits.size() == 1) {
    std::string two;
    int two_exponent = 0;
    digits_of(v, 1, &two, &two_exponent);
    // The closest two-digit decimal, when it reads back as the value too.
    std::string text = two.substr(0, 1) + "." + (two.size() > 1 ? two.substr(1) : "0") + "e" +
                       std::to_string(two_exponent);
    T back = 0;
    std::from_chars(text.data(), text.data() + text.size(), back);
    if (back == std::fabs(v)) {
      digits = two;
      exponent = two_exponent;
    }
  }
  std::string out = std::signbit(v) ? "-" : "";
  if (exponent >= -3 && exponent < 7) {
    if (exponent >= 0) {
      const auto int_digits = static_cast<size_t>(exponent) + 1;
      std::string padded = digits;
      if (padded.size() < int_digits) padded.append(int_digits - padded.size(), '0');
      out += padded.substr(0, int_digits);
      out.push_back('.');
      out += padded.size() > int_digits ? padded.substr(int_digits) : "0";
    } else {
      out += "0.";
      out.append(static_cast<size_t>(-exponent - 1), '0');
      out += digits;
    }
  } else {
    out.push_back(digits[0]);
    out.push_back('.');
    out += digits.size() > 1 ? digits.substr(1) : "0";
    out += "E" + std::to_string(exponent);
  }
  return out;
}

// "YYYY-MM-DD" of a day count (years past 9999 keep their digits, as Java's formatter does).
std::string DateString(int64_t days) {
  const parquet::CivilDate d = parquet::CivilFromDays(days);
  if (d.year >= 0 && d.year <= 9999) {
    return fmt::format("{:04}-{:02}-{:02}", d.year, d.month, d.day);
  }
  return fmt::format("{:+05}-{:02}-{:02}", d.year, d.month, d.day);
}

// The date and the clock of `micros` since the epoch, "YYYY-MM-DD" and "HH:MM:SS", and the
// microseconds of the second.
std::string DateTimeString(int64_t micros, char separator, int64_t* fraction) {
  int64_t days = micros / kMicrosPerDay;
  int64_t rest = micros % kMicrosPerDay;
  if (rest < 0) {
    rest += kMicrosPerDay;
    --days;
  }
  const int64_t seconds = rest / kMicrosPerSecond;
  *fraction = rest % kMicrosPerSecond;
  return fmt::format("{}{}{:02}:{:02}:{:02}", DateString(days), separator, seconds / 3600,
                     seconds / 60 % 60, seconds % 60);
}

std::string TimestampPartitionText(int64_t micros) {
  int64_t fraction = 0;
  std::string s = DateTimeString(micros, 'T', &fraction);
  return fmt::format("{}.{:06}Z", s, fraction);
}

// Spark's cast of a timestamp_ntz to string: the fraction without trailing zeros, if any.
std::string TimestampNtzPartitionText(int64_t micros) {
  int64_t fraction = 0;
  std::string s = DateTimeString(micros, ' ', &fraction);
  if (fraction != 0) {
    std::string f = fmt::format("{:06}", fraction);
    while (f.back() == '0') f.pop_back();
    s += "." + f;
  }
  return s;
}

// A value's text: a string's content, a number's token, a boolean's word; nullopt for arrays
// and objects.
std::optional<std::string> ScalarText(const JsonValue& v) {
  switch (v.kind()) {
    case JsonValue::Kind::kString:
      return v.as_string();
    case JsonValue::Kind::kNumber:
      return v.number_text();
    case JsonValue::Kind::kBool:
      return std::string(v.as_bool() ? "true" : "false");
    case JsonValue::Kind::kNull:
    case JsonValue::Kind::kArray:
    case JsonValue::Kind::kObject:
      break;
  }
  return std::nullopt;
}

bool ParseInteger(std::string_view s, int64_t* out) {
  if (!s.empty() && s.front() == '+') s.remove_prefix(1);
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), *out);
  return !s.empty() && ec == std::errc() && end == s.data() + s.size();
}

bool IntegerFits(TypeKind kind, int64_t v) {
  if (kind == TypeKind::kInt8) return v >= INT8_MIN && v <= INT8_MAX;
  if (kind == TypeKind::kInt16) return v >= INT16_MIN && v <= INT16_MAX;
  if (kind == TypeKind::kInt32) return v >= INT32_MIN && v <= INT32_MAX;
  return true;
}

// A timestamp's text must carry a date: Spark's parser would complete a time alone with today.
bool HasDate(std::string_view s) {
  const size_t dash = s.find('-', 1);
  return dash != std::string_view::npos && dash < s.find(':');
}

Result<int64_t> TimestampMicros(std::string_view column, const Type& type, const JsonValue& value,
                                const std::string& text) {
  int64_t micros = 0;
  const bool ntz = type.kind() == TypeKind::kTimestampNtz;
  if (value.is_number()) {
    int64_t seconds = 0;
    if (ntz || !value.is_integer_text() || !ParseInteger(text, &seconds) ||
        !dint::TimestampFromSeconds(seconds, schema::TimeUnit::kMicros, &micros)) {
      return BadValue(column, text, type);
    }
    return micros;
  }
  const char* why = "";
  if (!HasDate(text)) return BadValue(column, text, type, "it has no date");
  if (!dint::TimestampFromText(text, schema::TimeUnit::kMicros, ntz, &micros, &why)) {
    return BadValue(column, text, type, why);
  }
  return micros;
}

// A value rendered by parquet/value_text.h ("...": a string, else a number) as JSON.
JsonValue FromRendered(const std::string& rendered) {
  if (!rendered.empty() && rendered.front() == '"') {
    return JsonValue::String(rendered.substr(1, rendered.size() - 2));
  }
  return JsonValue::NumberText(rendered);
}

Result<JsonValue> SerializeText(std::string_view column, const Type& type, const JsonValue& value,
                                const std::string& text) {
  switch (type.kind()) {
    case TypeKind::kString:
      if (text.empty()) return JsonValue::Null();
      return JsonValue::String(text);
    case TypeKind::kBoolean:
      if (value.is_bool()) return JsonValue::String(text);
      if (EqualsIgnoreCase(text, "true")) return JsonValue::String("true");
      if (EqualsIgnoreCase(text, "false")) return JsonValue::String("false");
      return BadValue(column, text, type);
    case TypeKind::kInt8:
    case TypeKind::kInt16:
    case TypeKind::kInt32:
    case TypeKind::kInt64: {
      int64_t v = 0;
      if (value.is_bool() || !ParseInteger(text, &v) || !IntegerFits(type.kind(), v)) {
        return BadValue(column, text, type);
      }
      return JsonValue::String(std::to_string(v));
    }
    case TypeKind::kFloat32: {
      float f = 0;
      if (value.is_bool() || !dint::FloatFromText(text, &f)) return BadValue(column, text, type);
      return JsonValue::String(JavaFloatingText(f));
    }
    case TypeKind::kFloat64: {
      double d = 0;
      if (value.is_bool() || !dint::DoubleFromText(text, &d)) return BadValue(column, text, type);
      return JsonValue::String(JavaFloatingText(d));
    }
    case TypeKind::kDecimal: {
      dint::Int128 unscaled = 0;
      if (value.is_bool() ||
          !dint::DecimalFromText(text, type.precision(), type.scale(), &unscaled)) {
        return BadValue(column, text, type, "not a decimal of that precision");
      }
      std::string out;
      parquet::AppendDecimal(out, unscaled, type.scale());
      return JsonValue::String(out);
    }
    case TypeKind::kBinary: {
      std::string bytes;
      if (!value.is_string() || !dint::Base64FromText(text, bytes)) {
        return BadValue(column, text, type, "not base64");
      }
      if (bytes.empty()) return JsonValue::Null();
      // Delta holds a binary partition value as the string of its bytes.
      if (!IsValidUtf8(bytes)) {
        return BadValue(column, text, type, "its bytes are not UTF-8, which partitionValues needs");
      }
      return JsonValue::String(bytes);
    }
    case TypeKind::kDate: {
      int32_t days = 0;
      if (!value.is_string() || !dint::DateFromText(text, &days))
        return BadValue(column, text, type);
      return JsonValue::String(DateString(days));
    }
    case TypeKind::kTimestamp:
    case TypeKind::kTimestampNtz: {
      if (value.is_bool()) return BadValue(column, text, type);
      SLUICE_ASSIGN_OR_RETURN(const int64_t micros, TimestampMicros(column, type, value, text));
      return JsonValue::String(type.kind() == TypeKind::kTimestamp
                                   ? TimestampPartitionText(micros)
                                   : TimestampNtzPartitionText(micros));
    }
    case TypeKind::kNull:
      return BadValue(column, text, type);
    case TypeKind::kTime:
    case TypeKind::kUuid:
    case TypeKind::kStruct:
    case TypeKind::kArray:
    case TypeKind::kMap:
      return NotPartitionType(column, type);
  }
  return NotPartitionType(column, type);
}

bool IsPartitionType(TypeKind kind) {
  switch (kind) {
    case TypeKind::kTime:
    case TypeKind::kUuid:
    case TypeKind::kStruct:
    case TypeKind::kArray:
    case TypeKind::kMap:
      return false;
    case TypeKind::kNull:
    case TypeKind::kBoolean:
    case TypeKind::kInt8:
    case TypeKind::kInt16:
    case TypeKind::kInt32:
    case TypeKind::kInt64:
    case TypeKind::kFloat32:
    case TypeKind::kFloat64:
    case TypeKind::kDecimal:
    case TypeKind::kString:
    case TypeKind::kBinary:
    case TypeKind::kDate:
    case TypeKind::kTimestamp:
    case TypeKind::kTimestampNtz:
      return true;
  }
  return false;
}

}  // namespace

Result<JsonValue> SerializePartitionValue(std::string_view column, const Type& type,
                                          const JsonValue& value) {
  if (!IsPartitionType(type.kind())) return NotPartitionType(column, type);
  if (value.is_null()) return JsonValue::Null();
  const std::optional<std::string> text = ScalarText(value);
  if (!text) {
    return InvalidArgument(
        fmt::format("partition column `{}`: a partition value is a single "
                    "value, not an {}",
                    EscapeForMessage(column), JsonValue::KindName(value.kind())));
  }
  return SerializeText(column, type, value, *text);
}

Result<JsonValue> ParsePartitionValue(std::string_view column, const Type& type,
                                      std::optional<std::string_view> text) {
  if (!IsPartitionType(type.kind())) return NotPartitionType(column, type);
  if (!text || text->empty()) return JsonValue::Null();
  const std::string_view raw = *text;
  // Spark's casts from string trim surrounding whitespace for every type but string and binary.
  const std::string_view s = TrimWhitespace(raw);
  std::string rendered;
  switch (type.kind()) {
    case TypeKind::kString:
      return JsonValue::String(std::string(raw));
    case TypeKind::kBinary:
      return JsonValue::String(Base64Encode(raw));
    case TypeKind::kBoolean: {
      const std::string lower = AsciiLower(s);
      if (lower == "true" || lower == "t" || lower == "yes" || lower == "y" || lower == "1") {
        return JsonValue::Bool(true);
      }
      if (lower == "false" || lower == "f" || lower == "no" || lower == "n" || lower == "0") {
        return JsonValue::Bool(false);
      }
      return BadValue(column, raw, type);
    }
    case TypeKind::kInt8:
    case TypeKind::kInt16:
    case TypeKind::kInt32:
    case TypeKind::kInt64: {
      int64_t v = 0;
      if (!ParseInteger(s, &v) || !IntegerFits(type.kind(), v)) return BadValue(column, raw, type);
      return JsonValue::Int(v);
    }
    case TypeKind::kFloat32: {
      float f = 0;
      if (!dint::FloatFromText(s, &f)) return BadValue(column, raw, type);
      parquet::AppendFloat(rendered, f);
      return FromRendered(rendered);
    }
    case TypeKind::kFloat64: {
      double d = 0;
      if (!dint::DoubleFromText(s, &d)) return BadValue(column, raw, type);
      parquet::AppendDouble(rendered, d);
      return FromRendered(rendered);
    }
    case TypeKind::kDecimal: {
      dint::Int128 unscaled = 0;
      if (!dint::DecimalFromText(s, type.precision(), type.scale(), &unscaled)) {
        return BadValue(column, raw, type, "not a decimal of that precision");
      }
      parquet::AppendDecimal(rendered, unscaled, type.scale());
      return FromRendered(rendered);
    }
    case TypeKind::kDate: {
      int32_t days = 0;
      if (!dint::DateFromText(s, &days)) return BadValue(column, raw, type);
      parquet::AppendDate(rendered, days);
      return FromRendered(rendered);
    }
    case TypeKind::kTimestamp:
    case TypeKind::kTimestampNtz: {
      SLUICE_ASSIGN_OR_RETURN(const int64_t micros,
                              TimestampMicros(column, type, JsonValue::String(""), std::string(s)));
      parquet::AppendTimestamp(rendered, micros, parquet::TimeUnit::kMicros,
                               type.kind() == TypeKind::kTimestamp);
      return FromRendered(rendered);
    }
    case TypeKind::kNull:
      return BadValue(column, raw, type);
    case TypeKind::kTime:
    case TypeKind::kUuid:
    case TypeKind::kStruct:
    case TypeKind::kArray:
    case TypeKind::kMap:
      break;
  }
  return NotPartitionType(column, type);
}

Result<JsonValue> ParsePartitionValue(std::string_view column, const Type& type,
                                      const JsonValue& entry) {
  if (entry.is_null()) return ParsePartitionValue(column, type, std::nullopt);
  if (!entry.is_string()) {
    return InvalidArgument(fmt::format("partitionValues.{} at byte {}: expected a string or null",
                                       EscapeForMessage(column), entry.offset()));
  }
  return ParsePartitionValue(column, type, std::string_view(entry.as_string()));
}

}  // namespace sluice::table
