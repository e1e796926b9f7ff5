// PLAIN, dictionary and BYTE_STREAM_SPLIT, and MakeDecoder's choice of decoder. The RLE hybrid
// and the delta encodings have their own test files.
#include "sluice/parquet/encoding.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "sluice/parquet/byte_stream_split.h"
#include "sluice/parquet/delta.h"
#include "sluice/parquet/dictionary.h"
#include "sluice/parquet/plain.h"
#include "sluice/parquet/rle.h"

namespace sluice::parquet {
namespace {

std::string Bytes(std::initializer_list<int> bytes) {
  std::string s;
  for (int b : bytes) s.push_back(static_cast<char>(b));
  return s;
}

DecoderOptions Options(PhysicalType type, int32_t type_length = 0, size_t page_offset = 0) {
  DecoderOptions options;
  options.type = type;
  options.type_length = type_length;
  options.page_offset = page_offset;
  return options;
}

// Values a decoder rebuilds live as long as it does: keep every decoder for the binary's life.
std::vector<std::shared_ptr<void>>& KeptDecoders() {
  static std::vector<std::shared_ptr<void>> kept;
  return kept;
}

template <class T>
Result<std::vector<T>> DecodeAll(Encoding encoding, std::string_view data, size_t n,
                                 const DecoderOptions& options, std::span<const T> dict = {}) {
  SLUICE_ASSIGN_OR_RETURN(auto decoder, MakeDecoder<T>(encoding, data, options, dict));
  // Not std::vector<T>'s storage: std::vector<bool> has none.
  std::unique_ptr<T[]> out(new T[n]);
  // Odd batch sizes cross every internal boundary.
  for (size_t i = 0; i < n; i += 37) {
    SLUICE_TRY(decoder->Decode(out.get() + i, std::min<size_t>(37, n - i)));
  }
  KeptDecoders().push_back(std::shared_ptr<ValueDecoder<T>>(std::move(decoder)));
  return std::vector<T>(out.get(), out.get() + n);
}

TEST(PlainTest, FixedWidthValuesAreLittleEndian) {
  std::string out;
  PlainEncode(std::vector<int32_t>{1, -2}, out);
  EXPECT_EQ(out, Bytes({1, 0, 0, 0, 0xfe, 0xff, 0xff, 0xff}));
  out.clear();
  PlainEncode(std::vector<double>{1.0}, out);
  EXPECT_EQ(out, Bytes({0, 0, 0, 0, 0, 0, 0xf0, 0x3f}));
  out.clear();
  Int96 v;
  for (int i = 0; i < 12; ++i) v.bytes[i] = uint8_t(i + 1);
  PlainEncode(std::vector<Int96>{v}, out);
  EXPECT_EQ(out, Bytes({1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12}));
  EXPECT_EQ(v.julian_day(), 0x0c0b0a09);
  EXPECT_EQ(DecodeAll<Int96>(Encoding::kPlain, out, 1, Options(PhysicalType::kInt96)).value()[0],
            v);
}

template <class T>
void PlainRoundTrip(PhysicalType type) {
  std::mt19937_64 rng(1);
  for (size_t n : {0, 1, 7, 8, 9, 1000}) {
    std::vector<T> values(n);
    for (auto& v : values) {
      uint64_t bits = rng();
      std::memcpy(&v, &bits, sizeof(T));
    }
    std::string data;
    PlainEncode(std::span<const T>(values), data);
    ASSERT_EQ(data.size(), n * sizeof(T));
    auto got = DecodeAll<T>(Encoding::kPlain, data, n, Options(type));
    ASSERT_TRUE(got.has_value());
    // Compare bit patterns: NaNs are values too.
    ASSERT_TRUE(n == 0 || std::memcmp(got->data(), values.data(), n * sizeof(T)) == 0);
  }
}

TEST(PlainTest, RoundTripsEveryFixedWidthType) {
  PlainRoundTrip<int32_t>(PhysicalType::kInt32);
  PlainRoundTrip<int64_t>(PhysicalType::kInt64);
  PlainRoundTrip<float>(PhysicalType::kFloat);
  PlainRoundTrip<double>(PhysicalType::kDouble);
}

TEST(PlainTest, BooleansAreBitPackedLsbFirstAcrossBatches) {
  PlainBooleanEncoder encoder;
  encoder.Put(true);
  encoder.Put(true);
  const bool rest[] = {true, false, false, false, true};
  encoder.Put(std::span<const bool>(rest));
  EXPECT_EQ(encoder.num_values(), 7u);
  std::string out;
  encoder.FlushTo(out);
  EXPECT_EQ(out, Bytes({0x47}));  // 1,1,1,0,0,0,1 -> 0b1000111
  std::mt19937 rng(2);
  const size_t n = 1001;
  std::unique_ptr<bool[]> values(new bool[n]);
  for (size_t i = 0; i < n; ++i) values[i] = rng() % 2;
  encoder.Put(std::span<const bool>(values.get(), 3));
  encoder.Put(std::span<const bool>(values.get() + 3, n - 3));
  out.clear();
  encoder.FlushTo(out);
  EXPECT_EQ(out.size(), 126u);
  auto got = DecodeAll<bool>(Encoding::kPlain, out, n, Options(PhysicalType::kBoolean));
  ASSERT_TRUE(got.has_value());
  for (size_t i = 0; i < n; ++i) ASSERT_EQ((*got)[i], values[i]) << i;
  // 1008 bits hold 1008 values, not 1009.
  EXPECT_TRUE(DecodeAll<bool>(Encoding::kPlain, out, 1008, Options(PhysicalType::kBoolean)));
  EXPECT_FALSE(DecodeAll<bool>(Encoding::kPlain, out, 1009, Options(PhysicalType::kBoolean)));
}

TEST(PlainTest, ByteArraysAreLengthPrefixedViewsIntoThePage) {
  std::string data;
  ASSERT_TRUE(PlainEncodeByteArrays(std::vector<std::string_view>{"ab", "", "xyz"}, data));
  EXPECT_EQ(data, Bytes({2, 0, 0, 0, 'a', 'b', 0, 0, 0, 0, 3, 0, 0, 0, 'x', 'y', 'z'}));
  // A type_length given with BYTE_ARRAY is ignored.
  auto got =
      DecodeAll<std::string_view>(Encoding::kPlain, data, 3, Options(PhysicalType::kByteArray, 2));
  ASSERT_TRUE(got.has_value());
  EXPECT_EQ((*got)[2], "xyz");
  EXPECT_EQ((*got)[2].data(), data.data() + 14);
}

TEST(PlainTest, EveryByteArrayLengthIsChecked) {
  std::string data;
  ASSERT_TRUE(PlainEncodeByteArrays(std::vector<std::string_view>{"ab", "cdef"}, data));
  for (size_t cut = 0; cut < data.size(); ++cut) {
    auto got = DecodeAll<std::string_view>(Encoding::kPlain, data.substr(0, cut), 2,
                                           Options(PhysicalType::kByteArray, 0, 100));
    ASSERT_FALSE(got.has_value()) << cut;
  }
  const std::string huge = Bytes({0xff, 0xff, 0xff, 0x7f, 'a'});
  auto got = DecodeAll<std::string_view>(Encoding::kPlain, huge, 1,
                                         Options(PhysicalType::kByteArray, 0, 100));
  ASSERT_FALSE(got.has_value());
  EXPECT_EQ(got.error().message(),
            "byte offset 100: PLAIN BYTE_ARRAY: length 2147483647 passes the end of the data (1 "
            "bytes remain)");
}

TEST(PlainTest, FixedLenByteArrays) {
  std::string data;
  ASSERT_TRUE(PlainEncodeFixedLenByteArrays(std::vector<std::string_view>{"abc", "def"}, 3, data));
  EXPECT_EQ(data, "abcdef");
  EXPECT_FALSE(PlainEncodeFixedLenByteArrays(std::vector<std::string_view>{"ab"}, 3, data));
  auto got = DecodeAll<std::string_view>(Encoding::kPlain, data, 2,
                                         Options(PhysicalType::kFixedLenByteArray, 3));
  EXPECT_EQ(got.value()[1], "def");
  EXPECT_FALSE(DecodeAll<std::string_view>(Encoding::kPlain, data, 3,
                                           Options(PhysicalType::kFixedLenByteArray, 3)));
  // A FIXED_LEN_BYTE_ARRAY without a width is refused.
  EXPECT_FALSE(DecodeAll<std::string_view>(Encoding::kPlain, data, 0,
                                           Options(PhysicalType::kFixedLenByteArray, 0)));
}

TEST(PlainTest, CountsPastTheDataFailBeforeReading) {
  std::string data(12, '\0');
  auto decoder = PlainDecoder<int64_t>::Make(data, Options(PhysicalType::kInt64, 0, 8));
  std::vector<int64_t> out(1);
  auto status = decoder->Decode(out.data(), size_t{1} << 61);  // n * 8 would overflow
  ASSERT_FALSE(status.has_value());
  EXPECT_NE(status.error().message().find("byte offset 8: PLAIN INT64"), std::string::npos);
}

TEST(DictionaryTest, BuilderNumbersValuesInFirstSeenOrder) {
  DictionaryBuilder<int64_t> builder;
  std::vector<uint32_t> indexes;
  builder.Put(std::vector<int64_t>{7, 3, 7, 7, -1, 3}, indexes);
  EXPECT_EQ(indexes, (std::vector<uint32_t>{0, 1, 0, 0, 2, 1}));
  EXPECT_EQ(builder.size(), 3u);
  EXPECT_EQ(builder.dictionary_page_bytes(), 24u);
  EXPECT_EQ(builder.index_bit_width(), 2);
  std::string page;
  builder.WriteDictionaryPage(page);
  auto dict = DecodeDictionaryPage<int64_t>(page, 3, Options(PhysicalType::kInt64));
  EXPECT_EQ(dict.value(), (std::vector<int64_t>{7, 3, -1}));
  builder.Clear();
  EXPECT_EQ(builder.Put(3), 0u);
}

TEST(DictionaryTest, FloatsAreKeyedByBitPattern) {
  DictionaryBuilder<double> builder;
  const double nan = std::numeric_limits<double>::quiet_NaN();
  EXPECT_EQ(builder.Put(0.0), 0u);
  EXPECT_EQ(builder.Put(-0.0), 1u);
  EXPECT_EQ(builder.Put(nan), 2u);
  EXPECT_EQ(builder.Put(nan), 2u);
  EXPECT_EQ(builder.Put(-nan), 3u);
  EXPECT_EQ(builder.Put(0.0), 0u);
}

TEST(DictionaryTest, ManyDistinctValuesGrowTheTable) {
  DictionaryBuilder<int32_t> builder;
  for (int32_t i = 0; i < 100'000; ++i) ASSERT_EQ(builder.Put(i * 7919), uint32_t(i));
  for (int32_t i = 0; i < 100'000; i += 999) ASSERT_EQ(builder.Put(i * 7919), uint32_t(i));
  EXPECT_EQ(builder.index_bit_width(), 17);
}

TEST(DictionaryTest, ByteArrayEntriesAreCopiedAndCounted) {
  DictionaryBuilder<std::string_view> builder;
  std::string buffer = "apple";
  EXPECT_EQ(builder.Put(buffer), 0u);
  buffer = "berry";
  EXPECT_EQ(builder.Put(buffer), 1u);
  EXPECT_EQ(builder.Put("apple"), 0u);
  EXPECT_EQ(builder.values()[0], "apple");
  EXPECT_EQ(builder.dictionary_page_bytes(), 2u * (4 + 5));
  std::string page;
  ASSERT_TRUE(builder.WriteDictionaryPage(page));
  auto dict = DecodeDictionaryPage<std::string_view>(page, 2, Options(PhysicalType::kByteArray));
  EXPECT_EQ(dict.value(), (std::vector<std::string_view>{"apple", "berry"}));
  // Many entries: their views stay valid as storage grows.
  for (int i = 0; i < 10'000; ++i) builder.Put("value-" + std::to_string(i));
  EXPECT_EQ(builder.values()[0], "apple");
  EXPECT_EQ(builder.values()[10'001], "value-9999");
  EXPECT_EQ(builder.Put("value-1234"), 1236u);
}

TEST(DictionaryTest, FixedLenEntriesHaveNoLengthPrefix) {
  DictionaryBuilder<std::string_view> builder(4);
  builder.Put("abcd");
  builder.Put("efgh");
  EXPECT_EQ(builder.dictionary_page_bytes(), 8u);
  std::string page;
  ASSERT_TRUE(builder.WriteDictionaryPage(page));
  EXPECT_EQ(page, "abcdefgh");
  builder.Put("toolong");
  EXPECT_FALSE(builder.WriteDictionaryPage(page));
}

TEST(DictionaryTest, IndexesRoundTripThroughTheDecoder) {
  std::mt19937 rng(4);
  DictionaryBuilder<std::string_view> builder;
  const std::vector<std::string> words = {"red", "green", "blue", "cyan", "magenta"};
  std::vector<uint32_t> indexes;
  std::vector<std::string_view> values;
  for (int i = 0; i < 5000; ++i) {
    values.push_back(words[i % 97 < 50 ? 0 : rng() % words.size()]);
    indexes.push_back(builder.Put(values.back()));
  }
  std::string data;
  EncodeDictionaryIndexes(indexes, builder.index_bit_width(), data);
  EXPECT_EQ(data[0], 3);  // five entries: indexes 0..4 need 3 bits
  auto got = DecodeAll<std::string_view>(Encoding::kRleDictionary, data, values.size(),
                                         Options(PhysicalType::kByteArray), builder.values());
  ASSERT_TRUE(got.has_value()) << got.error().message();
  EXPECT_EQ(*got, values);
}

TEST(DictionaryTest, OneEntryDictionaryUsesBitWidthZero) {
  DictionaryBuilder<float> builder;
  std::vector<uint32_t> indexes;
  builder.Put(std::vector<float>(100, 2.5f), indexes);
  EXPECT_EQ(builder.index_bit_width(), 0);
  std::string data;
  EncodeDictionaryIndexes(indexes, 0, data);
  EXPECT_EQ(data, Bytes({0, 0xc8, 0x01}));  // width 0, a run of 100
  auto got = DecodeAll<float>(Encoding::kRleDictionary, data, 100, Options(PhysicalType::kFloat),
                              builder.values());
  EXPECT_EQ(got.value()[99], 2.5f);
}

TEST(DictionaryTest, IndexesPastTheDictionaryFail) {
  std::string data;
  EncodeDictionaryIndexes(std::vector<uint32_t>{0, 1, 2, 3}, 2, data);
  const std::vector<int32_t> dict = {10, 20, 30};
  auto got = DecodeAll<int32_t>(Encoding::kRleDictionary, data, 4, Options(PhysicalType::kInt32),
                                std::span<const int32_t>(dict));
  ASSERT_FALSE(got.has_value());
  EXPECT_NE(got.error().message().find("dictionary index 3 (value 3) is not below the "
                                       "dictionary's 3 entries"),
            std::string::npos)
      << got.error().message();
  // No dictionary at all.
  EXPECT_FALSE(
      DecodeAll<int32_t>(Encoding::kRleDictionary, data, 1, Options(PhysicalType::kInt32)));
  // A bit width above 32, or no bit-width byte.
  EXPECT_FALSE(DictionaryDecoder<int32_t>::Make(dict, Bytes({33, 0}), 0).has_value());
  EXPECT_FALSE(DictionaryDecoder<int32_t>::Make(dict, "", 0).has_value());
}

TEST(DictionaryTest, PageTooShortForItsCountFailsBeforeAllocating) {
  auto got = DecodeDictionaryPage<int64_t>(std::string(16, '\0'), 0x7fffffff,
                                           Options(PhysicalType::kInt64, 0, 30));
  ASSERT_FALSE(got.has_value());
  EXPECT_EQ(got.error().message(),
            "byte offset 30: a dictionary page of 16 bytes cannot hold 2147483647 INT64 values of "
            "8 bytes or more");
  EXPECT_FALSE(DecodeDictionaryPage<std::string_view>(std::string(16, '\0'), 5,
                                                      Options(PhysicalType::kByteArray)));
  EXPECT_FALSE(DecodeDictionaryPage<int32_t>("", -1, Options(PhysicalType::kInt32)).has_value());
}

// Encodings.md: three floats AA BB CC DD, 00 11 22 33, A3 B4 C5 D6 become
// AA 00 A3 BB 11 B4 CC 22 C5 DD 33 D6.
TEST(ByteStreamSplitTest, SpecExampleExactBytes) {
  const std::string raw =
      Bytes({0xaa, 0xbb, 0xcc, 0xdd, 0x00, 0x11, 0x22, 0x33, 0xa3, 0xb4, 0xc5, 0xd6});
  std::vector<float> values(3);
  std::memcpy(values.data(), raw.data(), 12);
  std::string out;
  ByteStreamSplitEncode<float>(values, out);
  EXPECT_EQ(out, Bytes({0xaa, 0x00, 0xa3, 0xbb, 0x11, 0xb4, 0xcc, 0x22, 0xc5, 0xdd, 0x33, 0xd6}));
  auto got = DecodeAll<float>(Encoding::kByteStreamSplit, out, 3, Options(PhysicalType::kFloat));
  ASSERT_TRUE(got.has_value());
  EXPECT_EQ(std::memcmp(got->data(), raw.data(), 12), 0);
  // The same bytes as three 4-byte FIXED_LEN_BYTE_ARRAY values.
  auto fixed = DecodeAll<std::string_view>(Encoding::kByteStreamSplit, out, 3,
                                           Options(PhysicalType::kFixedLenByteArray, 4));
  EXPECT_EQ(fixed.value()[1], raw.substr(4, 4));
}

template <class T>
void SplitRoundTrip(PhysicalType type) {
  std::mt19937_64 rng(6);
  std::vector<T> values(1001);
  for (auto& v : values) {
    uint64_t bits = rng();
    std::memcpy(&v, &bits, sizeof(T));
  }
  std::string data;
  ByteStreamSplitEncode<T>(values, data);
  auto got = DecodeAll<T>(Encoding::kByteStreamSplit, data, values.size(), Options(type));
  ASSERT_TRUE(got.has_value());
  EXPECT_EQ(std::memcmp(got->data(), values.data(), values.size() * sizeof(T)), 0);
  EXPECT_FALSE(DecodeAll<T>(Encoding::kByteStreamSplit, data, values.size() + 1, Options(type)));
}

TEST(ByteStreamSplitTest, RoundTripsEveryType) {
  SplitRoundTrip<float>(PhysicalType::kFloat);
  SplitRoundTrip<double>(PhysicalType::kDouble);
  SplitRoundTrip<int32_t>(PhysicalType::kInt32);
  SplitRoundTrip<int64_t>(PhysicalType::kInt64);
  std::vector<std::string_view> values = {"abcde", "fghij", "klmno"};
  std::string data;
  ASSERT_TRUE(ByteStreamSplitEncodeFixedLenByteArrays(values, 5, data));
  EXPECT_EQ(data.substr(0, 3), "afk");
  auto got = DecodeAll<std::string_view>(Encoding::kByteStreamSplit, data, 3,
                                         Options(PhysicalType::kFixedLenByteArray, 5));
  EXPECT_EQ(got.value(), values);
}

TEST(ByteStreamSplitTest, DataNotAWholeNumberOfValuesFails) {
  auto got = DecodeAll<double>(Encoding::kByteStreamSplit, std::string(12, 'x'), 1,
                               Options(PhysicalType::kDouble, 0, 9));
  ASSERT_FALSE(got.has_value());
  EXPECT_EQ(got.error().message(),
            "byte offset 9: BYTE_STREAM_SPLIT data of 12 bytes is not a whole number of 8-byte "
            "values");
}

TEST(MakeDecoderTest, RleBooleansAreLengthPrefixed) {
  RleEncoder encoder(1);
  for (int i = 0; i < 100; ++i) encoder.Put(i % 3 == 0);
  std::string data;
  encoder.FlushWithLengthTo(data);
  auto got = DecodeAll<bool>(Encoding::kRle, data, 100, Options(PhysicalType::kBoolean));
  ASSERT_TRUE(got.has_value());
  for (int i = 0; i < 100; ++i) ASSERT_EQ((*got)[i], i % 3 == 0);
}

TEST(MakeDecoderTest, PicksTheDeltaDecoders) {
  DeltaBinaryPackedEncoder<int64_t> ints;
  ints.Put(std::vector<int64_t>{5, -5, 50});
  std::string data;
  ints.FlushTo(data);
  EXPECT_EQ(DecodeAll<int64_t>(Encoding::kDeltaBinaryPacked, data, 3, Options(PhysicalType::kInt64))
                .value(),
            (std::vector<int64_t>{5, -5, 50}));
  DeltaLengthByteArrayEncoder strings;
  strings.Put("one");
  strings.Put("two");
  data.clear();
  strings.FlushTo(data);
  EXPECT_EQ(DecodeAll<std::string_view>(Encoding::kDeltaLengthByteArray, data, 2,
                                        Options(PhysicalType::kByteArray))
                .value()[1],
            "two");
}

TEST(MakeDecoderTest, RefusesEncodingsTheTypeCannotHave) {
  auto wrong =
      MakeDecoder<double>(Encoding::kDeltaBinaryPacked, "", Options(PhysicalType::kDouble));
  ASSERT_FALSE(wrong.has_value());
  EXPECT_EQ(wrong.error().message(),
            "byte offset 0: DOUBLE values cannot be encoded as DELTA_BINARY_PACKED");
  EXPECT_FALSE(MakeDecoder<int32_t>(Encoding::kRle, "", Options(PhysicalType::kInt32)));
  EXPECT_FALSE(MakeDecoder<std::string_view>(Encoding::kDeltaLengthByteArray, "",
                                             Options(PhysicalType::kFixedLenByteArray, 4)));
  EXPECT_FALSE(MakeDecoder<std::string_view>(Encoding::kByteStreamSplit, "",
                                             Options(PhysicalType::kByteArray)));
  auto bit_packed = MakeDecoder<bool>(Encoding::kBitPacked, "", Options(PhysicalType::kBoolean));
  EXPECT_EQ(bit_packed.error().code(), ErrorCode::kUnimplemented);
  auto alp = MakeDecoder<float>(static_cast<Encoding>(10), "", Options(PhysicalType::kFloat));
  EXPECT_EQ(alp.error().code(), ErrorCode::kUnimplemented);
  auto unknown = MakeDecoder<float>(static_cast<Encoding>(99), "", Options(PhysicalType::kFloat));
  EXPECT_EQ(unknown.error().code(), ErrorCode::kInvalidArgument);
}

TEST(MakeDecoderTest, TheValueTypeMustMatchThePhysicalType) {
  auto got = MakeDecoder<int64_t>(Encoding::kPlain, "", Options(PhysicalType::kInt32));
  ASSERT_FALSE(got.has_value());
  EXPECT_EQ(got.error().message(), "a decoder of INT64 values cannot read INT32 values");
}

}  // namespace
}  // namespace sluice::parquet
