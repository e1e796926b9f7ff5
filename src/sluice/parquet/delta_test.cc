#include "sluice/parquet/delta.h"

#include <gtest/gtest.h>

#include <limits>
#include <random>
#include <string>
#include <vector>

namespace sluice::parquet {
namespace {

std::string Bytes(std::initializer_list<int> bytes) {
  std::string s;
  for (int b : bytes) s.push_back(static_cast<char>(b));
  return s;
}

template <class T>
std::string EncodeDelta(const std::vector<T>& values) {
  DeltaBinaryPackedEncoder<T> encoder;
  encoder.Put(values);
  std::string out;
  encoder.FlushTo(out);
  return out;
}

template <class T>
Result<std::vector<T>> DecodeDelta(std::string_view data, size_t batch) {
  SLUICE_ASSIGN_OR_RETURN(auto decoder, DeltaBinaryPackedDecoder<T>::Make(data));
  std::vector<T> out(decoder.total_values());
  for (size_t i = 0; i < out.size(); i += batch) {
    SLUICE_TRY(decoder.Decode(out.data() + i, std::min(batch, out.size() - i)));
  }
  return out;
}

// Encodings.md's Example 1 (1, 2, 3, 4, 5), with the block size a real stream needs: 128 values
// in 4 miniblocks. Every delta is the min delta 1, so every miniblock has bit width 0 and no
// bytes.
TEST(DeltaBinaryPackedTest, SpecExampleOneExactBytes) {
  const std::string expected = Bytes({0x80, 0x01, 0x04, 0x05, 0x02,  // 128, 4, 5, zigzag(1)
                                      0x02, 0, 0, 0, 0});            // zigzag(1), widths
  EXPECT_EQ(EncodeDelta<int32_t>({1, 2, 3, 4, 5}), expected);
  EXPECT_EQ(DecodeDelta<int32_t>(expected, 5).value(), (std::vector<int32_t>{1, 2, 3, 4, 5}));
}

// Example 2 (7, 5, 3, 1, 2, 3, 4, 5): min delta -2, relative deltas 0 0 0 3 3 3 3 at bit width 2,
// here in one miniblock of 128 values (32 bytes, zero padded).
TEST(DeltaBinaryPackedTest, SpecExampleTwoDecodes) {
  std::string data = Bytes({0x80, 0x01, 0x01, 0x08, 0x0e,  // 128, 1 miniblock, 8, zigzag(7)
                            0x03, 0x02,                    // zigzag(-2), width 2
                            0xc0, 0x3f});                  // 00 00 00 11 | 11 11 11 00
  data.resize(data.size() + 30, '\0');
  EXPECT_EQ(DecodeDelta<int64_t>(data, 3).value(), (std::vector<int64_t>{7, 5, 3, 1, 2, 3, 4, 5}));
  // Our encoder writes the same values in 4 miniblocks; the first holds the 7 deltas.
  std::string ours = Bytes({0x80, 0x01, 0x04, 0x08, 0x0e, 0x03, 0x02, 0, 0, 0, 0xc0, 0x3f});
  ours.resize(ours.size() + 6, '\0');
  EXPECT_EQ(EncodeDelta<int64_t>({7, 5, 3, 1, 2, 3, 4, 5}), ours);
}

TEST(DeltaBinaryPackedTest, SpecSizedBlocksAreRefused) {
  // The spec's examples use blocks of 8 values for brevity; a real stream may not.
  auto d = DeltaBinaryPackedDecoder<int32_t>::Make(Bytes({0x08, 0x01, 0x05, 0x02, 0x02, 0x00}));
  ASSERT_FALSE(d.has_value());
  EXPECT_EQ(d.error().message(),
            "byte offset 0: DELTA_BINARY_PACKED: block size 8 is not a positive multiple of 128");
  // 128 values in 3 miniblocks do not split into multiples of 32.
  EXPECT_FALSE(
      DeltaBinaryPackedDecoder<int32_t>::Make(Bytes({0x80, 0x01, 0x03, 0x01, 0x00})).has_value());
}

template <class T>
std::vector<std::vector<T>> Samples(std::mt19937_64& rng) {
  constexpr T kMin = std::numeric_limits<T>::min();
  constexpr T kMax = std::numeric_limits<T>::max();
  std::vector<std::vector<T>> samples;
  for (size_t n : {0, 1, 2, 31, 32, 33, 127, 128, 129, 130, 257, 1000, 4096}) {
    std::vector<T> random(n), sorted(n), small(n), extreme(n);
    for (size_t i = 0; i < n; ++i) {
      random[i] = static_cast<T>(rng());
      small[i] = static_cast<T>(rng() % 17) - 8;
      extreme[i] = i % 2 == 0 ? kMin : kMax;  // every delta overflows
    }
    T v = static_cast<T>(rng() % 1000);
    for (size_t i = 0; i < n; ++i) sorted[i] = v += static_cast<T>(rng() % 50);
    samples.push_back(random);
    samples.push_back(sorted);
    samples.push_back(small);
    samples.push_back(extreme);
    samples.push_back(std::vector<T>(n, kMin));
  }
  return samples;
}

template <class T>
void RoundTrip() {
  std::mt19937_64 rng(11);
  for (const auto& values : Samples<T>(rng)) {
    const std::string encoded = EncodeDelta(values);
    for (size_t batch : {1, 7, 32, 100, 5000}) {
      auto got = DecodeDelta<T>(encoded, batch);
      ASSERT_TRUE(got.has_value()) << got.error().message();
      ASSERT_EQ(*got, values) << "n " << values.size() << " batch " << batch;
    }
    auto decoder = DeltaBinaryPackedDecoder<T>::Make(encoded);
    EXPECT_EQ(decoder->EncodedSize().value(), encoded.size());
  }
}

TEST(DeltaBinaryPackedTest, RoundTripsInt32) { RoundTrip<int32_t>(); }
TEST(DeltaBinaryPackedTest, RoundTripsInt64) { RoundTrip<int64_t>(); }

TEST(DeltaBinaryPackedTest, EveryTruncationFails) {
  std::mt19937_64 rng(5);
  std::vector<int64_t> values(300);
  for (auto& v : values) v = static_cast<int64_t>(rng() % 100000);
  const std::string encoded = EncodeDelta(values);
  for (size_t cut = 0; cut < encoded.size(); ++cut) {
    auto got = DecodeDelta<int64_t>(std::string_view(encoded).substr(0, cut), 64);
    ASSERT_FALSE(got.has_value()) << "cut " << cut;
    EXPECT_NE(got.error().message().find("byte offset"), std::string::npos);
  }
}

TEST(DeltaBinaryPackedTest, MiniblockWiderThanTheTypeFails) {
  // INT32 stream whose miniblock claims 33 bits.
  std::string data = Bytes({0x80, 0x01, 0x04, 0x03, 0x00, 0x00, 33, 0, 0, 0});
  data.resize(data.size() + 32 * 33 / 8, '\0');
  auto got = DecodeDelta<int32_t>(data, 3);
  ASSERT_FALSE(got.has_value());
  EXPECT_EQ(got.error().message(),
            "byte offset 6: DELTA_BINARY_PACKED: miniblock bit width 33 is wider than 32 bits");
  // The same stream read as INT64 is fine.
  EXPECT_TRUE(DecodeDelta<int64_t>(data, 3).has_value());
}

TEST(DeltaBinaryPackedTest, UnusedMiniblockWidthsMayBeAnything) {
  std::string data = Bytes({0x80, 0x01, 0x04, 0x03, 0x00, 0x02, 1, 0xff, 0xff, 0xff});
  data.append(4, '\xff');  // 32 values of 1 bit: the deltas 1, 1 (and padding)
  EXPECT_EQ(DecodeDelta<int32_t>(data, 3).value(), (std::vector<int32_t>{0, 2, 4}));
  auto decoder = DeltaBinaryPackedDecoder<int32_t>::Make(data);
  EXPECT_EQ(decoder->EncodedSize().value(), data.size());
}

TEST(DeltaBinaryPackedTest, HugeCountsCostNothingUntilDecoded) {
  // 2^40 values declared, every delta 0 at bit width 0: legal, and each block is 5 bytes.
  std::string data = Bytes({0x80, 0x01, 0x04, 0x80, 0x80, 0x80, 0x80, 0x80, 0x20, 0x06,  // first 3
                            0x00, 0,    0,    0,    0,    0x00, 0,    0,    0,    0});
  auto decoder = DeltaBinaryPackedDecoder<int32_t>::Make(data);
  ASSERT_TRUE(decoder.has_value());
  EXPECT_EQ(decoder->total_values(), uint64_t{1} << 40);
  std::vector<int32_t> out(257);
  ASSERT_TRUE(decoder->Decode(out.data(), 257).has_value());
  EXPECT_EQ(out[256], 3);
  // The walk to the stream's end stops at the data's end.
  auto size = decoder->EncodedSize();
  ASSERT_FALSE(size.has_value());
  EXPECT_NE(size.error().message().find("byte offset 20"), std::string::npos)
      << size.error().message();
  // Past what the data holds, decoding fails at the end of the data.
  std::vector<int32_t> more(1000);
  EXPECT_FALSE(decoder->Decode(more.data(), more.size()).has_value());
}

TEST(DeltaBinaryPackedTest, ReadingPastTheDeclaredCountFails) {
  const std::string encoded = EncodeDelta<int32_t>({1, 2, 3});
  auto decoder = DeltaBinaryPackedDecoder<int32_t>::Make(encoded);
  int32_t out[4];
  auto status = decoder->Decode(out, 4);
  ASSERT_FALSE(status.has_value());
  EXPECT_NE(status.error().message().find("4 values wanted, but the header declares 3"),
            std::string::npos);
}

std::string EncodeLengths(const std::vector<std::string_view>& values) {
  DeltaLengthByteArrayEncoder encoder;
  for (auto v : values) encoder.Put(v);
  std::string out;
  encoder.FlushTo(out);
  return out;
}

// Encodings.md: "Hello", "World", "Foobar", "ABCDEF" are DeltaEncoding(5, 5, 6, 6) then
// "HelloWorldFoobarABCDEF".
TEST(DeltaLengthByteArrayTest, SpecExample) {
  const std::string encoded = EncodeLengths({"Hello", "World", "Foobar", "ABCDEF"});
  EXPECT_EQ(encoded, EncodeDelta<int32_t>({5, 5, 6, 6}) + "HelloWorldFoobarABCDEF");
  auto decoder = DeltaLengthByteArrayDecoder::Make(encoded, 0);
  ASSERT_TRUE(decoder.has_value());
  std::string_view out[4];
  ASSERT_TRUE(decoder->Decode(out, 4).has_value());
  EXPECT_EQ(out[2], "Foobar");
  // Values are views into the page.
  EXPECT_EQ(out[3].data(), encoded.data() + encoded.size() - 6);
  EXPECT_EQ(decoder->position(), encoded.size());
}

TEST(DeltaLengthByteArrayTest, LengthsMustFitTheData) {
  std::string encoded = EncodeDelta<int32_t>({3, 10}) + "abcdefghi";
  auto decoder = DeltaLengthByteArrayDecoder::Make(encoded, 50);
  std::string_view out[2];
  auto status = decoder->Decode(out, 2);
  ASSERT_FALSE(status.has_value());
  const size_t at = 50 + encoded.size() - 9 + 3;
  EXPECT_EQ(status.error().message(),
            "byte offset " + std::to_string(at) +
                ": DELTA_LENGTH_BYTE_ARRAY: value of length 10 passes the end of the data (6 "
                "bytes remain)");
  encoded = EncodeDelta<int32_t>({-1}) + "abc";
  decoder = DeltaLengthByteArrayDecoder::Make(encoded, 0);
  EXPECT_FALSE(decoder->Decode(out, 1).has_value());
}

std::string EncodeStrings(const std::vector<std::string>& values) {
  DeltaByteArrayEncoder encoder;
  for (const auto& v : values) encoder.Put(v);
  std::string out;
  encoder.FlushTo(out);
  return out;
}

DecoderOptions ByteArrayOptions() {
  DecoderOptions options;
  options.type = PhysicalType::kByteArray;
  return options;
}

Result<std::vector<std::string>> DecodeStrings(std::string_view data, size_t n, size_t batch,
                                               const DecoderOptions& options = ByteArrayOptions()) {
  SLUICE_ASSIGN_OR_RETURN(auto decoder, DeltaByteArrayDecoder::Make(data, options));
  std::vector<std::string_view> views(n);
  for (size_t i = 0; i < n; i += batch) {
    SLUICE_TRY(decoder.Decode(views.data() + i, std::min(batch, n - i)));
  }
  return std::vector<std::string>(views.begin(), views.end());
}

// Encodings.md: "axis", "axle", "babble", "babyhood" are prefix lengths (0, 2, 0, 3), suffix
// lengths (4, 2, 6, 5), then "axislebabbleyhood".
TEST(DeltaByteArrayTest, SpecExample) {
  const std::vector<std::string> values = {"axis", "axle", "babble", "babyhood"};
  const std::string encoded = EncodeStrings(values);
  EXPECT_EQ(encoded, EncodeDelta<int32_t>({0, 2, 0, 3}) + EncodeDelta<int32_t>({4, 2, 6, 5}) +
                         "axislebabbleyhood");
  EXPECT_EQ(DecodeStrings(encoded, 4, 4).value(), values);
}

TEST(DeltaByteArrayTest, RoundTripsSortedAndRandomStrings) {
  std::mt19937 rng(9);
  std::vector<std::string> values;
  for (int i = 0; i < 3000; ++i) {
    std::string s;
    const size_t len = rng() % 20;
    for (size_t k = 0; k < len; ++k) s.push_back(static_cast<char>('a' + rng() % 3));
    values.push_back(s);
  }
  auto sorted = values;
  std::sort(sorted.begin(), sorted.end());
  for (const auto* sample : {&values, &sorted}) {
    const std::string encoded = EncodeStrings(*sample);
    for (size_t batch : {1, 100, 256, 3000}) {
      auto got = DecodeStrings(encoded, sample->size(), batch);
      ASSERT_TRUE(got.has_value()) << got.error().message();
      ASSERT_EQ(*got, *sample);
    }
  }
}

TEST(DeltaByteArrayTest, PrefixLongerThanThePreviousValueFails) {
  const std::string encoded = EncodeDelta<int32_t>({0, 3}) + EncodeDelta<int32_t>({2, 1}) + "abc";
  auto got = DecodeStrings(encoded, 2, 2);
  ASSERT_FALSE(got.has_value());
  EXPECT_NE(got.error().message().find("prefix length 3 is longer than the value before it (2 "
                                       "bytes)"),
            std::string::npos);
  // The first value's prefix must be 0.
  EXPECT_FALSE(
      DecodeStrings(EncodeDelta<int32_t>({1}) + EncodeDelta<int32_t>({1}) + "a", 1, 1).has_value());
}

TEST(DeltaByteArrayTest, CountsOfPrefixesAndSuffixesMustAgree) {
  auto got = DecodeStrings(EncodeDelta<int32_t>({0, 0}) + EncodeDelta<int32_t>({1}) + "a", 1, 1);
  ASSERT_FALSE(got.has_value());
  EXPECT_NE(got.error().message().find("2 prefix lengths but 1 suffixes"), std::string::npos);
}

TEST(DeltaByteArrayTest, ExpansionStopsAtTheLimit) {
  // Each value repeats the whole previous one and adds a byte: n values take n^2 / 2 bytes.
  std::vector<std::string> values = {std::string(1000, 'x')};
  for (int i = 0; i < 200; ++i) values.push_back(values.back() + "y");
  const std::string encoded = EncodeStrings(values);
  EXPECT_LT(encoded.size(), 2000u);
  DecoderOptions options = ByteArrayOptions();
  EXPECT_TRUE(DecodeStrings(encoded, values.size(), 64, options).has_value());
  options.max_decoded_bytes = 100'000;
  auto got = DecodeStrings(encoded, values.size(), 64, options);
  ASSERT_FALSE(got.has_value());
  EXPECT_NE(got.error().message().find("pass the limit of 100000 bytes"), std::string::npos);
}

TEST(DeltaByteArrayTest, FixedLenValuesMustHaveTheirLength) {
  DecoderOptions options;
  options.type = PhysicalType::kFixedLenByteArray;
  options.type_length = 3;
  EXPECT_EQ(DecodeStrings(EncodeStrings({"abc", "abd"}), 2, 2, options).value(),
            (std::vector<std::string>{"abc", "abd"}));
  auto got = DecodeStrings(EncodeStrings({"abc", "ab"}), 2, 2, options);
  ASSERT_FALSE(got.has_value());
  EXPECT_NE(got.error().message().find("FIXED_LEN_BYTE_ARRAY(3) value has 2 bytes"),
            std::string::npos);
}

TEST(DeltaByteArrayTest, TruncationsNeverCrash) {
  std::vector<std::string> values;
  for (int i = 0; i < 300; ++i) values.push_back("key" + std::to_string(i * 7));
  const std::string encoded = EncodeStrings(values);
  for (size_t cut = 0; cut < encoded.size(); ++cut) {
    auto got = DecodeStrings(std::string_view(encoded).substr(0, cut), values.size(), 100);
    ASSERT_FALSE(got.has_value()) << "cut " << cut;
  }
}

}  // namespace
}  // namespace sluice::parquet
