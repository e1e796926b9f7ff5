// Values as Parquet stores them, from the text forms the validator accepts and writes: Spark's
// lenient dates and timestamps, times of day, decimals, Java's float syntax, base64 and uuids.
// Only for the data module (the Parquet record sink and its tests).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "sluice/data/lexical_internal.h"
#include "sluice/schema/type.h"

namespace sluice::data::internal {

// A decimal's unscaled value needs 38 digits: 128-bit integers (a GCC and Clang extension).
__extension__ typedef __int128 Int128;
__extension__ typedef unsigned __int128 UInt128;

/// Days from 1970-01-01 to a date of the proleptic Gregorian calendar.
int64_t DaysFromCivil(int64_t year, int month, int day);

/// Seconds east of UTC of a zone as Spark's lenient parser reads it: `Z`, `+h`, `+hh`, `+hh:mm`,
/// `+hhmm`, `+hh:mm:ss` (and `-`), `UTC` / `GMT` / `UT` alone or with such an offset, and the
/// fixed region ids `Etc/UTC`, `Etc/GMT`, `Etc/GMT+h` (POSIX sign: west), `UCT`, `Zulu`...
/// False for other region ids (their offsets need a time-zone database).
bool FixedZoneOffset(std::string_view zone, int32_t* seconds);

/// Spark's lenient timestamp text (stringToTimestamp) as `unit`s since the epoch: a text with a
/// zone is converted to UTC; one without is read in UTC (for `timestamp`, the session zone of a
/// UTC job) or as the wall clock (`timestamp_ntz`, `local`); a time alone gets the current date,
/// as Spark gives it. Fraction digits past the unit are dropped. False with `*why` set for text
/// the parser refuses, a zone it cannot resolve, or a value past the int64 range of the unit.
bool TimestampFromText(std::string_view text, schema::TimeUnit unit, bool local, int64_t* out,
                       const char** why);
/// Seconds since the epoch (an integer read into a timestamp) as `unit`s; false on overflow.
bool TimestampFromSeconds(int64_t seconds, schema::TimeUnit unit, int64_t* out);

/// Spark's lenient date text (stringToDate) as days since the epoch; false when refused or past
/// the int32 range.
bool DateFromText(std::string_view text, int32_t* days);
/// The two above for fields ParseLenientTimestamp or ParseLenientDate read.
bool TimestampFromFields(const DateTimeFields& f, schema::TimeUnit unit, bool local, int64_t* out,
                         const char** why);
bool DateFromFields(const DateTimeFields& f, int32_t* days);

/// A time of day `[h]h:mm[:ss[.fraction]]` (fraction 1..9 digits) as `unit`s since midnight.
bool TimeFromText(std::string_view text, schema::TimeUnit unit, int64_t* out);

/// `8-4-4-4-12` hex digits (either case) as the uuid's 16 bytes, most significant first.
bool UuidFromText(std::string_view text, char out[16]);

/// Standard base64 (RFC 4648 alphabet), padded or not, into `out` (replaced). False for any
/// other character, misplaced padding or a length no encoding has.
bool Base64FromText(std::string_view text, std::string& out);

/// `new java.math.BigDecimal(text).setScale(scale, HALF_UP)` as its unscaled value: an optional
/// sign, digits with an optional point, an optional exponent. False when `text` is no such
/// number or the value needs more than `precision` digits.
bool DecimalFromText(std::string_view text, int precision, int scale, Int128* unscaled);
/// The same without the 64-bit shortcut DecimalFromText takes for ordinary values (every
/// digit kept, any exponent, rounding): what the shortcut is tested against.
bool DecimalFromTextGeneral(std::string_view text, int precision, int scale, Int128* unscaled);

/// Write `v` as a big-endian two's complement integer of `width` bytes (1..16) to `out`; `v`
/// must fit.
void DecimalToBytes(Int128 v, int width, char* out);

/// Java's Double.parseDouble / Float.parseFloat (surrounding whitespace, a sign, `NaN`,
/// `Infinity`, decimal and hex literals, an f/F/d/D suffix), plus the validator's `INF`,
/// `+INF`, `-INF`: the value, rounded once to the type. False for other text.
bool DoubleFromText(std::string_view text, double* out);
bool FloatFromText(std::string_view text, float* out);

}  // namespace sluice::data::internal
