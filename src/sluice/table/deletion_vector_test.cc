#include "sluice/table/deletion_vector.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "sluice/base/json_writer.h"

namespace sluice::table {
namespace {

DeletionVectorDescriptor Parse(std::string_view json) {
  auto value = ParseJson(json);
  EXPECT_TRUE(value) << value.error().ToString();
  auto dv = ParseDeletionVectorDescriptor(*value);
  EXPECT_TRUE(dv) << dv.error().ToString();
  return dv ? *dv : DeletionVectorDescriptor();
}

std::string ParseError(std::string_view json) {
  auto value = ParseJson(json);
  EXPECT_TRUE(value);
  auto dv = ParseDeletionVectorDescriptor(*value);
  if (dv) return "";
  EXPECT_EQ(dv.error().code(), ErrorCode::kInvalidArgument);
  return dv.error().message();
}

void PutBigEndian(std::string& out, uint32_t v) {
  for (int shift = 24; shift >= 0; shift -= 8)
    out.push_back(static_cast<char>((v >> shift) & 0xFF));
}

// CRC-32 (IEEE, reflected), bit by bit: an oracle independent of the zlib the reader uses.
uint32_t Crc32(std::string_view bytes) {
  uint32_t crc = 0xFFFFFFFFu;
  for (char c : bytes) {
    crc ^= static_cast<uint8_t>(c);
    for (int k = 0; k < 8; ++k) crc = (crc >> 1) ^ (0xEDB88320u & (0u - (crc & 1)));
  }
  return ~crc;
}

std::string Unhex(std::string_view hex) {
  std::string out;
  for (size_t i = 0; i + 1 < hex.size(); i += 2) {
    out.push_back(static_cast<char>(std::stoi(std::string(hex.substr(i, 2)), nullptr, 16)));
  }
  return out;
}

// PROTOCOL.md's three examples.
constexpr std::string_view kRelative =
    R"({"storageType":"u","pathOrInlineDv":"ab^-aqEH.-t@S}K{vb[*k^","offset":4,)"
    R"("sizeInBytes":40,"cardinality":6})";
constexpr std::string_view kAbsolute =
    R"({"storageType":"p","pathOrInlineDv":)"
    R"("s3://mytable/deletion_vector_d2c639aa-8816-431a-aaf6-d3fe2512ff61.bin",)"
    R"("offset":4,"sizeInBytes":40,"cardinality":6})";
constexpr std::string_view kInline =
    R"({"storageType":"i","pathOrInlineDv":"wi5b=000010000siXQKl0rr91000f55c8Xg0@@D72lkbi5=-{L",)"
    R"("sizeInBytes":40,"cardinality":6})";

TEST(DeletionVectorDescriptor, ReadsAndWritesTheProtocolExamples) {
  for (std::string_view json : {kRelative, kAbsolute, kInline}) {
    const DeletionVectorDescriptor dv = Parse(json);
    auto again = ParseJson(json);
    ASSERT_TRUE(again);
    EXPECT_TRUE(DeletionVectorDescriptorToJson(dv).Equals(*again)) << json;
  }
  const DeletionVectorDescriptor relative = Parse(kRelative);
  EXPECT_EQ(relative.storage_type, 'u');
  EXPECT_EQ(relative.offset, 4);
  EXPECT_EQ(relative.size_in_bytes, 40);
  EXPECT_EQ(relative.cardinality, 6);
  EXPECT_FALSE(relative.max_row_index);
  EXPECT_EQ(relative.UniqueId(), "uab^-aqEH.-t@S}K{vb[*k^@4");
  const DeletionVectorDescriptor inline_dv = Parse(kInline);
  EXPECT_FALSE(inline_dv.offset);
  EXPECT_EQ(inline_dv.UniqueId(), "iwi5b=000010000siXQKl0rr91000f55c8Xg0@@D72lkbi5=-{L");
}

TEST(DeletionVectorDescriptor, WritesMembersInTheProtocolsOrder) {
  DeletionVectorDescriptor dv;
  dv.storage_type = 'u';
  dv.path_or_inline_dv = "ab^-aqEH.-t@S}K{vb[*k^";
  dv.offset = 1;
  dv.size_in_bytes = 36;
  dv.cardinality = 2;
  dv.max_row_index = 9;
  EXPECT_EQ(ToJson(DeletionVectorDescriptorToJson(dv)),
            R"({"storageType":"u","pathOrInlineDv":"ab^-aqEH.-t@S}K{vb[*k^","offset":1,)"
            R"("sizeInBytes":36,"cardinality":2,"maxRowIndex":9})");
  const DeletionVectorDescriptor back = Parse(ToJson(DeletionVectorDescriptorToJson(dv)));
  EXPECT_EQ(back, dv);
}

TEST(DeletionVectorDescriptor, RefusesMalformedObjectsNamingTheMember) {
  EXPECT_NE(ParseError("[]").find("expected an object"), std::string::npos);
  EXPECT_NE(ParseError(R"({"pathOrInlineDv":"x","sizeInBytes":1,"cardinality":1})")
                .find("`storageType` is missing"),
            std::string::npos);
  EXPECT_NE(ParseError(R"({"storageType":"x","pathOrInlineDv":"x","sizeInBytes":1,)"
                       R"("cardinality":1})")
                .find("`x` is none of u, i, p"),
            std::string::npos);
  EXPECT_NE(ParseError(R"({"storageType":"u","pathOrInlineDv":"x","sizeInBytes":-1,)"
                       R"("cardinality":1})")
                .find("deletionVector.sizeInBytes at byte 54"),
            std::string::npos)
      << ParseError(R"({"storageType":"u","pathOrInlineDv":"x","sizeInBytes":-1,"cardinality":1})");
  EXPECT_NE(ParseError(R"({"storageType":"u","pathOrInlineDv":"x","offset":"4",)"
                       R"("sizeInBytes":1,"cardinality":1})")
                .find("deletionVector.offset"),
            std::string::npos);
  EXPECT_NE(ParseError(R"({"storageType":"u","pathOrInlineDv":"x","sizeInBytes":3000000000,)"
                       R"("cardinality":1})")
                .find("sizeInBytes"),
            std::string::npos);
  EXPECT_NE(ParseError(R"({"storageType":"u","pathOrInlineDv":7,"sizeInBytes":1,"cardinality":1})")
                .find("pathOrInlineDv"),
            std::string::npos);
  // Unknown members and a null offset are fine.
  EXPECT_EQ(ParseError(R"({"storageType":"p","pathOrInlineDv":"/x","offset":null,)"
                       R"("sizeInBytes":1,"cardinality":1,"future":true})"),
            "");
}

TEST(DeletionVectorPath, ResolvesUuidAndAbsolutePaths) {
  auto relative = DeletionVectorFilePath("s3://mytable", Parse(kRelative));
  ASSERT_TRUE(relative) << relative.error().ToString();
  EXPECT_EQ(*relative, "s3://mytable/ab/deletion_vector_d2c639aa-8816-431a-aaf6-d3fe2512ff61.bin");

  auto encoded = EncodeDeletionVectorUuidPath("ab", "d2c639aa-8816-431a-aaf6-d3fe2512ff61");
  ASSERT_TRUE(encoded);
  EXPECT_EQ(*encoded, "ab^-aqEH.-t@S}K{vb[*k^");
  auto no_prefix = EncodeDeletionVectorUuidPath("", "D2C639AA-8816-431A-AAF6-D3FE2512FF61");
  ASSERT_TRUE(no_prefix);
  EXPECT_EQ(*no_prefix, "^-aqEH.-t@S}K{vb[*k^");
  EXPECT_FALSE(EncodeDeletionVectorUuidPath("", "d2c639aa-8816-431a-aaf6-d3fe2512ff6"));
  EXPECT_FALSE(EncodeDeletionVectorUuidPath("", "d2c639aa+8816-431a-aaf6-d3fe2512ff61"));
  EXPECT_FALSE(EncodeDeletionVectorUuidPath("a/b", "d2c639aa-8816-431a-aaf6-d3fe2512ff61"));

  auto s3 = DeletionVectorFilePath("/t", Parse(kAbsolute));
  ASSERT_FALSE(s3);
  EXPECT_EQ(s3.error().code(), ErrorCode::kUnimplemented);

  DeletionVectorDescriptor p = Parse(kAbsolute);
  for (const auto& [uri, path] : std::vector<std::pair<std::string, std::string>>{
           {"file:/tmp/t/a%20b/dv.bin", "/tmp/t/a b/dv.bin"},
           {"file:///tmp/t/dv%25x.bin", "/tmp/t/dv%x.bin"},
           {"file://localhost/tmp/dv.bin", "/tmp/dv.bin"},
           {"/tmp/t/dv.bin", "/tmp/t/dv.bin"}}) {
    p.path_or_inline_dv = uri;
    auto resolved = DeletionVectorFilePath("/elsewhere", p);
    ASSERT_TRUE(resolved) << uri << ": " << resolved.error().ToString();
    EXPECT_EQ(*resolved, path);
  }
  p.path_or_inline_dv = "file://server/tmp/dv.bin";
  EXPECT_EQ(DeletionVectorFilePath("/t", p).error().code(), ErrorCode::kUnimplemented);
  p.path_or_inline_dv = "relative/dv.bin";
  EXPECT_EQ(DeletionVectorFilePath("/t", p).error().code(), ErrorCode::kInvalidArgument);
  p.path_or_inline_dv = "/tmp/dv%2.bin";
  EXPECT_EQ(DeletionVectorFilePath("/t", p).error().code(), ErrorCode::kInvalidArgument);

  DeletionVectorDescriptor u = Parse(kRelative);
  for (std::string bad :
       {"short", "../^-aqEH.-t@S}K{vb[*k^", "x/y^-aqEH.-t@S}K{vb[*k^", "ab^-aqEH.-t@S}K{vb[*k\""}) {
    u.path_or_inline_dv = bad;
    auto r = DeletionVectorFilePath("/t", u);
    ASSERT_FALSE(r) << bad;
    EXPECT_EQ(r.error().code(), ErrorCode::kInvalidArgument);
  }
  EXPECT_FALSE(DeletionVectorFilePath("/t", Parse(kInline)));
}

TEST(DeletionVector, ReadsTheProtocolsInlineExample) {
  MemoryFileSystem fs;
  auto rows = LoadDeletionVector(fs, "/t", Parse(kInline));
  ASSERT_TRUE(rows) << rows.error().ToString();
  EXPECT_EQ(rows->ToVector(), (std::vector<uint64_t>{3, 4, 7, 11, 18, 29}));
}

TEST(DeletionVector, InlineDvsRoundTripThroughTheLog) {
  MemoryFileSystem fs;
  std::mt19937_64 rng(5);
  std::vector<RowIndexSet> sets = {RowIndexSet::Of({0}), RowIndexSet::Of({1, 2, 3, 4, 100}),
                                   RowIndexSet::OfRanges({{0, 200000}}),
                                   RowIndexSet::Of({5, (uint64_t{1} << 32) + 5})};
  std::vector<uint64_t> random;
  for (int i = 0; i < 10000; ++i) random.push_back(rng() % 1000000);
  sets.push_back(RowIndexSet::Of(random));
  for (const RowIndexSet& rows : sets) {
    auto dv = MakeInlineDeletionVector(rows);
    ASSERT_TRUE(dv) << dv.error().ToString();
    EXPECT_EQ(dv->cardinality, static_cast<int64_t>(rows.Cardinality()));
    EXPECT_EQ(dv->max_row_index, static_cast<int64_t>(rows.Max()));
    const DeletionVectorDescriptor back = Parse(ToJson(DeletionVectorDescriptorToJson(*dv)));
    auto loaded = LoadDeletionVector(fs, "/t", back);
    ASSERT_TRUE(loaded) << loaded.error().ToString();
    EXPECT_TRUE(*loaded == rows);
  }
}

TEST(DeletionVector, WritesFilesLikeDeltasAndReadsThemBack) {
  // Delta's own file for rows {0, 9}: version, size 36, the bitmap, its CRC-32.
  DeletionVectorFileBuilder single;
  auto dv09 = single.Add(RowIndexSet::Of({0, 9}));
  ASSERT_TRUE(dv09);
  EXPECT_EQ(single.bytes(), Unhex("01"
                                  "00000024"
                                  "d1d33964"
                                  "0100000000000000"
                                  "00000000"
                                  "3a30000001000000000001001000000000000900"
                                  "2a671846"));
  EXPECT_EQ(dv09->offset, 1);
  EXPECT_EQ(dv09->size_in_bytes, 36);

  // Several DVs in one file, each found by its offset.
  MemoryFileSystem fs;
  DeletionVectorFileBuilder builder;
  std::vector<RowIndexSet> sets = {RowIndexSet::Of({3, 4, 7}), RowIndexSet::OfRanges({{10, 90000}}),
                                   RowIndexSet::Of({(uint64_t{3} << 32) + 1})};
  std::vector<DeletionVectorDescriptor> dvs;
  auto path = EncodeDeletionVectorUuidPath("xy", "0c6cbaaf-5e04-4c9d-8959-1088814f58ef");
  ASSERT_TRUE(path);
  for (const RowIndexSet& rows : sets) {
    auto dv = builder.Add(rows);
    ASSERT_TRUE(dv);
    dv->path_or_inline_dv = *path;
    dvs.push_back(*dv);
  }
  ASSERT_TRUE(fs.WriteFile("/t/xy/deletion_vector_0c6cbaaf-5e04-4c9d-8959-1088814f58ef.bin",
                           builder.bytes()));
  for (size_t i = 0; i < sets.size(); ++i) {
    auto rows = LoadDeletionVector(fs, "/t", dvs[i]);
    ASSERT_TRUE(rows) << rows.error().ToString();
    EXPECT_TRUE(*rows == sets[i]);
  }
  // The same file through an absolute path.
  DeletionVectorDescriptor p = dvs[1];
  p.storage_type = 'p';
  p.path_or_inline_dv = "file:///t/xy/deletion_vector_0c6cbaaf-5e04-4c9d-8959-1088814f58ef.bin";
  auto rows = LoadDeletionVector(fs, "/elsewhere", p);
  ASSERT_TRUE(rows) << rows.error().ToString();
  EXPECT_TRUE(*rows == sets[1]);
}

class DeletionVectorFileTest : public testing::Test {
 protected:
  static constexpr std::string_view kPath =
      "/t/deletion_vector_0c6cbaaf-5e04-4c9d-8959-1088814f58ef.bin";

  void SetUp() override {
    DeletionVectorFileBuilder builder;
    auto dv = builder.Add(RowIndexSet::Of({1, 5, 9}));
    ASSERT_TRUE(dv);
    auto path = EncodeDeletionVectorUuidPath("", "0c6cbaaf-5e04-4c9d-8959-1088814f58ef");
    ASSERT_TRUE(path);
    dv->path_or_inline_dv = *path;
    dv_ = *dv;
    bytes_ = builder.bytes();
  }

  // The error of loading `dv_` from a file holding `bytes`.
  std::string LoadError(const std::string& bytes) {
    MemoryFileSystem fs;
    EXPECT_TRUE(fs.WriteFile(kPath, bytes));
    auto rows = LoadDeletionVector(fs, "/t", dv_);
    if (rows) return "";
    EXPECT_EQ(rows.error().code(), ErrorCode::kInvalidArgument) << rows.error().ToString();
    return rows.error().message();
  }

  DeletionVectorDescriptor dv_;
  std::string bytes_;
};

TEST_F(DeletionVectorFileTest, ReadsTheGoodFile) { EXPECT_EQ(LoadError(bytes_), ""); }

TEST_F(DeletionVectorFileTest, NamesTheFileAndOffsetOfEveryFault) {
  const std::string name = std::string(kPath);
  std::string version = bytes_;
  version[0] = 2;
  EXPECT_NE(LoadError(version).find(name + " at byte 0: format version 2"), std::string::npos)
      << LoadError(version);

  std::string size = bytes_;
  size[4] ^= 1;
  EXPECT_NE(LoadError(size).find(name + " at byte 1: the file says the DV has"), std::string::npos)
      << LoadError(size);

  std::string crc = bytes_;
  crc[20] ^= 0x10;  // inside the bitmap
  const size_t crc_at = bytes_.size() - 4;
  EXPECT_NE(LoadError(crc).find(fmt::format("{} at byte {}: CRC-32", name, crc_at)),
            std::string::npos)
      << LoadError(crc);

  EXPECT_NE(LoadError(bytes_.substr(0, bytes_.size() - 1)).find("passes the end of the"),
            std::string::npos);
  EXPECT_NE(LoadError("").find("the file is empty"), std::string::npos);

  // An absurd size is refused before anything is read or allocated.
  dv_.size_in_bytes = 0x7FFFFFFF;
  EXPECT_NE(LoadError(bytes_).find("a DV of 2147483647 bytes there passes the end"),
            std::string::npos)
      << LoadError(bytes_);
  dv_.size_in_bytes = static_cast<int32_t>(bytes_.size() - 9);

  dv_.offset = 1000;
  EXPECT_NE(LoadError(bytes_).find(name + " at byte 1000"), std::string::npos);
  // Absent, the offset is 0, and the version byte is no size.
  dv_.offset.reset();
  EXPECT_NE(LoadError(bytes_).find(name + " at byte 0"), std::string::npos) << LoadError(bytes_);
  dv_.offset = 1;

  dv_.cardinality = 4;
  EXPECT_NE(LoadError(bytes_).find("holds 3 rows but cardinality says 4"), std::string::npos);
  dv_.cardinality = 3;

  // A bitmap under a valid checksum whose content is broken: named at its byte in the file.
  std::string hostile("\xd1\xd3\x39\x64", 4);
  hostile += std::string("\xff\xff\xff\xff\xff\xff\xff\x0f", 8);  // absurd bucket count
  std::string file = "\x01";
  PutBigEndian(file, static_cast<uint32_t>(hostile.size()));
  file += hostile;
  PutBigEndian(file, Crc32(hostile));
  dv_.size_in_bytes = static_cast<int32_t>(hostile.size());
  EXPECT_NE(LoadError(file).find(name + " at byte 9: 1152921504606846975 buckets cannot fit"),
            std::string::npos)
      << LoadError(file);
}

TEST_F(DeletionVectorFileTest, MissingFileIsNotFound) {
  MemoryFileSystem fs;
  auto rows = LoadDeletionVector(fs, "/t", dv_);
  ASSERT_FALSE(rows);
  EXPECT_EQ(rows.error().code(), ErrorCode::kNotFound);
}

TEST(DeletionVector, RefusesBadInlineDvs) {
  MemoryFileSystem fs;
  DeletionVectorDescriptor dv = Parse(kInline);
  dv.size_in_bytes = 44;
  EXPECT_NE(LoadDeletionVector(fs, "/t", dv).error().message().find("cannot hold sizeInBytes 44"),
            std::string::npos);
  dv.size_in_bytes = 36;  // drops more than the padding
  EXPECT_FALSE(LoadDeletionVector(fs, "/t", dv));
  dv = Parse(kInline);
  dv.cardinality = 7;
  EXPECT_NE(LoadDeletionVector(fs, "/t", dv).error().message().find("cardinality says 7"),
            std::string::npos);
  dv = Parse(kInline);
  dv.path_or_inline_dv[3] = ' ';
  EXPECT_NE(LoadDeletionVector(fs, "/t", dv).error().message().find("inline deletion vector"),
            std::string::npos);
  dv = Parse(kInline);
  dv.size_in_bytes = -1;
  EXPECT_EQ(LoadDeletionVector(fs, "/t", dv).error().code(), ErrorCode::kInvalidArgument);
  // A bitmap broken inside: the error names the byte in the decoded bytes.
  dv = Parse(kInline);
  std::string broken = "wi5b=000010000siXQKl0rr91000f55c8Xg0@@D72lkbi5=-{L";
  dv.path_or_inline_dv = broken.substr(0, 10) + "00000" + broken.substr(15);
  auto r = LoadDeletionVector(fs, "/t", dv);
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().message().find("inline deletion vector at byte"), std::string::npos)
      << r.error().message();
}

}  // namespace
}  // namespace sluice::table
