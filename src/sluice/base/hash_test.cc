#include "sluice/base/hash.h"

#include <gtest/gtest.h>

namespace sluice {
namespace {

TEST(HashTest, KnownDigests) {
  EXPECT_EQ(Sha256Hex("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  EXPECT_EQ(Md5Hex("abc"), "900150983cd24fb0d6963f7d28e17f72");
}

TEST(HashTest, Crc64AvroMatchesPublishedFingerprints) {
  // Values from Avro's schema-tests.txt (signed int64 there).
  EXPECT_EQ(static_cast<int64_t>(Crc64Avro("\"null\"")), 7195948357588979594LL);
  EXPECT_EQ(static_cast<int64_t>(Crc64Avro("\"boolean\"")), -6970731678124411036LL);
}

TEST(HashTest, HexEncode) { EXPECT_EQ(HexEncode(std::string("\x00\xff\x10", 3)), "00ff10"); }

TEST(HashTest, HexDecode) {
  EXPECT_EQ(HexDecode("00ff10"), std::string("\x00\xff\x10", 3));
  EXPECT_EQ(HexDecode("ABcd"), std::string("\xab\xcd"));
  EXPECT_EQ(HexDecode(""), std::string());
  EXPECT_EQ(HexDecode("abc"), std::nullopt);
  EXPECT_EQ(HexDecode("0g"), std::nullopt);
}

}  // namespace
}  // namespace sluice
