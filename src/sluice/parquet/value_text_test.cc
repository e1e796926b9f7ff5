// The canonical text of each value shape, and how a leaf's annotation picks it.
#include "sluice/parquet/value_text.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "sluice/parquet/reader_testing.h"

namespace sluice::parquet {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

template <class F>
std::string Text(F&& f) {
  std::string out;
  f(out);
  return out;
}

std::string Json(std::string_view s) {
  return Text([&](std::string& o) { AppendJsonText(o, s); });
}

TEST(ValueTextTest, CivilDatesAcrossErasAndLeapDays) {
  auto date = [](int64_t days) { return Text([&](std::string& o) { AppendDate(o, days); }); };
  EXPECT_EQ(date(0), R"("1970-01-01")");
  EXPECT_EQ(date(-1), R"("1969-12-31")");
  EXPECT_EQ(date(11016), R"("2000-02-29")");
  EXPECT_EQ(date(11017), R"("2000-03-01")");
  EXPECT_EQ(date(-719162), R"("0001-01-01")");
  EXPECT_EQ(date(-719163), R"("0000-12-31")");
  EXPECT_EQ(date(-719529), R"("-0001-12-31")");
  EXPECT_EQ(date(2932896), R"("9999-12-31")");
  EXPECT_EQ(date(2932897), R"("10000-01-01")");
  // 1900 is not a leap year, 1600 is.
  EXPECT_EQ(date(-25508), R"("1900-03-01")");
  EXPECT_EQ(date(-135081), R"("1600-02-29")");
  // Every day of four centuries round-trips through its month lengths.
  int64_t days = -146097 * 2;
  CivilDate prev = CivilFromDays(days - 1);
  for (; days < 146097; ++days) {
    const CivilDate d = CivilFromDays(days);
    if (d.day != 1) {
      ASSERT_EQ(d.day, prev.day + 1);
      ASSERT_EQ(d.month, prev.month);
    }
    prev = d;
  }
}

TEST(ValueTextTest, TimestampsInEveryUnit) {
  auto ts = [](int64_t v, TimeUnit u, bool utc) {
    return Text([&](std::string& o) { AppendTimestamp(o, v, u, utc); });
  };
  EXPECT_EQ(ts(0, TimeUnit::kMicros, true), R"("1970-01-01T00:00:00Z")");
  EXPECT_EQ(ts(1, TimeUnit::kMillis, true), R"("1970-01-01T00:00:00.001Z")");
  EXPECT_EQ(ts(1725885296123456, TimeUnit::kMicros, false), R"("2024-09-09T12:34:56.123456")");
  EXPECT_EQ(ts(1725885296120000, TimeUnit::kMicros, false), R"("2024-09-09T12:34:56.12")");
  EXPECT_EQ(ts(-1, TimeUnit::kNanos, true), R"("1969-12-31T23:59:59.999999999Z")");
  EXPECT_EQ(ts(-86400000, TimeUnit::kMillis, false), R"("1969-12-31T00:00:00")");
  // The ends of int64 do not overflow.
  EXPECT_EQ(ts(std::numeric_limits<int64_t>::min(), TimeUnit::kNanos, true),
            R"("1677-09-21T00:12:43.145224192Z")");
  EXPECT_EQ(ts(std::numeric_limits<int64_t>::max(), TimeUnit::kNanos, true),
            R"("2262-04-11T23:47:16.854775807Z")");
  EXPECT_THAT(ts(std::numeric_limits<int64_t>::min(), TimeUnit::kMillis, true),
              HasSubstr("-292275055-05-16T16:47:04.192Z"));
}

TEST(ValueTextTest, Int96IsJulianDayAndNanosOfDay) {
  auto int96 = [](int32_t julian, int64_t nanos) {
    Int96 v;
    std::memcpy(v.bytes.data(), &nanos, 8);
    std::memcpy(v.bytes.data() + 8, &julian, 4);
    return Text([&](std::string& o) { AppendInt96Timestamp(o, v); });
  };
  EXPECT_EQ(int96(2440588, 0), R"("1970-01-01T00:00:00Z")");
  EXPECT_EQ(int96(2440589, 3723000001000), R"("1970-01-02T01:02:03.000001Z")");
  EXPECT_EQ(int96(2440587, 86399999999999), R"("1969-12-31T23:59:59.999999999Z")");
  // Nanoseconds past the day carry into the next.
  EXPECT_EQ(int96(2440588, 86400000000000), R"("1970-01-02T00:00:00Z")");
}

TEST(ValueTextTest, TimesOfDay) {
  auto time = [](int64_t v, TimeUnit u) {
    std::string o;
    EXPECT_TRUE(AppendTime(o, v, u).has_value());
    return o;
  };
  EXPECT_EQ(time(0, TimeUnit::kMillis), R"("00:00:00")");
  EXPECT_EQ(time(45296789, TimeUnit::kMillis), R"("12:34:56.789")");
  EXPECT_EQ(time(86399999999, TimeUnit::kMicros), R"("23:59:59.999999")");
  EXPECT_EQ(time(1500, TimeUnit::kNanos), R"("00:00:00.0000015")");
  std::string o;
  EXPECT_FALSE(AppendTime(o, -1, TimeUnit::kMillis).has_value());
}

TEST(ValueTextTest, DecimalsKeepTheirScale) {
  auto dec = [](Int128 v, int s) { return Text([&](std::string& o) { AppendDecimal(o, v, s); }); };
  EXPECT_EQ(dec(1250, 2), "12.50");
  EXPECT_EQ(dec(-5, 2), "-0.05");
  EXPECT_EQ(dec(7, 0), "7");
  EXPECT_EQ(dec(0, 3), "0.000");
  EXPECT_EQ(dec(-1, 5), "-0.00001");
  const Int128 max38 = Int128(9999999999999999999ULL) * Int128(10000000000000000000ULL) +
                       Int128(9999999999999999999ULL);
  EXPECT_EQ(dec(max38, 10), "9999999999999999999999999999.9999999999");
  EXPECT_EQ(dec(-max38, 0), "-99999999999999999999999999999999999999");
  const Int128 min128 = -(Int128(1) << 126) * 2;
  EXPECT_EQ(dec(min128, 0), "-170141183460469231731687303715884105728");

  auto bytes = [](std::string_view b, int s) {
    std::string o;
    EXPECT_TRUE(AppendDecimalBytes(o, b, s).has_value());
    return o;
  };
  EXPECT_EQ(bytes("", 2), "0.00");
  EXPECT_EQ(bytes("\x04\xe2", 2), "12.50");
  EXPECT_EQ(bytes("\xff\xfb", 2), "-0.05");
  EXPECT_EQ(bytes(std::string(20, '\xff'), 1), "-0.1");
  // Longer than 16 bytes: exact digits past 128 bits.
  EXPECT_EQ(bytes(std::string("\x01") + std::string(16, '\0'), 0),
            "340282366920938463463374607431768211456");
  EXPECT_EQ(bytes(std::string("\xff") + std::string(16, '\0'), 0),
            "-340282366920938463463374607431768211456");
  std::string o;
  EXPECT_FALSE(AppendDecimalBytes(o, std::string(129, '\x11'), 0).has_value());
}

TEST(ValueTextTest, FloatsAreShortestAndNonFiniteAreStrings) {
  auto d = [](double v) { return Text([&](std::string& o) { AppendDouble(o, v); }); };
  auto f = [](float v) { return Text([&](std::string& o) { AppendFloat(o, v); }); };
  EXPECT_EQ(d(0.1), "0.1");
  EXPECT_EQ(d(-0.0), "-0");
  EXPECT_EQ(d(1e300), "1e+300");
  EXPECT_EQ(d(5e-324), "5e-324");
  EXPECT_EQ(d(std::nan("")), R"("NaN")");
  EXPECT_EQ(d(-INFINITY), R"("-Infinity")");
  EXPECT_EQ(f(0.1f), "0.1");
  EXPECT_EQ(f(3.4f), "3.4");
  EXPECT_EQ(f(16777216.0f), "16777216");
  EXPECT_EQ(f(INFINITY), R"("Infinity")");
  EXPECT_EQ(HalfToFloat(0x3C00), 1.0f);
  EXPECT_EQ(HalfToFloat(0xC000), -2.0f);
  EXPECT_EQ(HalfToFloat(0x7BFF), 65504.0f);
  EXPECT_EQ(HalfToFloat(0x0001), 0x1p-24f);
  EXPECT_TRUE(std::isinf(HalfToFloat(0x7C00)));
  EXPECT_TRUE(std::isnan(HalfToFloat(0x7E00)));
  EXPECT_TRUE(std::signbit(HalfToFloat(0x8000)));
}

TEST(ValueTextTest, StringsEscapeMinimallyAndReplaceInvalidUtf8) {
  EXPECT_EQ(Json("plain"), R"("plain")");
  EXPECT_EQ(Json("a\"b\\c\n\t\x01\x1f"), R"("a\"b\\c\n\t\u0001\u001f")");
  EXPECT_EQ(Json("\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80/<>"),
            "\"\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80/<>\"");
  // Each maximal invalid subsequence becomes one U+FFFD, as a WHATWG decoder reads them.
  const std::string fffd = "\xef\xbf\xbd";
  EXPECT_EQ(Json("a\xff"
                 "b"),
            "\"a" + fffd + "b\"");
  EXPECT_EQ(Json("\xe2\x82"), "\"" + fffd + "\"");                    // truncated sequence
  EXPECT_EQ(Json("\xe2\x82x"), "\"" + fffd + "x\"");                  // cut short by ASCII
  EXPECT_EQ(Json("\xc0\xaf"), "\"" + fffd + fffd + "\"");             // overlong
  EXPECT_EQ(Json("\xed\xa0\x80"), "\"" + fffd + fffd + fffd + "\"");  // surrogate
  EXPECT_EQ(Json("\xf4\x90\x80\x80"), "\"" + fffd + fffd + fffd + fffd + "\"");  // > U+10FFFF
  // Long ASCII runs take the word-at-a-time path; the escape after them is still found.
  EXPECT_EQ(Json(std::string(37, 'x') + "\"" + std::string(9, 'y')),
            "\"" + std::string(37, 'x') + "\\\"" + std::string(9, 'y') + "\"");
}

TEST(ValueTextTest, BinaryAndUuid) {
  auto b64 = [](std::string_view b) {
    return Text([&](std::string& o) { AppendBase64Json(o, b); });
  };
  EXPECT_EQ(b64(""), R"("")");
  EXPECT_EQ(b64("f"), R"("Zg==")");
  EXPECT_EQ(b64("fo"), R"("Zm8=")");
  EXPECT_EQ(b64("foo"), R"("Zm9v")");
  EXPECT_EQ(b64(std::string_view("\xff\xfe\xfd\x00", 4)), R"("//79AA==")");
  EXPECT_EQ(Text([](std::string& o) {
              AppendUuid(o, "\x12\x3e\x45\x67\xe8\x9b\x12\xd3\xa4\x56\x42\x66\x14\x17\x40\x00");
            }),
            R"("123e4567-e89b-12d3-a456-426614174000")");
}

SchemaElement Leaf(PhysicalType t, std::optional<LogicalType> lt = std::nullopt,
                   std::optional<ConvertedType> ct = std::nullopt, int32_t length = 0) {
  SchemaElement e;
  e.name = "x";
  e.type = t;
  e.repetition = Repetition::kOptional;
  e.logical_type = lt;
  e.converted_type = ct;
  if (length > 0) e.type_length = length;
  return e;
}

LogicalType Logical(LogicalType::Kind k) {
  LogicalType t;
  t.kind = k;
  return t;
}

TEST(ValueTextTest, AnnotationsPickTheFormat) {
  using K = ValueFormat::Kind;
  auto kind = [](const SchemaElement& e) {
    auto f = ResolveValueFormat(e);
    EXPECT_TRUE(f.has_value()) << (f ? "" : f.error().ToString());
    return f ? f->kind : K::kNull;
  };
  EXPECT_EQ(kind(Leaf(PhysicalType::kInt96)), K::kInt96Timestamp);
  EXPECT_EQ(kind(Leaf(PhysicalType::kByteArray)), K::kBinary);
  EXPECT_EQ(kind(Leaf(PhysicalType::kByteArray, std::nullopt, ConvertedType::kUtf8)), K::kString);
  EXPECT_EQ(kind(Leaf(PhysicalType::kByteArray, Logical(LogicalType::Kind::kJson))), K::kString);
  EXPECT_EQ(kind(Leaf(PhysicalType::kInt64, std::nullopt, ConvertedType::kUint64)), K::kUint64);
  EXPECT_EQ(kind(Leaf(PhysicalType::kInt32, std::nullopt, ConvertedType::kUint8)), K::kUint32);
  EXPECT_EQ(kind(Leaf(PhysicalType::kFixedLenByteArray, Logical(LogicalType::Kind::kUuid),
                      std::nullopt, 16)),
            K::kUuid);
  EXPECT_EQ(kind(Leaf(PhysicalType::kFixedLenByteArray, Logical(LogicalType::Kind::kFloat16),
                      std::nullopt, 2)),
            K::kFloat16);
  EXPECT_EQ(kind(Leaf(PhysicalType::kInt32, Logical(LogicalType::Kind::kUnknown))), K::kNull);
  auto legacy =
      ResolveValueFormat(Leaf(PhysicalType::kInt64, std::nullopt, ConvertedType::kTimestampMillis));
  ASSERT_TRUE(legacy.has_value());
  EXPECT_EQ(legacy->kind, K::kTimestamp);
  EXPECT_EQ(legacy->unit, TimeUnit::kMillis);
  EXPECT_TRUE(legacy->utc);

  // Annotations a physical type cannot carry.
  EXPECT_FALSE(ResolveValueFormat(Leaf(PhysicalType::kByteArray, Logical(LogicalType::Kind::kDate)))
                   .has_value());
  EXPECT_FALSE(ResolveValueFormat(Leaf(PhysicalType::kFixedLenByteArray,
                                       Logical(LogicalType::Kind::kUuid), std::nullopt, 8))
                   .has_value());
  SchemaElement scale = Leaf(PhysicalType::kInt64, std::nullopt, ConvertedType::kDecimal);
  scale.scale = -1;
  EXPECT_FALSE(ResolveValueFormat(scale).has_value());
  scale.scale = 100000;
  EXPECT_FALSE(ResolveValueFormat(scale).has_value());
}

TEST(ValueTextTest, StatisticsValuesRenderAsValues) {
  ValueFormat dec;
  dec.kind = ValueFormat::Kind::kDecimal;
  dec.scale = 2;
  auto v = RenderStatisticsValue(dec, PhysicalType::kInt32, testing::Plain<int32_t>({-5}));
  ASSERT_TRUE(v.has_value());
  EXPECT_EQ(*v, "-0.05");
  ValueFormat str;
  str.kind = ValueFormat::Kind::kString;
  EXPECT_EQ(RenderStatisticsValue(str, PhysicalType::kByteArray, "a\"").value_or(""), R"("a\"")");
  EXPECT_FALSE(RenderStatisticsValue(dec, PhysicalType::kInt32, "abc").has_value());
}

// Every value type through a file: the annotations as writers write them.
TEST(ValueTextTest, EveryTypeThroughAFile) {
  testing::FileSpec spec;
  spec.schema = R"(message m {
    required int32 i8 (INTEGER(8,true));
    required int32 u32 (INTEGER(32,false));
    required int64 u64 (INTEGER(64,false));
    required int32 d (DATE);
    required int32 t (TIME(MILLIS,true));
    required int64 tn (TIME(NANOS,false));
    required int64 ts (TIMESTAMP(MILLIS,true));
    required int64 ntz (TIMESTAMP(NANOS,false));
    required int96 legacy;
    required int64 dec (DECIMAL(18,3));
    required fixed_len_byte_array(16) id (UUID);
    required fixed_len_byte_array(2) half (FLOAT16);
    required binary raw;
    required binary e (ENUM);
    optional int32 nothing (UNKNOWN);
  })";
  auto page = [](std::string values) {
    testing::PageSpec p;
    p.values = std::move(values);
    p.num_values = 1;
    return testing::ChunkSpec{{p}};
  };
  Int96 legacy;
  const int64_t nanos = 1000;
  const int32_t julian = 2440588;
  std::memcpy(legacy.bytes.data(), &nanos, 8);
  std::memcpy(legacy.bytes.data() + 8, &julian, 4);
  testing::PageSpec nothing;
  nothing.def = {0};
  spec.row_groups = {
      {page(testing::Plain<int32_t>({-128})), page(testing::Plain<int32_t>({-1})),
       page(testing::Plain<int64_t>({-1})), page(testing::Plain<int32_t>({19975})),
       page(testing::Plain<int32_t>({3723004})), page(testing::Plain<int64_t>({1000})),
       page(testing::Plain<int64_t>({1725885296123})), page(testing::Plain<int64_t>({-1})),
       page(testing::Plain<Int96>({legacy})), page(testing::Plain<int64_t>({-123456})),
       page(std::string("\x12\x3e\x45\x67\xe8\x9b\x12\xd3\xa4\x56\x42\x66\x14\x17"
                        "\x40\x00",
                        16)),
       page(std::string("\x00\x3c", 2)), page(testing::PlainStrings({"\x01\x02"})),
       page(testing::PlainStrings({"RED"})), testing::ChunkSpec{{nothing}}}};
  spec.num_rows = {1};
  auto rows = testing::ReadRows(testing::BuildFile(spec));
  ASSERT_TRUE(rows.has_value()) << rows.error().ToString();
  EXPECT_THAT(*rows, ElementsAre(R"({"i8":-128,"u32":4294967295,"u64":18446744073709551615,)"
                                 R"("d":"2024-09-09","t":"01:02:03.004","tn":"00:00:00.000001",)"
                                 R"("ts":"2024-09-09T12:34:56.123Z",)"
                                 R"("ntz":"1969-12-31T23:59:59.999999999",)"
                                 R"("legacy":"1970-01-01T00:00:00.000001Z","dec":-123.456,)"
                                 R"("id":"123e4567-e89b-12d3-a456-426614174000","half":1,)"
                                 R"("raw":"AQI=","e":"RED","nothing":null})"));
}

}  // namespace
}  // namespace sluice::parquet
