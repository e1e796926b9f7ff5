#include "sluice/parquet/rle.h"

#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "sluice/parquet/encoding_internal.h"

namespace sluice::parquet {
namespace {

std::string Bytes(std::initializer_list<int> bytes) {
  std::string s;
  for (int b : bytes) s.push_back(static_cast<char>(b));
  return s;
}

std::string Encode(const std::vector<uint32_t>& values, int bit_width) {
  RleEncoder encoder(bit_width);
  encoder.Put(values);
  std::string out;
  encoder.FlushTo(out);
  return out;
}

// Decode `n` values in batches of `batch`, failing the test on an error.
template <class U = uint32_t>
std::vector<U> Decode(const std::string& data, int bit_width, size_t n, size_t batch) {
  auto decoder = RleDecoder::Make(data, bit_width);
  EXPECT_TRUE(decoder.has_value());
  std::vector<U> out(n);
  for (size_t i = 0; i < n; i += batch) {
    auto status = decoder->GetExactly(out.data() + i, std::min(batch, n - i));
    EXPECT_TRUE(status.has_value()) << status.error().message();
    if (!status.has_value()) break;
  }
  return out;
}

// Values of `bit_width` bits: random, in runs, or runs broken by literals.
std::vector<uint32_t> Values(size_t n, int bit_width, int pattern, std::mt19937& rng) {
  const uint64_t mask = bit_width == 32 ? 0xffffffffu : (uint64_t{1} << bit_width) - 1;
  std::vector<uint32_t> values;
  while (values.size() < n) {
    const uint32_t v = static_cast<uint32_t>(rng() & mask);
    size_t run = 1;
    if (pattern == 1) run = 1 + rng() % 40;
    if (pattern == 2) run = rng() % 3 == 0 ? 8 + rng() % 20 : 1;
    for (size_t i = 0; i < run && values.size() < n; ++i) values.push_back(v);
  }
  return values;
}

// Bit-packing, one bit at a time as Encodings.md draws it: values masked to the width, least
// significant bit first.
template <class U>
std::string PackBitByBit(const std::vector<U>& values, int bit_width) {
  std::string out(values.size() * size_t(bit_width) / 8, '\0');
  size_t bit = 0;
  for (U v : values) {
    for (int b = 0; b < bit_width; ++b, ++bit) {
      if ((uint64_t(v) >> b) & 1) out[bit / 8] = static_cast<char>(out[bit / 8] | (1 << (bit % 8)));
    }
  }
  return out;
}

template <class U>
void PackEveryWidth() {
  std::mt19937_64 rng(7);
  for (int width = 0; width <= int(sizeof(U) * 8); ++width) {
    for (size_t groups : {1, 2, 5}) {
      std::vector<U> values(groups * 8);
      for (U& v : values) v = static_cast<U>(rng());  // bits past the width are dropped
      std::string packed = "prefix";
      internal::PackGroups(values.data(), groups, width, packed);
      ASSERT_EQ(packed, "prefix" + PackBitByBit(values, width))
          << sizeof(U) * 8 << "-bit values at width " << width << ", " << groups << " groups";
    }
  }
}

TEST(RleTest, GroupsPackAsTheSpecDrawsThemAtEveryWidth) {
  PackEveryWidth<uint32_t>();
  PackEveryWidth<uint64_t>();
}

TEST(RleTest, BitWidthOfMaxValue) {
  EXPECT_EQ(BitWidth(0), 0);
  EXPECT_EQ(BitWidth(1), 1);
  EXPECT_EQ(BitWidth(7), 3);
  EXPECT_EQ(BitWidth(8), 4);
  EXPECT_EQ(BitWidth(0xffffffffu), 32);
  EXPECT_EQ(BitWidth(uint64_t{1} << 63), 64);
}

// Encodings.md: 0..7 at bit width 3 pack as 10001000 11000110 11111010, after the header of
// one bit-packed group, (1 << 1) | 1.
TEST(RleTest, PacksTheSpecExampleExactly) {
  EXPECT_EQ(Encode({0, 1, 2, 3, 4, 5, 6, 7}, 3), Bytes({0x03, 0x88, 0xc6, 0xfa}));
  EXPECT_EQ(Decode(Bytes({0x03, 0x88, 0xc6, 0xfa}), 3, 8, 8),
            (std::vector<uint32_t>{0, 1, 2, 3, 4, 5, 6, 7}));
}

TEST(RleTest, RepeatedRunHasVarintHeaderAndValueBytes) {
  // 300 << 1 = 600 = ULEB128 d8 04; the value in ceil(10 / 8) = 2 little-endian bytes.
  EXPECT_EQ(Encode(std::vector<uint32_t>(300, 0x203), 10), Bytes({0xd8, 0x04, 0x03, 0x02}));
  // A short stream of equal values is one repeated run, not a padded group.
  EXPECT_EQ(Encode({1, 1, 1}, 1), Bytes({0x06, 0x01}));
  // Bit width 0: the value takes no bytes.
  EXPECT_EQ(Encode(std::vector<uint32_t>(5, 0), 0), Bytes({0x0a}));
}

TEST(RleTest, LiteralsThenRunSwitchOnAGroupBoundary) {
  std::vector<uint32_t> values = {1, 0, 1, 0, 1, 0, 1, 0};
  values.resize(8 + 20, 1);
  // One bit-packed group (0b01010101), then a run of 20 ones.
  EXPECT_EQ(Encode(values, 1), Bytes({0x03, 0x55, 0x28, 0x01}));
  // A stream that ends mid-group pads the group with zeros.
  EXPECT_EQ(Encode({1, 0, 1}, 1), Bytes({0x03, 0x05}));
}

TEST(RleTest, LengthPrefixedForm) {
  RleEncoder encoder(3);
  encoder.Put(std::vector<uint32_t>{0, 1, 2, 3, 4, 5, 6, 7});
  std::string out = "x";
  encoder.FlushWithLengthTo(out);
  EXPECT_EQ(out, "x" + Bytes({4, 0, 0, 0, 0x03, 0x88, 0xc6, 0xfa}));

  std::string page = out.substr(1) + "next";
  auto decoder = RleDecoder::MakeLengthPrefixed(page, 3);
  ASSERT_TRUE(decoder.has_value());
  EXPECT_EQ(decoder->encoded_size(), 8u);
  std::vector<uint32_t> got(8);
  ASSERT_TRUE(decoder->GetExactly(got.data(), 8).has_value());
  EXPECT_EQ(got[7], 7u);
  // The stream ends at its length, not at the page's end.
  uint32_t extra;
  EXPECT_EQ(decoder->Get(&extra, 1).value(), 0u);
}

TEST(RleTest, RoundTripsEveryWidthLengthAndPattern) {
  std::mt19937 rng(42);
  for (int width = 0; width <= 32; ++width) {
    for (size_t n : {0, 1, 7, 8, 9, 15, 16, 17, 63, 64, 65, 504, 505, 1000, 4099}) {
      for (int pattern = 0; pattern < 3; ++pattern) {
        const auto values = Values(n, width, pattern, rng);
        const std::string encoded = Encode(values, width);
        for (size_t batch : {size_t{1}, size_t{3}, size_t{8}, size_t{61}, std::max<size_t>(n, 1)}) {
          ASSERT_EQ(Decode(encoded, width, n, batch), values)
              << "width " << width << " n " << n << " pattern " << pattern << " batch " << batch;
        }
      }
    }
  }
}

TEST(RleTest, DecodesIntoNarrowTypes) {
  std::mt19937 rng(7);
  const auto values = Values(1000, 5, 2, rng);
  const std::string encoded = Encode(values, 5);
  auto levels = Decode<int16_t>(encoded, 5, values.size(), 100);
  auto bytes = Decode<uint8_t>(encoded, 5, values.size(), 33);
  for (size_t i = 0; i < values.size(); ++i) {
    ASSERT_EQ(uint32_t(levels[i]), values[i]);
    ASSERT_EQ(uint32_t(bytes[i]), values[i]);
  }
  const std::string wide = Encode({1, 2}, 16);
  auto decoder = RleDecoder::Make(wide, 16);
  int16_t out[2];
  auto got = decoder->Get(out, 2);
  ASSERT_FALSE(got.has_value());
  EXPECT_EQ(got.error().code(), ErrorCode::kInvalidArgument);
}

TEST(RleTest, PutRepeatedMatchesPutAndStaysSmall) {
  RleEncoder a(4), b(4);
  for (int i = 0; i < 5; ++i) a.Put(3);
  a.PutRepeated(9, 1'000'000);
  a.Put(1);
  for (int i = 0; i < 5; ++i) b.Put(3);
  for (int i = 0; i < 1'000'000; ++i) b.Put(9);
  b.Put(1);
  EXPECT_EQ(a.num_values(), b.num_values());
  std::string ea, eb;
  a.FlushTo(ea);
  b.FlushTo(eb);
  EXPECT_EQ(ea, eb);
  EXPECT_LT(ea.size(), 16u);
  std::vector<uint32_t> got = Decode(ea, 4, 1'000'006, 4096);
  EXPECT_EQ(got[4], 3u);
  EXPECT_EQ(got[5], 9u);
  EXPECT_EQ(got[1'000'004], 9u);
  EXPECT_EQ(got[1'000'005], 1u);
}

TEST(RleTest, FlushStartsANewStream) {
  RleEncoder encoder(2);
  encoder.Put(std::vector<uint32_t>{1, 2, 3});
  std::string first;
  encoder.FlushTo(first);
  EXPECT_EQ(encoder.num_values(), 0u);
  encoder.Put(std::vector<uint32_t>{1, 2, 3});
  std::string second;
  encoder.FlushTo(second);
  EXPECT_EQ(first, second);
}

TEST(RleTest, RejectsBadBitWidths) {
  EXPECT_FALSE(RleDecoder::Make("", 33).has_value());
  EXPECT_FALSE(RleDecoder::Make("", -1).has_value());
  EXPECT_TRUE(RleDecoder::Make("", 32).has_value());
}

TEST(RleTest, RepeatedValueMustFitTheBitWidth) {
  const std::string data = Bytes({0x10, 0x04});  // 8 times the value 4, at width 2
  auto decoder = RleDecoder::Make(data, 2);
  uint32_t out[8];
  auto got = decoder->Get(out, 8);
  ASSERT_FALSE(got.has_value());
  EXPECT_NE(got.error().message().find("byte offset 1"), std::string::npos)
      << got.error().message();
}

TEST(RleTest, RunHeaderClaimingTwoToThe31ValuesFailsWithoutReadingPastTheEnd) {
  // A bit-packed run of 2^28 - 1 groups (2^31 - 8 values) at width 8 with 3 bytes of data.
  std::string data = Bytes({0xff, 0xff, 0xff, 0xff, 0x01, 1, 2, 3});
  auto decoder = RleDecoder::Make(data, 8, 100);
  std::vector<uint32_t> out(16);
  auto got = decoder->Get(out.data(), out.size());
  ASSERT_FALSE(got.has_value());
  EXPECT_EQ(got.error().message(),
            "byte offset 100: RLE/bit-packed run of 2147483640 values needs 2147483640 bytes, but "
            "3 remain");
  // A header past 32 bits.
  const std::string long_header = Bytes({0xff, 0xff, 0xff, 0xff, 0x7f});
  decoder = RleDecoder::Make(long_header, 8);
  EXPECT_FALSE(decoder->Get(out.data(), 1).has_value());
  // A repeated run of 2^31 - 1 values is legal and costs nothing: read a few.
  const std::string long_run = Bytes({0xfe, 0xff, 0xff, 0xff, 0x0f, 0x05});
  decoder = RleDecoder::Make(long_run, 3);
  ASSERT_TRUE(decoder->GetExactly(out.data(), 16).has_value());
  EXPECT_EQ(out[15], 5u);
}

TEST(RleTest, TruncatedStreamsFailOrYieldThePrefix) {
  std::mt19937 rng(3);
  for (int width : {1, 3, 8, 13, 32}) {
    const auto values = Values(300, width, 2, rng);
    const std::string encoded = Encode(values, width);
    for (size_t cut = 0; cut < encoded.size(); ++cut) {
      const std::string data = encoded.substr(0, cut);
      auto decoder = RleDecoder::Make(data, width);
      std::vector<uint32_t> out(values.size());
      auto got = decoder->Get(out.data(), out.size());
      if (!got.has_value()) {
        EXPECT_NE(got.error().message().find("byte offset"), std::string::npos);
        continue;
      }
      // Whatever a cut stream yields is a prefix of the values (all of them when only the last
      // group's padding was cut).
      for (size_t i = 0; i < *got; ++i) ASSERT_EQ(out[i], values[i]) << "cut " << cut;
      if (*got == values.size()) continue;
      auto exact = RleDecoder::Make(data, width)->GetExactly(out.data(), out.size());
      ASSERT_FALSE(exact.has_value());
      EXPECT_NE(exact.error().message().find("ends after"), std::string::npos);
    }
  }
}

TEST(RleTest, LastRunCutInsideItsGroupYieldsTheValuesItsBytesHold) {
  // One group of 8 at width 8 announced, 5 bytes present (a writer that dropped the padding).
  const std::string data = Bytes({0x03, 10, 11, 12, 13, 14});
  auto decoder = RleDecoder::Make(data, 8);
  uint32_t out[8];
  EXPECT_EQ(decoder->Get(out, 8).value(), 5u);
  EXPECT_EQ(out[4], 14u);
}

TEST(RleTest, EmptyRunsAreSkipped) {
  const std::string data = Bytes({0x00, 0x01, 0x04, 0x07});
  auto decoder = RleDecoder::Make(data, 3);
  uint32_t out[2];
  ASSERT_TRUE(decoder->GetExactly(out, 2).has_value());
  EXPECT_EQ(out[1], 7u);
}

TEST(RleTest, LengthPrefixPastTheEndFails) {
  const std::string data = Bytes({9, 0, 0, 0, 1, 2});
  auto decoder = RleDecoder::MakeLengthPrefixed(data, 1, 40);
  ASSERT_FALSE(decoder.has_value());
  EXPECT_EQ(decoder.error().message(),
            "byte offset 40: RLE/bit-packed stream's length 9 passes the end of the data (2 bytes "
            "remain)");
  EXPECT_FALSE(RleDecoder::MakeLengthPrefixed(Bytes({1, 0}), 1).has_value());
}

}  // namespace
}  // namespace sluice::parquet
