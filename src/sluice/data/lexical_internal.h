// Text recognisers the inference rules are defined by: Java's number parsers, BigDecimal
// precision/scale, java.time patterns and Spark's lenient timestamp/date parsers. Only for the
// data module.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "sluice/base/result.h"

namespace sluice::data::internal {

/// Precision and scale of `new java.math.BigDecimal(text)`.
struct DecimalShape {
  int precision = 0;
  int scale = 0;
};

/// Integer.parseInt / Long.parseLong: optional sign, ASCII digits, in range.
bool ParseJavaInt(std::string_view s);
bool ParseJavaLong(std::string_view s);
/// Double.parseDouble: surrounding whitespace (<= ' '), sign, NaN, Infinity, decimal or hex
/// floating literal, optional f/F/d/D suffix.
bool ParseJavaDouble(std::string_view s);
/// The value of a decimal or hex floating literal without whitespace, suffix or '+' (a text
/// ParseJavaDouble accepts, so trimmed), as Double.parseDouble reads it: overflow is infinite,
/// underflow zero or subnormal.
double JavaDoubleValue(std::string_view t);
/// Whether a finite double is a finite float once rounded to one, as Java's `(float) d` (and
/// so Jackson's getFloatValue) rounds it: 3.4028235e38, Float.MAX_VALUE as Java prints it, is
/// one; from 2^128 - 2^103 (half an ulp past the largest float) up, the float is infinite.
inline bool FitsFloat(double d) { return d < 0x1.ffffffp127 && d > -0x1.ffffffp127; }
/// Scala's StringOps.toBoolean: "true" or "false" in any case.
bool ParseScalaBoolean(std::string_view s);
/// `new java.math.BigDecimal(s)`; false where Java throws NumberFormatException.
bool ParseJavaBigDecimal(std::string_view s, DecimalShape* out);

/// The decimal parser Spark builds for a locale (ExprUtils.getDecimalParser and CSVInferSchema's
/// en-US special case). Known locales: en-US and the handful listed in the .cc; others are
/// kInvalidArgument when the options are built.
struct DecimalLocale {
  bool us = true;
  std::string grouping;  // non-US only
  std::string decimal;   // non-US only
};
Result<DecimalLocale> DecimalLocaleFor(std::string_view language_tag);
/// JSON's parser: en-US removes every ',' then reads a BigDecimal; other locales as
/// java.text.DecimalFormat with setParseBigDecimal(true) and a full-length match.
bool ParseLocaleDecimalJson(std::string_view s, const DecimalLocale& locale, DecimalShape* out);
/// CSV's parser: en-US is a plain BigDecimal; other locales as for JSON.
bool ParseLocaleDecimalCsv(std::string_view s, const DecimalLocale& locale, DecimalShape* out);

/// What a JSON number token is to Jackson: an int/long, a BIG_INTEGER, or a float.
enum class JsonNumberClass : uint8_t { kInvalid, kLong, kBigInteger, kFloat, kNonNumeric };
/// Classify an RFC 8259 number token (trailing whitespace allowed). NaN, Infinity, +Infinity and
/// -Infinity are kNonNumeric (Jackson's allowNonNumericNumbers). `shape` gets the BigDecimal
/// precision/scale for kBigInteger and kFloat.
JsonNumberClass ClassifyJsonNumber(std::string_view token, DecimalShape* shape);

/// Fields a date/time parser found.
struct DateTimeFields {
  int64_t year = 1970;
  int month = 1;
  int day = 1;
  int hour = 0;
  int minute = 0;
  int second = 0;
  bool has_zone = false;
  /// ParseLenientTimestamp only: the fraction of the second in nanoseconds (digits past the
  /// ninth dropped), the zone as written (a view of the parsed text, empty without one), and
  /// whether the text held a time alone (Spark gives it the current date).
  int32_t nanos = 0;
  std::string_view zone;
  bool time_only = false;
};

/// A compiled java.time.format.DateTimeFormatter pattern, for parsing only, as Spark builds it:
/// case-insensitive, strict resolution (valid days of month), missing fields defaulted, the whole
/// text must match. Supported letters: y u M L d D H k K h m s S a E X x Z z V O and quoted
/// literals; others are kInvalidArgument (Spark also rejects several of them for parsing).
class DateTimePattern {
 public:
  static Result<DateTimePattern> Compile(std::string_view pattern);
  bool Parse(std::string_view text, DateTimeFields* out) const;
  const std::string& pattern() const { return pattern_; }

  struct Element {
    char letter = 0;  // 0 for a literal
    int count = 0;
    std::string literal;
  };

 private:
  std::string pattern_;
  std::vector<Element> elements_;
};

/// Spark's lenient stringToTimestamp (the default timestamp parser when no timestampFormat is
/// set): `[+-]yyyy*[-[m]m[-[d]d]]`, then ' ' or 'T' and `[h]h[:[m]m[:[s]s[.fraction]]]` with an
/// optional zone (Z, offsets, UTC/GMT/UT forms, region ids), or a time alone.
bool ParseLenientTimestamp(std::string_view text, DateTimeFields* out);

/// Spark's stringToDate (the default date parser): `[+-]yyyy*[-[m]m[-[d]d]]`, then optionally ' '
/// or 'T' and anything, trimmed; strict days of month.
bool ParseLenientDate(std::string_view text, DateTimeFields* out);

/// The two parsers above without their fast path for `yyyy-mm-dd[( |T)hh:mm:ss[.f][Z]]`: the
/// same results, slower (for tests that hold the fast path to the general one).
bool ParseLenientTimestampGeneral(std::string_view text, DateTimeFields* out);
bool ParseLenientDateGeneral(std::string_view text, DateTimeFields* out);

}  // namespace sluice::data::internal
