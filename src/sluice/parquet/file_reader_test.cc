// Reading files built page by page (reader_testing.h): every page kind, encoding and codec, the
// nested shapes, legacy lists, projection, and the canonical text of each value type.
#include "sluice/parquet/file_reader.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "sluice/parquet/byte_stream_split.h"
#include "sluice/parquet/delta.h"
#include "sluice/parquet/dictionary.h"
#include "sluice/parquet/reader_testing.h"

namespace sluice::parquet {
namespace {

using testing::Build;
using testing::BuildFile;
using testing::ChunkSpec;
using ::testing::ElementsAre;
using testing::FileSpec;
using testing::Finish;
using ::testing::HasSubstr;
using testing::PageSpec;
using testing::Plain;
using testing::PlainBools;
using testing::PlainStrings;
using testing::ReadRows;

std::vector<std::string> MustRead(const std::string& bytes, const Projection& projection = {}) {
  auto rows = ReadRows(bytes, projection);
  EXPECT_TRUE(rows.has_value()) << (rows ? "" : rows.error().ToString());
  return rows ? *rows : std::vector<std::string>{};
}

PageSpec DataPage(std::vector<int16_t> def, std::string values,
                  Encoding encoding = Encoding::kPlain) {
  PageSpec p;
  p.def = std::move(def);
  p.values = std::move(values);
  p.encoding = encoding;
  return p;
}

PageSpec NestedPage(std::vector<int16_t> rep, std::vector<int16_t> def, std::string values) {
  PageSpec p;
  p.rep = std::move(rep);
  p.def = std::move(def);
  p.values = std::move(values);
  return p;
}

TEST(FileReaderTest, FlatColumnsWithNulls) {
  FileSpec spec;
  spec.schema = "message m { optional int32 a; required binary s (STRING); optional boolean b; }";
  spec.row_groups = {{
      ChunkSpec{{DataPage({1, 0, 1}, Plain<int32_t>({7, -3}))}},
      ChunkSpec{{DataPage({}, PlainStrings({"x", "h\"i\n", "\xc3\xa9"}))}},
      ChunkSpec{{DataPage({0, 1, 1}, PlainBools({true, false}))}},
  }};
  // A required column has no definition levels: its value count is its row count.
  spec.row_groups[0][1].pages[0].num_values = 3;
  spec.num_rows = {3};
  EXPECT_THAT(MustRead(BuildFile(spec)),
              ElementsAre(R"({"a":7,"s":"x","b":null})", R"({"a":null,"s":"h\"i\n","b":true})",
                          "{\"a\":-3,\"s\":\"\xc3\xa9\",\"b\":false}"));
}

TEST(FileReaderTest, DictionaryPagesAndIndexes) {
  FileSpec spec;
  spec.schema = "message m { optional binary s (STRING); }";
  std::string indexes;
  EncodeDictionaryIndexes(std::vector<uint32_t>{1, 0, 1, 1}, 1, indexes);
  PageSpec dict;
  dict.type = PageType::kDictionaryPage;
  dict.values = PlainStrings({"zero", "one"});
  dict.dict_count = 2;
  spec.row_groups = {
      {ChunkSpec{{dict, DataPage({1, 1, 0, 1, 1}, indexes, Encoding::kRleDictionary)}}}};
  EXPECT_THAT(MustRead(BuildFile(spec)),
              ElementsAre(R"({"s":"one"})", R"({"s":"zero"})", R"({"s":null})", R"({"s":"one"})",
                          R"({"s":"one"})"));
}

TEST(FileReaderTest, DictionaryThenPlainFallbackInOneChunk) {
  FileSpec spec;
  spec.schema = "message m { required int64 v; }";
  std::string indexes;
  EncodeDictionaryIndexes(std::vector<uint32_t>{0, 0}, 0, indexes);
  PageSpec dict;
  dict.type = PageType::kDictionaryPage;
  dict.values = Plain<int64_t>({42});
  dict.dict_count = 1;
  PageSpec first = DataPage({}, indexes, Encoding::kPlainDictionary);
  first.num_values = 2;
  PageSpec second = DataPage({}, Plain<int64_t>({-1, 9007199254740993}));
  second.num_values = 2;
  spec.row_groups = {{ChunkSpec{{dict, first, second}}}};
  spec.num_rows = {4};
  EXPECT_THAT(MustRead(BuildFile(spec)), ElementsAre(R"({"v":42})", R"({"v":42})", R"({"v":-1})",
                                                     R"({"v":9007199254740993})"));
}

TEST(FileReaderTest, EveryCodecAndBothPageVersions) {
  for (Codec codec :
       {Codec::kUncompressed, Codec::kSnappy, Codec::kGzip, Codec::kZstd, Codec::kLz4Raw}) {
    for (PageType type : {PageType::kDataPage, PageType::kDataPageV2}) {
      for (bool v2_compressed : {true, false}) {
        FileSpec spec;
        spec.schema = "message m { optional double d; }";
        PageSpec p = DataPage({1, 1, 0, 1}, Plain<double>({0.1, 1e300, -2.5}));
        p.type = type;
        p.v2_compressed = v2_compressed;
        spec.row_groups = {{ChunkSpec{{p}, codec}}};
        SCOPED_TRACE(std::string(CodecName(codec)) + (type == PageType::kDataPage ? " v1" : " v2"));
        EXPECT_THAT(MustRead(BuildFile(spec)), ElementsAre(R"({"d":0.1})", R"({"d":1e+300})",
                                                           R"({"d":null})", R"({"d":-2.5})"));
      }
    }
  }
}

TEST(FileReaderTest, DeprecatedBitPackedLevels) {
  FileSpec spec;
  spec.schema = "message m { optional group g { optional int32 a; } }";
  PageSpec p = DataPage({2, 0, 1, 2, 2}, Plain<int32_t>({1, 2, 3}));
  p.level_encoding = Encoding::kBitPacked;
  spec.row_groups = {{ChunkSpec{{p}}}};
  EXPECT_THAT(MustRead(BuildFile(spec)),
              ElementsAre(R"({"g":{"a":1}})", R"({"g":null})", R"({"g":{"a":null}})",
                          R"({"g":{"a":2}})", R"({"g":{"a":3}})"));
}

TEST(FileReaderTest, DeltaByteStreamSplitAndRleBooleanEncodings) {
  DeltaBinaryPackedEncoder<int64_t> delta;
  for (int64_t v : {int64_t{5}, int64_t{7}, int64_t{-100}, int64_t{1} << 40}) delta.Put(v);
  std::string delta_bytes;
  delta.FlushTo(delta_bytes);
  DeltaLengthByteArrayEncoder dlba;
  for (std::string_view v : {"a", "", "ccc", "dd"}) dlba.Put(v);
  std::string dlba_bytes;
  dlba.FlushTo(dlba_bytes);
  DeltaByteArrayEncoder dba;
  for (std::string_view v : {"apple", "applesauce", "apply", "b"}) dba.Put(v);
  std::string dba_bytes;
  dba.FlushTo(dba_bytes);
  std::string bss;
  ByteStreamSplitEncode<float>(std::vector<float>{0.1f, -0.0f, 3.5f, 1e-45f}, bss);
  const std::string rle_bools = testing::Levels(std::vector<int16_t>{1, 0, 0, 1}, 1, true);

  FileSpec spec;
  spec.schema =
      "message m { required int64 a; required binary b (STRING); required binary c (STRING);"
      " required float d; required boolean e; }";
  auto page = [](std::string values, Encoding e) {
    PageSpec p = DataPage({}, std::move(values), e);
    p.num_values = 4;
    return ChunkSpec{{p}};
  };
  spec.row_groups = {{page(delta_bytes, Encoding::kDeltaBinaryPacked),
                      page(dlba_bytes, Encoding::kDeltaLengthByteArray),
                      page(dba_bytes, Encoding::kDeltaByteArray),
                      page(bss, Encoding::kByteStreamSplit), page(rle_bools, Encoding::kRle)}};
  spec.num_rows = {4};
  EXPECT_THAT(MustRead(BuildFile(spec)),
              ElementsAre(R"({"a":5,"b":"a","c":"apple","d":0.1,"e":true})",
                          R"({"a":7,"b":"","c":"applesauce","d":-0,"e":false})",
                          R"({"a":-100,"b":"ccc","c":"apply","d":3.5,"e":false})",
                          R"({"a":1099511627776,"b":"dd","c":"b","d":1e-45,"e":true})"));
}

constexpr std::string_view kListSchema = R"(message m {
  optional group l (LIST) {
    repeated group list {
      optional int32 element;
    }
  }
})";

TEST(FileReaderTest, ListsNullEmptyAndNullElements) {
  FileSpec spec;
  spec.schema = kListSchema;
  // [1, null, 2], null, [], [3]
  spec.row_groups = {
      {ChunkSpec{{NestedPage({0, 1, 1, 0, 0, 0}, {3, 2, 3, 0, 1, 3}, Plain<int32_t>({1, 2, 3}))}}}};
  EXPECT_THAT(MustRead(BuildFile(spec)),
              ElementsAre(R"({"l":[1,null,2]})", R"({"l":null})", R"({"l":[]})", R"({"l":[3]})"));
}

TEST(FileReaderTest, ARowMaySpanDataPagesV1) {
  FileSpec spec;
  spec.schema = kListSchema;
  // Row 1 is [1, 2, 3, 4], cut after its second element.
  spec.row_groups = {{ChunkSpec{{NestedPage({0, 1}, {3, 3}, Plain<int32_t>({1, 2})),
                                 NestedPage({1, 1, 0}, {3, 3, 3}, Plain<int32_t>({3, 4, 5}))}}}};
  EXPECT_THAT(MustRead(BuildFile(spec)), ElementsAre(R"({"l":[1,2,3,4]})", R"({"l":[5]})"));
}

TEST(FileReaderTest, MapsAndListsOfStructs) {
  FileSpec spec;
  spec.schema = R"(message m {
    optional group m (MAP) {
      repeated group key_value {
        required binary key (STRING);
        optional int64 value;
      }
    }
    optional group s (LIST) {
      repeated group list {
        optional group element {
          optional int32 x;
          optional binary y (STRING);
        }
      }
    }
  })";
  spec.row_groups = {{
      // {"a": 1, "b": null}, {}, null
      ChunkSpec{{NestedPage({0, 1, 0, 0}, {2, 2, 1, 0}, PlainStrings({"a", "b"}))}},
      ChunkSpec{{NestedPage({0, 1, 0, 0}, {3, 2, 1, 0}, Plain<int64_t>({1}))}},
      // [{x: 1, y: "p"}, null, {x: null, y: null}], [], null
      ChunkSpec{{NestedPage({0, 1, 1, 0, 0}, {4, 2, 3, 1, 0}, Plain<int32_t>({1}))}},
      ChunkSpec{{NestedPage({0, 1, 1, 0, 0}, {4, 2, 3, 1, 0}, PlainStrings({"p"}))}},
  }};
  EXPECT_THAT(
      MustRead(BuildFile(spec)),
      ElementsAre(
          R"({"m":[{"key":"a","value":1},{"key":"b","value":null}],"s":[{"x":1,"y":"p"},null,{"x":null,"y":null}]})",
          R"({"m":[],"s":[]})", R"({"m":null,"s":null})"));
}

TEST(FileReaderTest, NestedListsKeepTheirBoundaries) {
  FileSpec spec;
  spec.schema = R"(message m {
    required group l (LIST) {
      repeated group list {
        required group element (LIST) {
          repeated group list {
            required int32 element;
          }
        }
      }
    }
  })";
  // [[1, 2], [], [3]], [[4]]
  spec.row_groups = {
      {ChunkSpec{{NestedPage({0, 2, 1, 1, 0}, {2, 2, 1, 2, 2}, Plain<int32_t>({1, 2, 3, 4}))}}}};
  EXPECT_THAT(MustRead(BuildFile(spec)), ElementsAre(R"({"l":[[1,2],[],[3]]})", R"({"l":[[4]]})"));
}

TEST(FileReaderTest, LegacyListShapes) {
  FileSpec spec;
  // A 2-level list, an unannotated repeated field, and Spark's legacy `bag`/`array` shape.
  spec.schema = R"(message m {
    optional group a (LIST) { repeated int32 array; }
    repeated binary r (STRING);
    optional group b (LIST) { repeated group bag { optional int32 array; } }
  })";
  spec.row_groups = {{
      ChunkSpec{{NestedPage({0, 1, 0}, {2, 2, 0}, Plain<int32_t>({1, 2}))}},
      ChunkSpec{{NestedPage({0, 0, 1}, {0, 1, 1}, PlainStrings({"x", "y"}))}},
      ChunkSpec{{NestedPage({0, 0, 1}, {1, 3, 2}, Plain<int32_t>({5}))}},
  }};
  EXPECT_THAT(MustRead(BuildFile(spec)), ElementsAre(R"({"a":[1,2],"r":[],"b":[]})",
                                                     R"({"a":null,"r":["x","y"],"b":[5,null]})"));
}

TEST(FileReaderTest, RowGroupsAreReadInOrder) {
  FileSpec spec;
  spec.schema = "message m { required int32 a; }";
  PageSpec p1 = DataPage({}, Plain<int32_t>({1, 2}));
  p1.num_values = 2;
  PageSpec p2 = DataPage({}, Plain<int32_t>({3}));
  p2.num_values = 1;
  spec.row_groups = {{ChunkSpec{{p1}}}, {ChunkSpec{{p2}}}};
  spec.num_rows = {2, 1};
  const std::string bytes = BuildFile(spec);
  EXPECT_THAT(MustRead(bytes), ElementsAre(R"({"a":1})", R"({"a":2})", R"({"a":3})"));

  auto fs = std::make_shared<MemoryFileSystem>();
  ASSERT_TRUE(fs->WriteFile("t.parquet", bytes).has_value());
  auto reader = FileReader::Open(fs, "t.parquet");
  ASSERT_TRUE(reader.has_value());
  EXPECT_EQ((*reader)->num_row_groups(), 2);
  EXPECT_EQ((*reader)->num_rows(), 3);
  std::vector<std::string> rows;
  ASSERT_TRUE((*reader)
                  ->ReadRows(1, {},
                             [&](std::string_view r) -> Status {
                               rows.emplace_back(r);
                               return Ok();
                             })
                  .has_value());
  EXPECT_THAT(rows, ElementsAre(R"({"a":3})"));
  EXPECT_FALSE((*reader)->ReadRows(2, {}, [](std::string_view) { return Ok(); }).has_value());
}

TEST(FileReaderTest, ProjectionReadsOnlyTheNamedFields) {
  FileSpec spec;
  spec.schema = R"(message m {
    optional int32 a;
    optional group b { optional int32 c; optional int32 d; }
    optional group s (LIST) {
      repeated group list { optional group element { optional int32 x; optional int32 y; } }
    }
  })";
  spec.row_groups = {{
      ChunkSpec{{DataPage({1}, Plain<int32_t>({1}))}},
      ChunkSpec{{DataPage({2}, Plain<int32_t>({2}))}},
      ChunkSpec{{DataPage({2}, Plain<int32_t>({3}))}},
      ChunkSpec{{NestedPage({0, 1}, {4, 4}, Plain<int32_t>({4, 5}))}},
      ChunkSpec{{NestedPage({0, 1}, {4, 4}, Plain<int32_t>({6, 7}))}},
  }};
  const std::string bytes = BuildFile(spec);
  EXPECT_THAT(MustRead(bytes, {{"b.d", "a"}}), ElementsAre(R"({"a":1,"b":{"d":3}})"));
  EXPECT_THAT(MustRead(bytes, {{"s[].y"}}), ElementsAre(R"({"s":[{"y":6},{"y":7}]})"));
  EXPECT_THAT(MustRead(bytes, {{"s.x"}}), ElementsAre(R"({"s":[{"x":4},{"x":5}]})"));
  auto missing = ReadRows(bytes, {{"b.e"}});
  ASSERT_FALSE(missing.has_value());
  EXPECT_EQ(missing.error().code(), ErrorCode::kInvalidArgument);
  EXPECT_THAT(missing.error().message(), HasSubstr("no column 'b.e'"));
  EXPECT_THAT(missing.error().message(), HasSubstr("c, d"));

  // Unselected chunks are never read: a broken chunk outside the projection does not matter.
  auto built = Build(spec);
  built.meta.row_groups[0].columns[1].meta_data->codec = Codec::kSnappy;
  EXPECT_THAT(MustRead(Finish(built), {{"a"}}), ElementsAre(R"({"a":1})"));
  EXPECT_FALSE(ReadRows(Finish(built), {{"b"}}).has_value());
}

TEST(FileReaderTest, ColumnsDecodedOnSeveralThreadsGiveTheSameRows) {
  FileSpec spec;
  spec.schema =
      std::string(kListSchema)
          .replace(std::string(kListSchema).rfind('}'), 1, "optional binary s (STRING); }");
  std::vector<int16_t> rep, def, sdef;
  std::vector<int32_t> values;
  std::vector<std::string> strings;
  for (int i = 0; i < 20000; ++i) {
    rep.push_back(0);
    def.push_back(3);
    values.push_back(i);
    rep.push_back(1);
    def.push_back(i % 3 == 0 ? 2 : 3);
    if (i % 3 != 0) values.push_back(-i);
    sdef.push_back(i % 5 == 0 ? 0 : 1);
    if (i % 5 != 0) strings.push_back("s" + std::to_string(i));
  }
  std::vector<std::string_view> views(strings.begin(), strings.end());
  spec.row_groups = {{ChunkSpec{{NestedPage(rep, def, Plain<int32_t>(values))}, Codec::kZstd},
                      ChunkSpec{{DataPage(sdef, PlainStrings(views))}, Codec::kSnappy}}};
  const std::string bytes = BuildFile(spec);
  const auto one = MustRead(bytes);
  ASSERT_EQ(one.size(), 20000u);
  EXPECT_EQ(one[4], R"({"l":[4,-4],"s":"s4"})");
  EXPECT_EQ(one[15], R"({"l":[15,null],"s":null})");
  ReaderOptions threaded;
  threaded.threads = 4;
  auto four = ReadRows(bytes, {}, threaded);
  ASSERT_TRUE(four.has_value());
  EXPECT_EQ(*four, one);
}

}  // namespace
}  // namespace sluice::parquet
