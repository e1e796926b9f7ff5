#include "sluice/table/z85.h"

#include <gtest/gtest.h>

#include <random>
#include <string>

namespace sluice::table {
namespace {

TEST(Z85, EncodesTheSpecTestVector) {
  // ZeroMQ RFC 32's example.
  const std::string bytes("\x86\x4F\xD2\x6F\xB5\x59\xF7\x5B", 8);
  EXPECT_EQ(Z85Encode(bytes), "HelloWorld");
  auto decoded = Z85Decode("HelloWorld");
  ASSERT_TRUE(decoded) << decoded.error().ToString();
  EXPECT_EQ(*decoded, bytes);
}

TEST(Z85, PadsUnalignedInputWithZeroBytesAsDeltaDoes) {
  EXPECT_EQ(Z85Encode(std::string("\x86\x4F\xD2", 3)), Z85Encode(std::string("\x86\x4F\xD2\0", 4)));
  EXPECT_EQ(Z85Encode(""), "");
  auto decoded = Z85Decode(Z85Encode("abcde"));
  ASSERT_TRUE(decoded);
  EXPECT_EQ(*decoded, std::string("abcde\0\0\0", 8));
}

TEST(Z85, RoundTripsRandomBytes) {
  std::mt19937 rng(7);
  for (int n = 0; n < 200; n += 4) {
    std::string bytes(static_cast<size_t>(n), '\0');
    for (char& c : bytes) c = static_cast<char>(rng());
    auto decoded = Z85Decode(Z85Encode(bytes));
    ASSERT_TRUE(decoded);
    EXPECT_EQ(*decoded, bytes);
  }
  // The extremes of a group.
  auto all_ones = Z85Decode(Z85Encode(std::string(4, '\xFF')));
  ASSERT_TRUE(all_ones);
  EXPECT_EQ(*all_ones, std::string(4, '\xFF'));
}

TEST(Z85, RefusesBadTextNamingTheOffset) {
  auto one_group = Z85Decode("Hello");
  ASSERT_TRUE(one_group);
  EXPECT_EQ(one_group->size(), 4u);
  auto short_text = Z85Decode("HelloWorl");
  ASSERT_FALSE(short_text);
  EXPECT_EQ(short_text.error().code(), ErrorCode::kInvalidArgument);
  EXPECT_NE(short_text.error().message().find("multiple of 5"), std::string::npos);

  auto bad_char = Z85Decode("Hello Worl");
  ASSERT_FALSE(bad_char);
  EXPECT_NE(bad_char.error().message().find("offset 5"), std::string::npos)
      << bad_char.error().message();

  auto quote = Z85Decode("Hel\"o");
  ASSERT_FALSE(quote);

  // "#####" is 85^5 - 1, past 32 bits.
  auto overflow = Z85Decode("HelloWorld#####");
  ASSERT_FALSE(overflow);
  EXPECT_NE(overflow.error().message().find("offset 10"), std::string::npos)
      << overflow.error().message();
}

}  // namespace
}  // namespace sluice::table
