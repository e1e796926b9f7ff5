// Hostile files: each lie a file can tell is a clear error naming the file and where, never a
// crash, a read out of bounds or an allocation the file chose.
#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "sluice/parquet/dictionary.h"
#include "sluice/parquet/file_reader.h"
#include "sluice/parquet/reader_testing.h"

namespace sluice::parquet {
namespace {

using testing::Build;
using testing::BuildFile;
using testing::BuiltFile;
using testing::ChunkSpec;
using testing::FileSpec;
using testing::Finish;
using ::testing::HasSubstr;
using testing::PageSpec;
using testing::Plain;
using testing::PlainStrings;
using testing::ReadRows;

PageSpec Page(std::vector<int16_t> rep, std::vector<int16_t> def, std::string values) {
  PageSpec p;
  p.rep = std::move(rep);
  p.def = std::move(def);
  p.values = std::move(values);
  return p;
}

// A small valid file: a string column with a dictionary and a list column, snappy.
FileSpec SmallFile() {
  FileSpec spec;
  spec.schema = R"(message m {
    optional binary s (STRING);
    optional group l (LIST) { repeated group list { optional int64 element; } }
  })";
  std::string indexes;
  EncodeDictionaryIndexes(std::vector<uint32_t>{0, 1, 1}, 1, indexes);
  PageSpec dict;
  dict.type = PageType::kDictionaryPage;
  dict.values = PlainStrings({"left", "right"});
  dict.dict_count = 2;
  PageSpec data = Page({}, {1, 1, 0, 1}, indexes);
  data.encoding = Encoding::kRleDictionary;
  spec.row_groups = {{ChunkSpec{{dict, data}, Codec::kSnappy},
                      ChunkSpec{{Page({0, 1, 0, 0, 0}, {3, 3, 0, 1, 2}, Plain<int64_t>({1, 2}))},
                                Codec::kSnappy}}};
  return spec;
}

// A file that opens and is screened against its own schema, read without text (row_screen.h):
// an error too, never a crash.
void MustFailWithoutText(const std::string& bytes, const ReaderOptions& options) {
  auto fs = std::make_shared<MemoryFileSystem>();
  ASSERT_TRUE(fs->WriteFile("t.parquet", bytes).has_value());
  auto reader = FileReader::Open(fs, "t.parquet", options);
  if (!reader) return;
  std::optional<ScreenedPlan> plan = (*reader)->PlanScreen({(*reader)->schema()->struct_type()});
  if (!plan) return;
  Status status = Ok();
  for (int g = 0; g < (*reader)->num_row_groups() && status.has_value(); ++g) {
    status = (*reader)->ReadScreenedRowBatches(
        g, plan->plan, [](std::string_view, size_t, const std::vector<uint32_t>&) { return Ok(); },
        /*text_free=*/true);
  }
  EXPECT_FALSE(status.has_value()) << "read without text";
}

Error MustFail(const std::string& bytes, const ReaderOptions& options = {}) {
  MustFailWithoutText(bytes, options);
  auto rows = ReadRows(bytes, {}, options);
  EXPECT_FALSE(rows.has_value()) << "read " << (rows ? rows->size() : 0) << " rows";
  if (rows) return Error(ErrorCode::kInternal, "read");
  EXPECT_THAT(rows.error().message(), HasSubstr("t.parquet"));
  return rows.error();
}

TEST(FileReaderHostileTest, TheSmallFileReads) {
  auto rows = ReadRows(BuildFile(SmallFile()));
  ASSERT_TRUE(rows.has_value()) << rows.error().ToString();
  EXPECT_THAT(*rows,
              ::testing::ElementsAre(R"({"s":"left","l":[1,2]})", R"({"s":"right","l":null})",
                                     R"({"s":null,"l":[]})", R"({"s":"right","l":[null]})"));
}

TEST(FileReaderHostileTest, EveryTruncationFails) {
  const std::string bytes = BuildFile(SmallFile());
  for (size_t n = 0; n < bytes.size(); ++n) {
    SCOPED_TRACE(n);
    const Error e = MustFail(bytes.substr(0, n));
    EXPECT_EQ(e.code(), ErrorCode::kInvalidArgument) << e.message();
  }
}

TEST(FileReaderHostileTest, TruncatedDataBeforeAnIntactFooterNamesTheChunk) {
  // Cut bytes out of the data section but keep the footer whole: the chunks point past it.
  BuiltFile f = Build(SmallFile());
  f.data.resize(f.data.size() - 10);
  const Error e = MustFail(Finish(f));
  EXPECT_THAT(e.message(), HasSubstr("column l"));
  EXPECT_THAT(e.message(), HasSubstr("overlaps the footer"));
}

TEST(FileReaderHostileTest, WrongMagicAtEitherEnd) {
  std::string bytes = BuildFile(SmallFile());
  std::string head = bytes;
  head[0] = 'X';
  EXPECT_THAT(MustFail(head).message(), HasSubstr("byte 0: not a Parquet file"));
  std::string tail = bytes;
  tail.back() = 'X';
  EXPECT_THAT(MustFail(tail).message(), HasSubstr("no \"PAR1\" at the end"));
  std::string encrypted = bytes;
  encrypted.replace(encrypted.size() - 4, 4, "PARE");
  const Error e = MustFail(encrypted);
  EXPECT_EQ(e.code(), ErrorCode::kUnimplemented);
  EXPECT_THAT(e.message(), HasSubstr("encrypted"));
}

TEST(FileReaderHostileTest, FooterLengthPastTheFile) {
  std::string bytes = BuildFile(SmallFile());
  const size_t at = bytes.size() - 8;
  for (uint32_t len : {uint32_t(bytes.size()), uint32_t(bytes.size() - 11), 0xFFFFFFFFu}) {
    for (int i = 0; i < 4; ++i) bytes[at + i] = static_cast<char>((len >> (8 * i)) & 0xff);
    EXPECT_THAT(
        MustFail(bytes).message(),
        HasSubstr(fmt::format("byte {}: a footer of {} bytes runs past the start", at, len)));
  }
}

TEST(FileReaderHostileTest, GarbageFooter) {
  BuiltFile f = Build(SmallFile());
  std::string bytes = Finish(f);
  // Overwrite the footer's first bytes: the decoder's error comes with the footer's place.
  const size_t footer = f.data.size();
  for (size_t i = 0; i < 6; ++i) bytes[footer + i] = '\xff';
  EXPECT_THAT(MustFail(bytes).message(), HasSubstr(fmt::format("the footer at byte {}", footer)));
}

TEST(FileReaderHostileTest, ChunkOffsetsPastTheFileOrIntoTheFooter) {
  const FileSpec spec = SmallFile();
  {
    BuiltFile f = Build(spec);
    f.meta.row_groups[0].columns[1].meta_data->data_page_offset = 1 << 30;
    EXPECT_THAT(MustFail(Finish(f)).message(), HasSubstr("runs past the end of the"));
  }
  {
    BuiltFile f = Build(spec);
    f.meta.row_groups[0].columns[1].meta_data->total_compressed_size += 3;
    EXPECT_THAT(MustFail(Finish(f)).message(), HasSubstr("overlaps the footer at byte"));
  }
  {
    BuiltFile f = Build(spec);
    f.meta.row_groups[0].columns[0].meta_data->dictionary_page_offset = 2;
    EXPECT_THAT(MustFail(Finish(f)).message(), HasSubstr("a chunk at byte 2"));
  }
  {
    BuiltFile f = Build(spec);
    f.meta.row_groups[0].columns[0].meta_data->total_compressed_size = -5;
    EXPECT_THAT(MustFail(Finish(f)).message(), HasSubstr("of -5 bytes"));
  }
}

TEST(FileReaderHostileTest, ChunksThatDoNotMatchTheSchema) {
  {
    BuiltFile f = Build(SmallFile());
    f.meta.row_groups[0].columns[0].file_path = "other.parquet";
    const Error e = MustFail(Finish(f));
    EXPECT_EQ(e.code(), ErrorCode::kUnimplemented);
    EXPECT_THAT(e.message(), HasSubstr("another file ('other.parquet')"));
  }
  {
    BuiltFile f = Build(SmallFile());
    f.meta.row_groups[0].columns[0].meta_data.reset();
    EXPECT_EQ(MustFail(Finish(f)).code(), ErrorCode::kUnimplemented);
  }
  {
    BuiltFile f = Build(SmallFile());
    f.meta.row_groups[0].columns[1].meta_data->type = PhysicalType::kInt32;
    EXPECT_THAT(MustFail(Finish(f)).message(), HasSubstr("holds INT32, the schema says INT64"));
  }
  {
    BuiltFile f = Build(SmallFile());
    f.meta.row_groups[0].columns.pop_back();
    EXPECT_THAT(MustFail(Finish(f)).message(), HasSubstr("has 1 column chunks, the schema 2"));
  }
  {
    BuiltFile f = Build(SmallFile());
    f.meta.row_groups[0].columns[0].meta_data->path_in_schema = {"t"};
    EXPECT_THAT(MustFail(Finish(f)).message(), HasSubstr("the chunk is for column 't'"));
  }
}

TEST(FileReaderHostileTest, PageThatClaimsToDecompressTo100TimesItsSize) {
  FileSpec spec = SmallFile();
  PageSpec& data = spec.row_groups[0][1].pages[0];
  const int32_t real = 2 + 4 + 2 + 4 + 16;  // levels (length-prefixed) and two int64
  data.uncompressed_size = real * 100;
  const Error e = MustFail(BuildFile(spec));
  EXPECT_THAT(e.message(), HasSubstr("column l"));
  EXPECT_THAT(e.message(), HasSubstr("page at byte"));
  // A claim past the limit fails before the decompressor allocates anything.
  spec.row_groups[0][1].pages[0].uncompressed_size = 1 << 30;
  ReaderOptions small;
  small.max_page_size = 1 << 20;
  EXPECT_THAT(MustFail(BuildFile(spec), small).message(),
              HasSubstr("a page of 1073741824 bytes uncompressed (the limit is 1048576)"));
}

TEST(FileReaderHostileTest, SizesNoCodecCanReachFailBeforeDecompressing) {
  for (Codec codec : {Codec::kGzip, Codec::kZstd, Codec::kLz4Raw}) {
    FileSpec spec = SmallFile();
    for (auto& chunk : spec.row_groups[0]) chunk.codec = codec;
    spec.row_groups[0][1].pages[0].uncompressed_size = 1 << 29;
    const Error e = MustFail(BuildFile(spec));
    EXPECT_THAT(e.message(), HasSubstr("cannot decompress to the 536870912 bytes it declares"))
        << CodecName(codec);
  }
  FileSpec spec = SmallFile();
  spec.row_groups[0][1].pages[0].uncompressed_size = 29 * 2;
  EXPECT_THAT(MustFail(BuildFile(spec)).message(),
              HasSubstr("a SNAPPY page declared as 58 bytes whose stream says 29"));
}

TEST(FileReaderHostileTest, LevelsOutOfRange) {
  FileSpec spec;
  spec.schema = "message m { optional group g { optional int32 a; } }";  // max def 2: 2 bits
  spec.row_groups = {{ChunkSpec{{Page({}, {2, 3}, Plain<int32_t>({1}))}}}};
  EXPECT_THAT(MustFail(BuildFile(spec)).message(),
              HasSubstr("definition level 3 above the column's maximum 2"));

  spec.schema = R"(message m { optional group l (LIST) { repeated group list {
    optional group e (LIST) { repeated group list { optional int32 element; } } } } })";
  spec.row_groups = {{ChunkSpec{{Page({0, 3}, {5, 5}, Plain<int32_t>({1, 2}))}}}};
  EXPECT_THAT(MustFail(BuildFile(spec)).message(),
              HasSubstr("repetition level 3 above the column's maximum 2"));

  // The chunk's first entry must start a row.
  spec.row_groups = {{ChunkSpec{{Page({1, 0}, {5, 5}, Plain<int32_t>({1, 2}))}}}};
  EXPECT_THAT(MustFail(BuildFile(spec)).message(),
              HasSubstr("the page's first repetition level is 1, where a row must start"));
}

TEST(FileReaderHostileTest, DictionaryIndexOutOfRange) {
  FileSpec spec = SmallFile();
  std::string indexes;
  EncodeDictionaryIndexes(std::vector<uint32_t>{0, 5, 1}, 3, indexes);
  spec.row_groups[0][0].pages[1].values = indexes;
  const Error e = MustFail(BuildFile(spec));
  EXPECT_THAT(e.message(), HasSubstr("column s"));
  EXPECT_THAT(e.message(), HasSubstr("page at byte"));
}

TEST(FileReaderHostileTest, DictionariesPastTheLimit) {
  ReaderOptions small;
  small.max_dictionary_entries = 1;
  EXPECT_THAT(MustFail(BuildFile(SmallFile()), small).message(),
              HasSubstr("a dictionary page of 2 values (the limit is 1)"));
}

TEST(FileReaderHostileTest, DictionaryPagesOutOfPlace) {
  FileSpec spec = SmallFile();
  std::swap(spec.row_groups[0][0].pages[0], spec.row_groups[0][0].pages[1]);
  EXPECT_FALSE(ReadRows(BuildFile(spec)).has_value());
  spec = SmallFile();
  spec.row_groups[0][0].pages.erase(spec.row_groups[0][0].pages.begin());
  EXPECT_THAT(MustFail(BuildFile(spec)).message(),
              HasSubstr("a dictionary-encoded page in a chunk without a dictionary page"));
}

TEST(FileReaderHostileTest, NumValuesLies) {
  {
    // The page says 10 values; its levels hold 5.
    FileSpec spec = SmallFile();
    spec.row_groups[0][1].pages[0].num_values = 10;
    const Error e = MustFail(BuildFile(spec));
    EXPECT_THAT(e.message(), HasSubstr("column l"));
  }
  {
    // The chunk says more values than its pages hold.
    BuiltFile f = Build(SmallFile());
    f.meta.row_groups[0].columns[1].meta_data->num_values = 7;
    EXPECT_THAT(MustFail(Finish(f)).message(), HasSubstr("the chunk ends after 5 of its 7 values"));
  }
  {
    // ... or fewer.
    BuiltFile f = Build(SmallFile());
    f.meta.row_groups[0].columns[1].meta_data->num_values = 3;
    EXPECT_THAT(MustFail(Finish(f)).message(), HasSubstr("a data page of 5 values; the chunk"));
  }
  {
    // The row group says more rows than the columns hold, or fewer.
    BuiltFile f = Build(SmallFile());
    f.meta.row_groups[0].num_rows = 5;
    EXPECT_THAT(MustFail(Finish(f)).message(), HasSubstr("holds 4 rows, the row group 5"));
    f.meta.row_groups[0].num_rows = 3;
    EXPECT_THAT(MustFail(Finish(f)).message(), HasSubstr("holds more than the row group's 3 rows"));
  }
  {
    // A huge value count in a tiny page does not make the reader allocate it.
    FileSpec spec = SmallFile();
    spec.row_groups[0][1].pages[0].num_values = 2000000000;
    BuiltFile f = Build(spec);
    f.meta.row_groups[0].columns[1].meta_data->num_values = 2000000000;
    MustFail(Finish(f));
  }
}

TEST(FileReaderHostileTest, ColumnsWhoseLevelsDisagree) {
  FileSpec spec;
  spec.schema = R"(message m { optional group s (LIST) { repeated group list {
    optional group element { optional int32 x; optional int32 y; } } } })";
  // x says the first row has two elements, y says three.
  spec.row_groups = {{ChunkSpec{{Page({0, 1, 0}, {4, 4, 4}, Plain<int32_t>({1, 2, 3}))}},
                      ChunkSpec{{Page({0, 1, 1, 0}, {4, 4, 4, 4}, Plain<int32_t>({1, 2, 3, 4}))}}}};
  spec.num_rows = {2};
  const Error e = MustFail(BuildFile(spec));
  EXPECT_THAT(e.message(), HasSubstr("column s.list.element.y"));
  EXPECT_THAT(e.message(), HasSubstr("repetition level 1 where 0 was expected"));

  // A null struct in one leaf, a present value in its sibling.
  spec.row_groups = {
      {ChunkSpec{{Page({0}, {2}, "")}}, ChunkSpec{{Page({0}, {4}, Plain<int32_t>({1}))}}}};
  spec.num_rows = {1};
  EXPECT_THAT(MustFail(BuildFile(spec)).message(),
              HasSubstr("(rep 0, def 4) where (rep 0, def 2)"));
}

TEST(FileReaderHostileTest, BadValueBytes) {
  {
    // Plain values shorter than the levels say.
    FileSpec spec = SmallFile();
    spec.row_groups[0][1].pages[0].values = Plain<int64_t>({1});
    EXPECT_THAT(MustFail(BuildFile(spec)).message(), HasSubstr("column l"));
  }
  {
    // An encoding the type cannot have.
    FileSpec spec = SmallFile();
    spec.row_groups[0][1].pages[0].encoding = Encoding::kDeltaLengthByteArray;
    EXPECT_THAT(MustFail(BuildFile(spec)).message(), HasSubstr("column l"));
  }
}

}  // namespace
}  // namespace sluice::parquet
