#include "sluice/parquet/file_writer.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

#include "sluice/base/string_sink_testing.h"
#include "sluice/parquet/chunk_reader_testing.h"
#include "sluice/schema/type.h"

namespace sluice::parquet {
namespace {

using ::sluice::testing::StringSink;

using schema::Field;
using schema::Type;

// id BIGINT NOT NULL, name STRING, tags ARRAY<STRING>
schema::SchemaPtr TestSchema() {
  auto tags = Type::Array(Type::String()).value();
  return schema::Schema::Make({Field("id", Type::Int64(), false), Field("name", Type::String()),
                               Field("tags", tags)})
      .value();
}

// Append row `i` to the writer: tags hold i % 3 entries, name is null every 5th row.
Status AppendRow(FileWriter& w, int64_t i) {
  ColumnWriter* c = w.columns();
  c[0].AppendInt64(i, 0);
  if (i % 5 == 0) {
    c[1].AppendNull(0, 0);
  } else {
    c[1].AppendBytes("name-" + std::to_string(i % 7), 0);
  }
  const int n = static_cast<int>(i % 3);
  if (n == 0) c[2].AppendNull(1, 0);  // empty list
  for (int k = 0; k < n; ++k) c[2].AppendBytes("t" + std::to_string(k), k == 0 ? 0 : 1);
  return w.EndRow();
}

Result<FileMetaData> Footer(std::string_view file) {
  if (file.size() < 12 || file.substr(0, 4) != "PAR1" || file.substr(file.size() - 4) != "PAR1") {
    return InvalidArgument("not a Parquet file");
  }
  uint32_t n = 0;
  std::memcpy(&n, file.data() + file.size() - 8, 4);
  return ReadFileMetaData(file.substr(file.size() - 8 - n, n));
}

std::string WriteRows(int64_t rows, WriterOptions options) {
  StringSink sink;
  auto w = FileWriter::Open(TestSchema(), sink, std::move(options));
  EXPECT_TRUE(w.has_value()) << w.error().message();
  for (int64_t i = 0; i < rows; ++i) EXPECT_TRUE(AppendRow(**w, i).has_value());
  Status s = (*w)->Close();
  EXPECT_TRUE(s.has_value()) << s.error().message();
  EXPECT_EQ((*w)->bytes_written(), static_cast<int64_t>(sink.text.size()));
  return sink.text;
}

TEST(FileWriterTest, WritesAFooterThatDescribesTheRowGroups) {
  WriterOptions options;
  options.max_rows_per_row_group = 400;
  options.key_value_metadata = {{"org.apache.spark.sql.parquet.row.metadata", "{}"}};
  const std::string file = WriteRows(1000, options);
  auto meta = Footer(file);
  ASSERT_TRUE(meta.has_value()) << meta.error().message();
  EXPECT_EQ(meta->num_rows, 1000);
  ASSERT_EQ(meta->row_groups.size(), 3u);
  EXPECT_EQ(meta->row_groups[0].num_rows, 400);
  EXPECT_EQ(meta->row_groups[2].num_rows, 200);
  EXPECT_EQ(meta->created_by, std::string(DefaultCreatedBy()));
  EXPECT_TRUE(meta->created_by->starts_with("sluice version "));
  EXPECT_EQ(meta->key_value_metadata, options.key_value_metadata);
  EXPECT_EQ(meta->column_orders, std::vector<bool>(3, true));
  ASSERT_EQ(meta->schema.size(), 6u);  // root, id, name, tags, list, element
  EXPECT_EQ(meta->schema[0].name, "spark_schema");

  // Chunks follow each other from byte 4 to the footer; every offset lands on a page header.
  int64_t expected_offset = 4;
  for (size_t g = 0; g < meta->row_groups.size(); ++g) {
    const RowGroup& group = meta->row_groups[g];
    EXPECT_EQ(group.ordinal, static_cast<int16_t>(g));
    EXPECT_EQ(group.file_offset, expected_offset);
    int64_t compressed = 0;
    ASSERT_EQ(group.columns.size(), 3u);
    for (const ColumnChunk& chunk : group.columns) {
      const ColumnMetaData& cm = *chunk.meta_data;
      EXPECT_EQ(chunk.file_offset, expected_offset);
      EXPECT_EQ(cm.codec, Codec::kSnappy);
      const int64_t first = cm.dictionary_page_offset.value_or(cm.data_page_offset);
      EXPECT_EQ(first, expected_offset);
      size_t header_size = 0;
      auto header = ReadPageHeader(
          std::string_view(file).substr(static_cast<size_t>(cm.data_page_offset)), &header_size);
      ASSERT_TRUE(header.has_value());
      EXPECT_EQ(header->type, PageType::kDataPage);
      if (cm.dictionary_page_offset) {
        auto dict = ReadPageHeader(
            std::string_view(file).substr(static_cast<size_t>(*cm.dictionary_page_offset)),
            &header_size);
        ASSERT_TRUE(dict.has_value());
        EXPECT_EQ(dict->type, PageType::kDictionaryPage);
      }
      expected_offset += cm.total_compressed_size;
      compressed += cm.total_compressed_size;
    }
    EXPECT_EQ(group.total_compressed_size, compressed);
  }
  uint32_t footer_size = 0;
  std::memcpy(&footer_size, file.data() + file.size() - 8, 4);
  EXPECT_EQ(expected_offset + footer_size + 8, static_cast<int64_t>(file.size()));

  // The tags column of the first row group: 400 rows, of which 134 empty lists.
  const ColumnMetaData& tags = *meta->row_groups[0].columns[2].meta_data;
  EXPECT_EQ(tags.path_in_schema, (std::vector<std::string>{"tags", "list", "element"}));
  EXPECT_EQ(tags.num_values, 134 + 133 * 1 + 133 * 2);
  EXPECT_EQ(tags.statistics->null_count, 134);
  EXPECT_EQ(tags.statistics->min_value, "t0");
  EXPECT_EQ(tags.statistics->max_value, "t1");
  const ColumnMetaData& id = *meta->row_groups[1].columns[0].meta_data;
  EXPECT_EQ(id.statistics->min_value, testing::PlainBytesOf(int64_t{400}));
  EXPECT_EQ(id.statistics->max_value, testing::PlainBytesOf(int64_t{799}));
}

TEST(FileWriterTest, ColumnChunksDecodeToTheRowsWritten) {
  WriterOptions options;
  options.max_rows_per_row_group = 300;
  const std::string file = WriteRows(600, options);
  auto meta = Footer(file);
  ASSERT_TRUE(meta.has_value());
  auto schema = ParquetSchema::FromModel(TestSchema());
  ASSERT_TRUE(schema.has_value());
  const FileSchema fs = FileSchemaFor(schema->value);
  const ColumnChunk& name = meta->row_groups[1].columns[1];
  EncodedColumnChunk chunk;
  chunk.data_pages = LargeString(
      std::string_view(file).substr(static_cast<size_t>(name.file_offset),
                                    static_cast<size_t>(name.meta_data->total_compressed_size)));
  auto decoded = testing::DecodeChunk(chunk, fs.columns[1], Codec::kSnappy);
  ASSERT_TRUE(decoded.has_value()) << decoded.error().message();
  ASSERT_EQ(decoded->def_levels.size(), 300u);
  EXPECT_EQ(decoded->def_levels[0], 0);  // row 300: null name
  EXPECT_EQ(decoded->values[0], "name-" + std::to_string(301 % 7));
}

// Buffers are reused once encoded (emptied, their memory kept), by the next segment of a column
// or the next row group: every row group of a five-group file decodes to exactly its own rows,
// nothing left over from the buffers it took, with the encoding on the caller's thread and on
// workers, with whole row groups and with segments of 200 bytes. Names
// and tags vary in length from row to row, so no offset of one group fits another.
TEST(FileWriterTest, EveryRowGroupHoldsItsOwnRowsWhenBuffersAreReused) {
  auto schema = ParquetSchema::FromModel(TestSchema());
  ASSERT_TRUE(schema.has_value());
  const FileSchema fs = FileSchemaFor(schema->value);
  auto name = [](int64_t i) {
    return std::string(static_cast<size_t>(i % 11), 'n') + "-" + std::to_string(i);
  };
  auto tag = [](int64_t i, int k) { return "t" + std::to_string(i * 3 + k); };
  for (const auto& [threads, segment_bytes] :
       {std::pair<int, size_t>{1, size_t{1} << 20}, {3, size_t{1} << 20}, {1, 200}, {3, 200}}) {
    WriterOptions options;
    options.max_rows_per_row_group = 300;
    options.threads = threads;
    options.segment_bytes = segment_bytes;
    options.max_pending_bytes = segment_bytes;
    StringSink sink;
    auto w = FileWriter::Open(TestSchema(), sink, options);
    ASSERT_TRUE(w.has_value()) << w.error().message();
    for (int64_t i = 0; i < 1400; ++i) {
      ColumnWriter* c = (*w)->columns();
      c[0].AppendInt64(i, 0);
      if (i % 5 == 0) {
        c[1].AppendNull(0, 0);
      } else {
        c[1].AppendBytes(name(i), 0);
      }
      const int n = static_cast<int>(i % 3);
      if (n == 0) c[2].AppendNull(1, 0);
      for (int k = 0; k < n; ++k) c[2].AppendBytes(tag(i, k), k == 0 ? 0 : 1);
      ASSERT_TRUE((*w)->EndRow().has_value());
    }
    ASSERT_TRUE((*w)->Close().has_value());
    const std::string& file = sink.text;
    auto meta = Footer(file);
    ASSERT_TRUE(meta.has_value());
    ASSERT_EQ(meta->row_groups.size(), 5u);
    for (size_t g = 0; g < 5; ++g) {
      const int64_t first = static_cast<int64_t>(g) * 300;
      const int64_t rows = std::min<int64_t>(300, 1400 - first);
      auto decode = [&](size_t column) {
        const ColumnChunk& c = meta->row_groups[g].columns[column];
        EncodedColumnChunk chunk;
        chunk.data_pages = LargeString(
            std::string_view(file).substr(static_cast<size_t>(c.file_offset),
                                          static_cast<size_t>(c.meta_data->total_compressed_size)));
        return testing::DecodeChunk(chunk, fs.columns[column], Codec::kSnappy);
      };
      auto names = decode(1);
      ASSERT_TRUE(names.has_value()) << names.error().message();
      std::vector<int16_t> defs;
      std::vector<std::string> values;
      for (int64_t i = first; i < first + rows; ++i) {
        defs.push_back(i % 5 == 0 ? 0 : 1);
        if (i % 5 != 0) values.push_back(name(i));
      }
      EXPECT_EQ(names->def_levels, defs)
          << "threads " << threads << ", segments " << segment_bytes << ", group " << g;
      EXPECT_EQ(names->values, values)
          << "threads " << threads << ", segments " << segment_bytes << ", group " << g;
      auto tags = decode(2);
      ASSERT_TRUE(tags.has_value()) << tags.error().message();
      std::vector<int16_t> reps;
      values.clear();
      for (int64_t i = first; i < first + rows; ++i) {
        if (i % 3 == 0) reps.push_back(0);
        for (int k = 0; k < i % 3; ++k) {
          reps.push_back(k == 0 ? 0 : 1);
          values.push_back(tag(i, k));
        }
      }
      EXPECT_EQ(tags->rep_levels, reps)
          << "threads " << threads << ", segments " << segment_bytes << ", group " << g;
      EXPECT_EQ(tags->values, values)
          << "threads " << threads << ", segments " << segment_bytes << ", group " << g;
    }
  }
}

TEST(FileWriterTest, WorkerThreadsWriteTheSameBytes) {
  for (size_t segment_bytes : {size_t{1} << 20, size_t{512}}) {
    WriterOptions one;
    one.max_rows_per_row_group = 777;
    one.segment_bytes = segment_bytes;
    WriterOptions many = one;
    many.threads = 3;
    many.max_pending_bytes = 1024;
    EXPECT_EQ(WriteRows(10000, one), WriteRows(10000, many)) << segment_bytes;
  }
}

// Segments change where pages end, not where row groups end nor what they hold.
TEST(FileWriterTest, SegmentsKeepTheRowGroupsAndTheirStatistics) {
  WriterOptions whole;
  whole.row_group_bytes = 64 * 1024;
  WriterOptions small = whole;
  small.segment_bytes = 1000;
  auto a = Footer(WriteRows(20000, whole));
  auto b = Footer(WriteRows(20000, small));
  ASSERT_TRUE(a.has_value());
  ASSERT_TRUE(b.has_value());
  ASSERT_EQ(a->row_groups.size(), b->row_groups.size());
  for (size_t g = 0; g < a->row_groups.size(); ++g) {
    EXPECT_EQ(a->row_groups[g].num_rows, b->row_groups[g].num_rows);
    for (size_t c = 0; c < 3; ++c) {
      const ColumnMetaData& x = *a->row_groups[g].columns[c].meta_data;
      const ColumnMetaData& y = *b->row_groups[g].columns[c].meta_data;
      EXPECT_EQ(x.num_values, y.num_values);
      EXPECT_EQ(x.statistics, y.statistics) << "group " << g << " column " << c;
      int32_t x_pages = 0;
      int32_t y_pages = 0;
      for (const PageEncodingStats& e : x.encoding_stats) x_pages += e.count;
      for (const PageEncodingStats& e : y.encoding_stats) y_pages += e.count;
      // (the last row group is smaller than a segment)
      if (g + 1 < a->row_groups.size()) {
        EXPECT_LT(x_pages, y_pages) << "group " << g << " column " << c;
      }
    }
  }
}

TEST(FileWriterTest, RowGroupsAreCutByBufferedBytes) {
  WriterOptions options;
  options.row_group_bytes = 64 * 1024;
  const std::string file = WriteRows(20000, options);
  auto meta = Footer(file);
  ASSERT_TRUE(meta.has_value());
  EXPECT_GT(meta->row_groups.size(), 5u);
  int64_t rows = 0;
  for (const RowGroup& g : meta->row_groups) rows += g.num_rows;
  EXPECT_EQ(rows, 20000);
}

TEST(FileWriterTest, AFileWithoutRowsHasNoRowGroups) {
  auto meta = Footer(WriteRows(0, {}));
  ASSERT_TRUE(meta.has_value());
  EXPECT_EQ(meta->num_rows, 0);
  EXPECT_TRUE(meta->row_groups.empty());
}

TEST(FileWriterTest, AnOwnedFileAppearsOnlyAtClose) {
  MemoryFileSystem fs;
  auto file = fs.OpenWritable("out.parquet");
  ASSERT_TRUE(file.has_value());
  auto w = FileWriter::Open(TestSchema(), std::move(*file), {});
  ASSERT_TRUE(w.has_value());
  for (int64_t i = 0; i < 10; ++i) ASSERT_TRUE(AppendRow(**w, i).has_value());
  EXPECT_FALSE(*fs.Exists("out.parquet"));
  ASSERT_TRUE((*w)->Close().has_value());
  auto data = fs.ReadFile("out.parquet");
  ASSERT_TRUE(data.has_value());
  auto meta = Footer(*data);
  ASSERT_TRUE(meta.has_value());
  EXPECT_EQ(meta->num_rows, 10);
}

TEST(FileWriterTest, AnErrorFailsTheWriterForGood) {
  StringSink sink;
  WriterOptions options;
  options.max_rows_per_row_group = 10;
  options.columns.codec = Codec::kUncompressed;
  auto w = FileWriter::Open(TestSchema(), sink, options);
  ASSERT_TRUE(w.has_value());
  sink.fail_after = 100;
  Status s;
  for (int64_t i = 0; i < 100 && s; ++i) s = AppendRow(**w, i);
  ASSERT_FALSE(s.has_value());
  EXPECT_EQ(s.error().code(), ErrorCode::kIoError);
  Status again = (*w)->Close();
  ASSERT_FALSE(again.has_value());
  EXPECT_EQ(again.error().message(), s.error().message());
}

TEST(FileWriterTest, OpenRefusesSpecsThatDoNotMatchTheSchema) {
  auto schema = ParquetSchema::FromModel(TestSchema());
  ASSERT_TRUE(schema.has_value());
  FileSchema fs = FileSchemaFor(schema->value);
  fs.columns.pop_back();
  StringSink sink;
  auto w = FileWriter::Open(fs, sink, {});
  ASSERT_FALSE(w.has_value());
  EXPECT_EQ(w.error().code(), ErrorCode::kInvalidArgument);
}

TEST(FileWriterTest, DecimalColumnsGetTheByValueOrder) {
  auto dec = Type::Decimal(30, 2).value();
  auto schema = ParquetSchema::FromModel(
      schema::Schema::Make({Field("d", dec), Field("s", Type::String())}).value());
  ASSERT_TRUE(schema.has_value());
  const FileSchema fs = FileSchemaFor(schema->value);
  EXPECT_EQ(fs.columns[0].type, PhysicalType::kFixedLenByteArray);
  EXPECT_EQ(fs.columns[0].order, StatisticsOrder::kBigEndianSigned);
  EXPECT_EQ(fs.columns[1].order, StatisticsOrder::kUnsigned);
}

}  // namespace
}  // namespace sluice::parquet
