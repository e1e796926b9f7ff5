#include "sluice/base/strings.h"

#include <gtest/gtest.h>

#include <cstring>
#include <iterator>
#include <memory>
#include <string>

namespace sluice {
namespace {

TEST(Utf8Test, FindsFirstInvalidByte) {
  EXPECT_TRUE(IsValidUtf8("plain ascii"));
  EXPECT_TRUE(IsValidUtf8("\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80"));
  EXPECT_EQ(FindInvalidUtf8("ab\xff"), 2u);
  EXPECT_EQ(FindInvalidUtf8("a\xc0\xafz"), 1u);        // overlong '/'
  EXPECT_EQ(FindInvalidUtf8("a\xed\xa0\x80"), 1u);     // surrogate
  EXPECT_EQ(FindInvalidUtf8("\xf4\x90\x80\x80"), 0u);  // above U+10FFFF
  EXPECT_EQ(FindInvalidUtf8("\xe2\x82"), 0u);          // truncated
}

// ASCII is stepped over eight bytes at a time: a flaw or a multi-byte character at any
// position of buffers of every length up to 40, in heap copies of exactly that size (so the
// sanitizers see a read past the end), is found where a byte-by-byte reading finds it.
TEST(Utf8Test, FindsTheFirstInvalidByteAtEveryPosition) {
  const std::string_view pieces[] = {"\xff", "\xc3\xa9",     "\xe2\x82\xac", "\xf0\x9f\x98\x80",
                                     "\xc3", "\xed\xa0\x80", "\x80"};
  const bool valid[] = {false, true, true, true, false, false, false};
  for (size_t len = 0; len <= 40; ++len) {
    for (size_t at = 0; at <= len; ++at) {
      for (size_t k = 0; k < std::size(pieces); ++k) {
        std::string text(at, 'a');
        text += pieces[k];
        text += std::string(len - at, 'b');
        auto copy = std::make_unique<char[]>(text.size());
        std::memcpy(copy.get(), text.data(), text.size());
        const size_t found = FindInvalidUtf8(std::string_view(copy.get(), text.size()));
        EXPECT_EQ(found, valid[k] ? std::string_view::npos : at)
            << "piece " << k << " at " << at << " of " << text.size();
      }
      const std::string ascii(len, 'z');
      EXPECT_EQ(FindInvalidUtf8(ascii), std::string_view::npos);
    }
  }
}

TEST(StringsTest, CaseFoldingIsAsciiOnly) {
  EXPECT_TRUE(EqualsIgnoreCase("Order_ID", "order_id"));
  EXPECT_FALSE(EqualsIgnoreCase("order", "orders"));
  EXPECT_EQ(AsciiLower("AbC\xc3\x89"), "abc\xc3\x89");
}

TEST(StringsTest, AsciiIdentifiers) {
  EXPECT_TRUE(IsAsciiIdentifier("SLACK_WEBHOOK_URL"));
  EXPECT_TRUE(IsAsciiIdentifier("_x9"));
  EXPECT_FALSE(IsAsciiIdentifier(""));
  EXPECT_FALSE(IsAsciiIdentifier("9lives"));
  EXPECT_FALSE(IsAsciiIdentifier("a-b"));
  EXPECT_FALSE(IsAsciiIdentifier("caf\xc3\xa9"));
}

TEST(StringsTest, FormatDoubleRoundTripsLikePythonRepr) {
  EXPECT_EQ(FormatDouble(1.0), "1.0");
  EXPECT_EQ(FormatDouble(1.5), "1.5");
  EXPECT_EQ(FormatDouble(0.1), "0.1");
  EXPECT_EQ(FormatDouble(1e16), "1e+16");
  EXPECT_EQ(FormatDouble(123456789.0), "123456789.0");
  EXPECT_EQ(FormatDouble(1e-5), "1e-05");
  EXPECT_EQ(FormatDouble(-0.0), "-0.0");
}

TEST(StringsTest, EscapeForMessageKeepsOneLine) {
  EXPECT_EQ(EscapeForMessage("a\nb\xff"), "a\\nb\\xff");
  EXPECT_EQ(EscapeForMessage(std::string(300, 'x'), 10), std::string(10, 'x') + "...");
}

TEST(StringsTest, SplitTrimJoinAndDistance) {
  auto parts = SplitString("a,,b", ',');
  ASSERT_EQ(parts.size(), 3u);
  EXPECT_EQ(parts[1], "");
  EXPECT_EQ(TrimWhitespace("  x y \n"), "x y");
  EXPECT_EQ(JoinStrings({"a", "b"}, ", "), "a, b");
  EXPECT_EQ(EditDistance("movie_id", "movieid"), 1u);
  EXPECT_EQ(EditDistance("", "abc"), 3u);
}

}  // namespace
}  // namespace sluice

namespace sluice {
namespace {

// Each maximal invalid subpart becomes one U+FFFD (Unicode's recommended practice, which the
// WHATWG decoder and Java follow); valid text is unchanged.
TEST(StringsTest, InvalidUtf8IsReplacedByMaximalSubparts) {
  const std::string fffd = "\xEF\xBF\xBD";
  EXPECT_EQ(ReplaceInvalidUtf8("plain \xC3\xA9t\xC3\xA9"), "plain \xC3\xA9t\xC3\xA9");
  EXPECT_EQ(ReplaceInvalidUtf8("\xFF\xFE a"), fffd + fffd + " a");
  // A truncated three-byte sequence is one subpart; the byte after it starts afresh.
  EXPECT_EQ(ReplaceInvalidUtf8("\xE2\x82x"), fffd + "x");
  // A surrogate's encoding: ED A0 is not a valid start, so each byte is its own subpart.
  EXPECT_EQ(ReplaceInvalidUtf8("\xED\xA0\x80"), fffd + fffd + fffd);
  // Overlong and out-of-range starts.
  EXPECT_EQ(ReplaceInvalidUtf8("\xC0\xAF"), fffd + fffd);
  EXPECT_EQ(ReplaceInvalidUtf8("\xF4\x90\x80\x80"), fffd + fffd + fffd + fffd);
  EXPECT_EQ(ReplaceInvalidUtf8(std::string("a\0b", 3)), std::string("a\0b", 3));
  EXPECT_EQ(ReplaceInvalidUtf8("\xF0\x9F\x98"), fffd);
  EXPECT_EQ(ReplaceInvalidUtf8("\xF0\x9F\x98\x80"), "\xF0\x9F\x98\x80");
}

TEST(Base64Test, RoundTripsAndRejectsWhatIsNotBase64) {
  for (std::string_view bytes :
       {std::string_view(""), std::string_view("f"), std::string_view("fo"),
        std::string_view("foo"), std::string_view("\xff\x00\xc3", 3)}) {
    EXPECT_EQ(Base64Decode(Base64Encode(bytes)), std::string(bytes));
  }
  EXPECT_EQ(Base64Encode("foobar"), "Zm9vYmFy");
  EXPECT_EQ(Base64Encode("fo"), "Zm8=");
  EXPECT_FALSE(Base64Decode("Zm8").has_value());
  EXPECT_FALSE(Base64Decode("Zm=8").has_value());
  EXPECT_FALSE(Base64Decode("Z!8=").has_value());
}

}  // namespace
}  // namespace sluice
