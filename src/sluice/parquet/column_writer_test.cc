#include "sluice/parquet/column_writer.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "sluice/parquet/chunk_reader_testing.h"

namespace sluice::parquet {
namespace {

using testing::DecodeChunk;
using testing::DecodedChunk;
using testing::PlainBytesOf;

ColumnSpec Spec(PhysicalType type, int16_t max_def, int16_t max_rep,
                StatisticsOrder order = StatisticsOrder::kSigned, int32_t type_length = 0) {
  ColumnSpec spec;
  spec.path = {"c"};
  spec.type = type;
  spec.type_length = type_length;
  spec.max_def_level = max_def;
  spec.max_rep_level = max_rep;
  spec.order = order;
  return spec;
}

ColumnEncodeOptions Uncompressed() {
  ColumnEncodeOptions o;
  o.codec = Codec::kUncompressed;
  return o;
}

DecodedChunk Roundtrip(const ColumnWriter& column, const ColumnEncodeOptions& options,
                       EncodedColumnChunk* chunk_out = nullptr) {
  auto chunk = EncodeColumnChunk(column, options);
  EXPECT_TRUE(chunk.has_value()) << chunk.error().message();
  if (!chunk) return {};
  auto decoded = DecodeChunk(*chunk, column.spec(), options.codec);
  EXPECT_TRUE(decoded.has_value()) << decoded.error().message();
  if (chunk_out) *chunk_out = *chunk;
  return decoded ? *decoded : DecodedChunk{};
}

template <class T>
std::string B(T v) {
  return PlainBytesOf(v);
}

TEST(ColumnWriterTest, RequiredInt32RoundtripsWithStatistics) {
  ColumnWriter w(Spec(PhysicalType::kInt32, 0, 0));
  for (int32_t v : {5, -7, 12, 0}) w.AppendInt32(v, 0);
  EXPECT_EQ(w.num_rows(), 4);
  EncodedColumnChunk chunk;
  DecodedChunk d = Roundtrip(w, Uncompressed(), &chunk);
  ASSERT_EQ(d.values.size(), 4u);
  EXPECT_EQ(d.values[1], B(int32_t{-7}));
  const ColumnMetaData& meta = chunk.meta;
  EXPECT_EQ(meta.num_values, 4);
  EXPECT_EQ(meta.path_in_schema, std::vector<std::string>{"c"});
  ASSERT_TRUE(meta.statistics);
  EXPECT_EQ(meta.statistics->min_value, B(int32_t{-7}));
  EXPECT_EQ(meta.statistics->max_value, B(int32_t{12}));
  EXPECT_EQ(meta.statistics->null_count, 0);
  EXPECT_EQ(meta.total_compressed_size, static_cast<int64_t>(chunk.size()));
  EXPECT_EQ(meta.total_uncompressed_size, static_cast<int64_t>(chunk.size()));
}

TEST(ColumnWriterTest, OptionalColumnWritesDefinitionLevelsAndCountsNulls) {
  ColumnWriter w(Spec(PhysicalType::kInt64, 1, 0));
  w.AppendInt64(3, 0);
  w.AppendNull(0, 0);
  w.AppendInt64(-9, 0);
  w.AppendNull(0, 0);
  EncodedColumnChunk chunk;
  DecodedChunk d = Roundtrip(w, Uncompressed(), &chunk);
  EXPECT_EQ(d.def_levels, (std::vector<int16_t>{1, 0, 1, 0}));
  EXPECT_EQ(d.values, (std::vector<std::string>{B(int64_t{3}), B(int64_t{-9})}));
  EXPECT_EQ(chunk.meta.statistics->null_count, 2);
  EXPECT_EQ(chunk.meta.statistics->min_value, B(int64_t{-9}));
  const DataPageHeader& page = *d.headers.back().data_page_header;
  EXPECT_EQ(page.num_values, 4);
  EXPECT_EQ(page.statistics->null_count, 2);
}

TEST(ColumnWriterTest, AllNullColumnHasNoMinMax) {
  ColumnWriter w(Spec(PhysicalType::kByteArray, 1, 0, StatisticsOrder::kUnsigned));
  for (int i = 0; i < 3; ++i) w.AppendNull(0, 0);
  EncodedColumnChunk chunk;
  DecodedChunk d = Roundtrip(w, Uncompressed(), &chunk);
  EXPECT_TRUE(d.values.empty());
  EXPECT_EQ(chunk.meta.statistics->null_count, 3);
  EXPECT_FALSE(chunk.meta.statistics->min_value);
  EXPECT_FALSE(chunk.meta.statistics->max_value);
}

TEST(ColumnWriterTest, RepeatedColumnCutsPagesOnlyAtRecordBoundaries) {
  // A list<int32> column: max def 3 (optional list, repeated group, optional element), rep 1.
  ColumnWriter w(Spec(PhysicalType::kInt32, 3, 1));
  int32_t next = 0;
  for (int row = 0; row < 100; ++row) {
    switch (row % 4) {
      case 0:
        w.AppendNull(0, 0);  // null list
        break;
      case 1:
        w.AppendNull(1, 0);  // empty list
        break;
      default:
        for (int i = 0; i < row % 7 + 1; ++i) {
          if (i == 2) {
            w.AppendNull(2, i == 0 ? 0 : 1);  // null element
          } else {
            w.AppendInt32(next++, i == 0 ? 0 : 1);
          }
        }
    }
  }
  ColumnEncodeOptions options = Uncompressed();
  options.page_row_limit = 7;
  options.dictionary = false;
  DecodedChunk d = Roundtrip(w, options);
  EXPECT_EQ(d.def_levels, std::vector<int16_t>(w.def_levels().begin(), w.def_levels().end()));
  EXPECT_EQ(d.rep_levels, std::vector<int16_t>(w.rep_levels().begin(), w.rep_levels().end()));
  ASSERT_EQ(d.values.size(), static_cast<size_t>(next));
  EXPECT_EQ(d.values.back(), B(next - 1));
  EXPECT_EQ(d.page_first_entry.size(), 15u);  // 100 records, 7 per page
  for (size_t first : d.page_first_entry) EXPECT_EQ(d.rep_levels[first], 0) << first;
}

TEST(ColumnWriterTest, PagesAreCutBySize) {
  ColumnWriter w(Spec(PhysicalType::kDouble, 0, 0));
  for (int i = 0; i < 10000; ++i) w.AppendDouble(i * 0.5, 0);
  ColumnEncodeOptions options = Uncompressed();
  options.page_bytes = 8 * 1000;
  options.dictionary = false;
  DecodedChunk d = Roundtrip(w, options);
  ASSERT_EQ(d.headers.size(), 10u);
  // Each page's own statistics cover its values only.
  const Statistics& third = *d.headers[2].data_page_header->statistics;
  EXPECT_EQ(third.min_value, B(2000 * 0.5));
  EXPECT_EQ(third.max_value, B(2999 * 0.5));
}

// Where pages start, by the rule column_writer.h states, computed one row at a time: a page
// ends once it holds page_row_limit rows, or once its values (PLAIN-sized) and levels reach
// page_bytes. Columns without repetition: one row per entry.
std::vector<size_t> ExpectedPageStarts(const std::vector<int64_t>& value_bytes,
                                       const std::vector<bool>& present, size_t level_bits,
                                       const ColumnEncodeOptions& options) {
  std::vector<size_t> starts;
  size_t e = 0;
  while (e < present.size()) {
    starts.push_back(e);
    size_t bytes = 0;
    size_t rows = 0;
    const size_t first = e;
    while (e < present.size()) {
      if (present[e]) bytes += static_cast<size_t>(value_bytes[e]);
      ++e;
      if (++rows >= options.page_row_limit) break;
      if (bytes + ((e - first) * level_bits + 7) / 8 >= options.page_bytes) break;
    }
  }
  return starts;
}

TEST(ColumnWriterTest, PagesOfFlatColumnsEndWhereTheRuleSays) {
  std::mt19937_64 rng(11);
  for (int round = 0; round < 40; ++round) {
    const bool optional = round % 2 == 0;
    const bool strings = round % 4 < 2;
    ColumnWriter w(
        Spec(strings ? PhysicalType::kByteArray : PhysicalType::kInt64, optional ? 1 : 0, 0));
    std::vector<int64_t> value_bytes;
    std::vector<bool> present;
    const size_t n = 1 + rng() % 3000;
    for (size_t i = 0; i < n; ++i) {
      const bool is_null = optional && rng() % 10 < 3;
      present.push_back(!is_null);
      if (is_null) {
        w.AppendNull(0, 0);
        value_bytes.push_back(0);
      } else if (strings) {
        const std::string v(rng() % 40, 'x');
        w.AppendBytes(v, 0);
        value_bytes.push_back(static_cast<int64_t>(v.size()) + 4);
      } else {
        w.AppendInt64(static_cast<int64_t>(rng()), 0);
        value_bytes.push_back(8);
      }
    }
    ColumnEncodeOptions options = Uncompressed();
    options.dictionary = false;
    const size_t page_bytes[] = {1, 50, 333, 1000, 4096, size_t{1} << 20};
    const size_t row_limits[] = {1, 3, 127, 128, 129, 1000, 20000};
    options.page_bytes = page_bytes[rng() % std::size(page_bytes)];
    options.page_row_limit = row_limits[rng() % std::size(row_limits)];
    DecodedChunk d = Roundtrip(w, options);
    EXPECT_EQ(d.page_first_entry,
              ExpectedPageStarts(value_bytes, present, optional ? 1 : 0, options))
        << "round " << round << ": " << n << " entries, page_bytes " << options.page_bytes
        << ", page_row_limit " << options.page_row_limit;
  }
}

TEST(ColumnWriterTest, RepeatedValuesAreDictionaryEncoded) {
  ColumnWriter w(Spec(PhysicalType::kByteArray, 1, 0, StatisticsOrder::kUnsigned));
  const char* statuses[] = {"shipped", "pending", "cancelled"};
  for (int i = 0; i < 3000; ++i) {
    if (i % 10 == 9) {
      w.AppendNull(0, 0);
    } else {
      w.AppendBytes(statuses[i % 3], 0);
    }
  }
  ColumnEncodeOptions options = Uncompressed();
  options.page_row_limit = 1000;
  EncodedColumnChunk chunk;
  DecodedChunk d = Roundtrip(w, options, &chunk);
  ASSERT_EQ(d.headers.size(), 4u);
  EXPECT_EQ(d.headers[0].type, PageType::kDictionaryPage);
  EXPECT_EQ(d.dictionary_size, 3u);
  for (size_t i = 1; i < 4; ++i) {
    EXPECT_EQ(d.headers[i].data_page_header->encoding, Encoding::kRleDictionary);
  }
  ASSERT_EQ(d.values.size(), 2700u);
  EXPECT_EQ(d.values[1], "pending");
  const ColumnMetaData& meta = chunk.meta;
  ASSERT_TRUE(meta.dictionary_page_offset);
  EXPECT_EQ(*meta.dictionary_page_offset, 0);
  EXPECT_EQ(meta.data_page_offset, static_cast<int64_t>(chunk.dictionary_page.size()));
  EXPECT_EQ(meta.encodings,
            (std::vector<Encoding>{Encoding::kPlain, Encoding::kRle, Encoding::kRleDictionary}));
  EXPECT_EQ(meta.encoding_stats,
            (std::vector<PageEncodingStats>{{PageType::kDictionaryPage, Encoding::kPlain, 1},
                                            {PageType::kDataPage, Encoding::kRleDictionary, 3}}));
  EXPECT_EQ(meta.statistics->min_value, "cancelled");
  EXPECT_EQ(meta.statistics->max_value, "shipped");
  EXPECT_EQ(meta.statistics->null_count, 300);
}

TEST(ColumnWriterTest, DictionaryFallsBackToPlainPastItsLimitKeepingEarlierPages) {
  // 100 distinct values per page for the first pages, then only new values: the dictionary
  // passes its limit on a later page, which and whose successors are PLAIN.
  ColumnWriter w(Spec(PhysicalType::kInt64, 0, 0));
  for (int page = 0; page < 3; ++page) {
    for (int i = 0; i < 1000; ++i) w.AppendInt64(i % 100, 0);
  }
  for (int i = 0; i < 5000; ++i) w.AppendInt64(100000 + i, 0);
  ColumnEncodeOptions options = Uncompressed();
  options.page_row_limit = 1000;
  options.dictionary_page_limit = 8 * 1000;
  EncodedColumnChunk chunk;
  DecodedChunk d = Roundtrip(w, options, &chunk);
  ASSERT_EQ(d.values.size(), 8000u);
  EXPECT_EQ(d.values[2999], B(int64_t{99}));
  EXPECT_EQ(d.values[7999], B(int64_t{104999}));
  ASSERT_EQ(d.headers.size(), 9u);
  EXPECT_EQ(d.headers[0].type, PageType::kDictionaryPage);
  std::vector<Encoding> encodings;
  for (size_t i = 1; i < d.headers.size(); ++i) {
    encodings.push_back(d.headers[i].data_page_header->encoding);
  }
  // Pages 1-3 need 100 entries (800 bytes); page 4 would add 1000 more (8800 bytes > 8000): it
  // and every page after it are PLAIN, pages 1-3 keep their indexes.
  ASSERT_EQ(encodings.size(), 8u);
  for (size_t i = 0; i < encodings.size(); ++i) {
    EXPECT_EQ(encodings[i], i < 3 ? Encoding::kRleDictionary : Encoding::kPlain) << i;
  }
  EXPECT_EQ(chunk.meta.encoding_stats.size(), 3u);
  EXPECT_EQ(chunk.meta.encodings,
            (std::vector<Encoding>{Encoding::kPlain, Encoding::kRle, Encoding::kRleDictionary}));
}

TEST(ColumnWriterTest, StringPageStatisticsCoverTheirOwnValuesThroughTheDictionary) {
  // Pages of 100 strings: the first two reuse a few entries (one of them the chunk's minimum,
  // met again on page 2), the third brings only new ones and passes the dictionary's limit,
  // so it and the fourth are PLAIN. Each page's bounds are its own values', whichever way the
  // page is encoded, and the chunk's are every page's.
  ColumnWriter w(Spec(PhysicalType::kByteArray, 1, 0, StatisticsOrder::kUnsigned));
  auto page = [&](const std::vector<std::string>& values) {
    for (size_t i = 0; i < 100; ++i) {
      if (i % 7 == 3) {
        w.AppendNull(0, 0);
      } else {
        w.AppendBytes(values[i % values.size()], 0);
      }
    }
  };
  page({"mango", "kiwi", "melon"});
  page({"kiwi", "banana", "kiwi", "fig"});
  std::vector<std::string> fresh;
  for (int i = 0; i < 100; ++i) fresh.push_back("pear-" + std::to_string(1000 + i));
  page(fresh);
  page({"zucchini", "apple", "quince"});
  ColumnEncodeOptions options = Uncompressed();
  options.page_row_limit = 100;
  options.dictionary_page_limit = 200;
  EncodedColumnChunk chunk;
  DecodedChunk d = Roundtrip(w, options, &chunk);
  ASSERT_EQ(d.headers.size(), 5u);
  ASSERT_EQ(d.headers[0].type, PageType::kDictionaryPage);
  const std::pair<std::string, std::string> expected[] = {
      {"kiwi", "melon"}, {"banana", "kiwi"}, {"pear-1000", "pear-1099"}, {"apple", "zucchini"}};
  const Encoding encodings[] = {Encoding::kRleDictionary, Encoding::kRleDictionary,
                                Encoding::kPlain, Encoding::kPlain};
  for (size_t i = 0; i < 4; ++i) {
    const DataPageHeader& h = *d.headers[i + 1].data_page_header;
    EXPECT_EQ(h.encoding, encodings[i]) << "page " << i;
    ASSERT_TRUE(h.statistics) << "page " << i;
    EXPECT_EQ(h.statistics->min_value, expected[i].first) << "page " << i;
    EXPECT_EQ(h.statistics->max_value, expected[i].second) << "page " << i;
    EXPECT_EQ(h.statistics->null_count, 14) << "page " << i;
  }
  EXPECT_EQ(chunk.meta.statistics->min_value, "apple");
  EXPECT_EQ(chunk.meta.statistics->max_value, "zucchini");
}

TEST(ColumnWriterTest, UniqueValuesSkipTheDictionary) {
  ColumnWriter w(Spec(PhysicalType::kInt64, 0, 0));
  for (int64_t i = 0; i < 5000; ++i) w.AppendInt64(i * 7919, 0);
  EncodedColumnChunk chunk;
  DecodedChunk d = Roundtrip(w, Uncompressed(), &chunk);
  EXPECT_TRUE(chunk.dictionary_page.empty());
  EXPECT_FALSE(chunk.meta.dictionary_page_offset);
  EXPECT_EQ(chunk.meta.data_page_offset, 0);
  for (const PageHeader& h : d.headers) {
    EXPECT_EQ(h.data_page_header->encoding, Encoding::kPlain);
  }
  EXPECT_EQ(d.values.size(), 5000u);
}

TEST(ColumnWriterTest, StringStatisticsUseUnsignedByteOrder) {
  ColumnWriter w(Spec(PhysicalType::kByteArray, 0, 0, StatisticsOrder::kUnsigned));
  for (std::string_view s : {"zebra", "\xc3\xa9t\xc3\xa9", "", "apple"}) w.AppendBytes(s, 0);
  EncodedColumnChunk chunk;
  Roundtrip(w, Uncompressed(), &chunk);
  EXPECT_EQ(chunk.meta.statistics->min_value, "");
  EXPECT_EQ(chunk.meta.statistics->max_value, "\xc3\xa9t\xc3\xa9");  // 0xC3 > 'z'
  EXPECT_EQ(chunk.meta.statistics->is_max_value_exact, true);
}

TEST(ColumnWriterTest, LongStringStatisticsAreNotTruncated) {
  ColumnWriter w(Spec(PhysicalType::kByteArray, 0, 0, StatisticsOrder::kUnsigned));
  const std::string big(5000, 'x');
  w.AppendBytes(big, 0);
  EncodedColumnChunk chunk;
  Roundtrip(w, Uncompressed(), &chunk);
  EXPECT_EQ(chunk.meta.statistics->max_value, big);
}

TEST(ColumnWriterTest, DecimalBytesCompareByValue) {
  // decimal(20,0) as FIXED_LEN_BYTE_ARRAY(9): -1, 1, -300, 256.
  auto be = [](int64_t v) {
    std::string s(9, v < 0 ? '\xff' : '\0');
    for (int i = 0; i < 8; ++i)
      s[8 - i] = static_cast<char>((static_cast<uint64_t>(v) >> (8 * i)) & 0xFF);
    return s;
  };
  ColumnWriter w(
      Spec(PhysicalType::kFixedLenByteArray, 0, 0, StatisticsOrder::kBigEndianSigned, 9));
  for (int64_t v : {-1, 1, -300, 256}) w.AppendBytes(be(v), 0);
  EncodedColumnChunk chunk;
  DecodedChunk d = Roundtrip(w, Uncompressed(), &chunk);
  EXPECT_EQ(d.values[2], be(-300));
  EXPECT_EQ(chunk.meta.statistics->min_value, be(-300));
  EXPECT_EQ(chunk.meta.statistics->max_value, be(256));
}

TEST(ColumnWriterTest, CompareBigEndianSignedSignExtends) {
  EXPECT_LT(CompareBigEndianSigned("\xff", "\x00\x01"), 0);
  EXPECT_EQ(CompareBigEndianSigned(std::string_view("\xff\xff", 2), "\xff"), 0);
  EXPECT_GT(CompareBigEndianSigned(std::string_view("\x01\x00", 2), "\x7f"), 0);
  EXPECT_LT(CompareBigEndianSigned(std::string_view("\x80\x00", 2), "\x80"), 0);
}

TEST(ColumnWriterTest, FloatStatisticsIgnoreNaNAndWidenZeros) {
  {
    ColumnWriter w(Spec(PhysicalType::kFloat, 0, 0));
    for (float v : {std::nanf(""), 0.0f, 2.5f}) w.AppendFloat(v, 0);
    EncodedColumnChunk chunk;
    Roundtrip(w, Uncompressed(), &chunk);
    EXPECT_EQ(chunk.meta.statistics->min_value, B(-0.0f));  // +0.0 minimum written as -0.0
    EXPECT_EQ(chunk.meta.statistics->max_value, B(2.5f));
  }
  {
    ColumnWriter w(Spec(PhysicalType::kDouble, 0, 0));
    for (double v : {-0.0, -4.0}) w.AppendDouble(v, 0);
    EncodedColumnChunk chunk;
    Roundtrip(w, Uncompressed(), &chunk);
    EXPECT_EQ(chunk.meta.statistics->min_value, B(-4.0));
    EXPECT_EQ(chunk.meta.statistics->max_value, B(0.0));  // -0.0 maximum written as +0.0
  }
  {
    ColumnWriter w(Spec(PhysicalType::kDouble, 0, 0));
    w.AppendDouble(std::nan(""), 0);
    EncodedColumnChunk chunk;
    Roundtrip(w, Uncompressed(), &chunk);
    EXPECT_FALSE(chunk.meta.statistics->min_value);
    EXPECT_FALSE(chunk.meta.statistics->max_value);
  }
}

TEST(ColumnWriterTest, BooleansArePlainWithFalseBeforeTrue) {
  ColumnWriter w(Spec(PhysicalType::kBoolean, 1, 0));
  for (int i = 0; i < 20; ++i) {
    if (i == 4) {
      w.AppendNull(0, 0);
    } else {
      w.AppendBool(i % 3 == 0, 0);
    }
  }
  EncodedColumnChunk chunk;
  DecodedChunk d = Roundtrip(w, Uncompressed(), &chunk);
  ASSERT_EQ(d.values.size(), 19u);
  EXPECT_EQ(d.values[0], B(true));
  EXPECT_EQ(d.values[1], B(false));
  EXPECT_EQ(d.values[4], B(false));  // row 5
  EXPECT_TRUE(chunk.dictionary_page.empty());
  EXPECT_EQ(chunk.meta.statistics->min_value, B(false));
  EXPECT_EQ(chunk.meta.statistics->max_value, B(true));
}

TEST(ColumnWriterTest, UnsignedIntegersCompareUnsigned) {
  ColumnWriter w(Spec(PhysicalType::kInt32, 0, 0, StatisticsOrder::kUnsigned));
  for (int32_t v : {-1, 5}) w.AppendInt32(v, 0);  // -1 is 0xFFFFFFFF
  EncodedColumnChunk chunk;
  Roundtrip(w, Uncompressed(), &chunk);
  EXPECT_EQ(chunk.meta.statistics->min_value, B(int32_t{5}));
  EXPECT_EQ(chunk.meta.statistics->max_value, B(int32_t{-1}));
}

TEST(ColumnWriterTest, EveryCodecRoundtrips) {
  for (Codec codec :
       {Codec::kUncompressed, Codec::kSnappy, Codec::kGzip, Codec::kZstd, Codec::kLz4Raw}) {
    ColumnWriter w(Spec(PhysicalType::kByteArray, 1, 0, StatisticsOrder::kUnsigned));
    for (int i = 0; i < 4000; ++i) {
      if (i % 17 == 0) {
        w.AppendNull(0, 0);
      } else {
        w.AppendBytes("value-" + std::to_string(i % 250), 0);
      }
    }
    ColumnEncodeOptions options;
    options.codec = codec;
    EncodedColumnChunk chunk;
    DecodedChunk d = Roundtrip(w, options, &chunk);
    EXPECT_EQ(d.values.size(), 4000u - 236u) << CodecName(codec);
    EXPECT_EQ(chunk.meta.codec, codec);
    if (codec != Codec::kUncompressed) {
      EXPECT_LT(chunk.meta.total_compressed_size, chunk.meta.total_uncompressed_size)
          << CodecName(codec);
    }
  }
}

TEST(ColumnWriterTest, FixedLenValuesOfTheWrongWidthAreRefused) {
  ColumnWriter w(Spec(PhysicalType::kFixedLenByteArray, 0, 0, StatisticsOrder::kUnsigned, 16));
  w.AppendBytes(std::string(16, 'a'), 0);
  w.AppendBytes("short", 0);
  auto chunk = EncodeColumnChunk(w, Uncompressed());
  ASSERT_FALSE(chunk.has_value());
  EXPECT_EQ(chunk.error().code(), ErrorCode::kInvalidArgument);
}

TEST(ColumnWriterTest, BufferedBytesGrowWithValuesAndLevels) {
  ColumnWriter w(Spec(PhysicalType::kByteArray, 1, 1, StatisticsOrder::kUnsigned));
  EXPECT_EQ(w.buffered_bytes(), 0u);
  w.AppendBytes("abcd", 0);
  // 4 bytes of arena, 8 of its end offset, 2 + 2 of levels.
  EXPECT_EQ(w.buffered_bytes(), 16u);
}

// A chunk handed over in segments, each buffer emptied and refilled with other values right
// after it is added (as the file writer reuses them), decodes to every entry in order, and its
// statistics are the whole chunk's: the smallest and largest values are in the first segment,
// whose buffer no longer holds them. Pages end with their segment; the dictionary carries over,
// also when it outgrows its limit in a later segment and the rest of the chunk falls back to
// PLAIN.
TEST(ColumnWriterTest, AChunkBuiltInSegmentsHoldsEveryEntryAndTheWholeChunksBounds) {
  // ARRAY<STRING> of an optional list: def 0 null list, 1 empty list, 2 a value.
  const ColumnSpec spec = Spec(PhysicalType::kByteArray, 2, 1, StatisticsOrder::kUnsigned);
  for (bool fallback : {false, true}) {
    ColumnEncodeOptions options = Uncompressed();
    options.page_bytes = 300;
    if (fallback) options.dictionary_page_limit = 400;
    auto builder = NewColumnChunkBuilder(spec, options);
    ASSERT_TRUE(builder.has_value()) << builder.error().message();
    ColumnWriter whole(spec);
    ColumnWriter segment(spec);
    int segments = 0;
    for (int i = 0; i < 1000; ++i) {
      for (ColumnWriter* w : {&whole, &segment}) {
        if (i % 4 == 0) {
          w->AppendNull(static_cast<int16_t>(i % 8 == 0 ? 0 : 1), 0);
          continue;
        }
        for (int k = 0; k < i % 4; ++k) {
          std::string v = i == 1 ? "!" : i == 2 ? "~~" : "v" + std::to_string((i * 7 + k) % 9);
          if (fallback && i > 500) v += "-" + std::to_string(i);
          w->AppendBytes(v, k == 0 ? 0 : 1);
        }
      }
      if (i % 100 == 99) {
        ASSERT_TRUE((*builder)->Add(segment).has_value());
        ++segments;
        segment.Clear();
        segment.AppendBytes(std::string(64, 'x'), 0);  // overwrite what the segment held
        segment.Clear();
      }
    }
    auto chunk = (*builder)->Finish();
    ASSERT_TRUE(chunk.has_value()) << chunk.error().message();
    auto expected_chunk = EncodeColumnChunk(whole, options);
    ASSERT_TRUE(expected_chunk.has_value());
    auto got = DecodeChunk(*chunk, spec, options.codec);
    auto expected = DecodeChunk(*expected_chunk, spec, options.codec);
    ASSERT_TRUE(got.has_value()) << got.error().message();
    ASSERT_TRUE(expected.has_value());
    EXPECT_EQ(got->def_levels, expected->def_levels);
    EXPECT_EQ(got->rep_levels, expected->rep_levels);
    EXPECT_EQ(got->values, expected->values);
    EXPECT_GE(got->page_first_entry.size(), static_cast<size_t>(segments));
    const ColumnMetaData& meta = chunk->meta;
    EXPECT_EQ(meta.num_values, expected_chunk->meta.num_values);
    ASSERT_TRUE(meta.statistics.has_value());
    EXPECT_EQ(meta.statistics->min_value, "!");
    EXPECT_EQ(meta.statistics->max_value, "~~");
    EXPECT_EQ(meta.statistics->null_count, expected_chunk->meta.statistics->null_count);
    ASSERT_EQ(meta.encoding_stats.size(), fallback ? 3u : 2u);
    EXPECT_EQ(meta.encoding_stats[1].encoding, Encoding::kRleDictionary);
    if (fallback) {
      EXPECT_EQ(meta.encoding_stats[2].encoding, Encoding::kPlain);
    }
  }
}

TEST(ColumnWriterTest, ABuilderRefusesAWrongWidthInALaterSegmentAndThenEveryCall) {
  const ColumnSpec spec =
      Spec(PhysicalType::kFixedLenByteArray, 0, 0, StatisticsOrder::kUnsigned, 4);
  auto builder = NewColumnChunkBuilder(spec, Uncompressed());
  ASSERT_TRUE(builder.has_value());
  ColumnWriter w(spec);
  w.AppendBytes("abcd", 0);
  ASSERT_TRUE((*builder)->Add(w).has_value());
  w.Clear();
  w.AppendBytes("abcde", 0);
  Status s = (*builder)->Add(w);
  ASSERT_FALSE(s.has_value());
  EXPECT_EQ(s.error().code(), ErrorCode::kInvalidArgument);
  // A builder that failed takes nothing more.
  EXPECT_FALSE((*builder)->Finish().has_value());
}

}  // namespace
}  // namespace sluice::parquet
