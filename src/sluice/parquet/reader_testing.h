// For tests only: build Parquet files page by page, with every header field in the test's hands,
// so that reader tests can write both the shapes writers produce and the lies hostile files
// tell. Schemas come from the message type text (schema_text.h); levels and paths from the
// schema mapping.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "sluice/base/file_system.h"
#include "sluice/parquet/compression.h"
#include "sluice/parquet/file_reader.h"
#include "sluice/parquet/metadata.h"
#include "sluice/parquet/plain.h"
#include "sluice/parquet/rle.h"
#include "sluice/parquet/schema_map.h"
#include "sluice/parquet/schema_text.h"

namespace sluice::parquet::testing {

/// One page of a column chunk.
struct PageSpec {
  /// kDataPage (v1), kDataPageV2 or kDictionaryPage.
  PageType type = PageType::kDataPage;
  /// The page's levels; empty for a column without them.
  std::vector<int16_t> def;
  std::vector<int16_t> rep;
  /// The encoded values (a dictionary page: its PLAIN entries).
  std::string values;
  Encoding encoding = Encoding::kPlain;
  /// Header overrides: -1 takes the true count (the levels', or dict_count).
  int32_t num_values = -1;
  int32_t dict_count = 0;
  /// Data page v1: how the levels are encoded (RLE or the deprecated BIT_PACKED).
  Encoding level_encoding = Encoding::kRle;
  /// Data page v2: whether the values are compressed.
  bool v2_compressed = true;
  /// Replace the uncompressed size the header declares.
  std::optional<int32_t> uncompressed_size;
};

struct ChunkSpec {
  std::vector<PageSpec> pages;
  Codec codec = Codec::kUncompressed;
};

struct FileSpec {
  std::string schema;  // message type text
  /// [row group][column]
  std::vector<std::vector<ChunkSpec>> row_groups;
  /// Rows per row group; empty: each row group's count of repetition level 0 in its first
  /// column (or its value count when it has no repetition levels).
  std::vector<int64_t> num_rows;
};

/// A file's data section and the footer that describes it, before they are joined: tests may
/// change `meta` (or `data`) and then Finish.
struct BuiltFile {
  std::string data;
  FileMetaData meta;
};

inline std::string Levels(std::span<const int16_t> levels, int16_t max, bool length_prefix) {
  RleEncoder e(BitWidth(static_cast<uint64_t>(max)));
  for (int16_t l : levels) e.Put(static_cast<uint32_t>(l));
  std::string out;
  if (length_prefix) {
    e.FlushWithLengthTo(out);
  } else {
    e.FlushTo(out);
  }
  return out;
}

/// The deprecated BIT_PACKED levels: most significant bit first, no length.
inline std::string BitPackedLevels(std::span<const int16_t> levels, int16_t max) {
  const int w = BitWidth(static_cast<uint64_t>(max));
  std::string out((levels.size() * static_cast<size_t>(w) + 7) / 8, '\0');
  size_t bit = 0;
  for (int16_t l : levels) {
    for (int b = w - 1; b >= 0; --b, ++bit) {
      if ((l >> b) & 1) out[bit >> 3] = static_cast<char>(out[bit >> 3] | (0x80 >> (bit & 7)));
    }
  }
  return out;
}

inline std::string Compressed(Codec codec, std::string_view in) {
  if (codec == Codec::kUncompressed) return std::string(in);
  std::string out;
  EXPECT_TRUE(Compress(codec, in, out).has_value());
  return out;
}

/// A page's header and body.
inline std::string PageBytes(const PageSpec& p, Codec codec, int16_t max_def, int16_t max_rep) {
  PageHeader h;
  h.type = p.type;
  const auto count = static_cast<int32_t>(std::max(p.def.size(), p.rep.size()));
  std::string body;
  std::string raw;  // uncompressed, for the size
  if (p.type == PageType::kDictionaryPage) {
    raw = p.values;
    body = Compressed(codec, raw);
    h.dictionary_page_header = DictionaryPageHeader{p.num_values >= 0 ? p.num_values : p.dict_count,
                                                    Encoding::kPlain, std::nullopt};
  } else if (p.type == PageType::kDataPageV2) {
    const std::string rep = max_rep > 0 ? Levels(p.rep, max_rep, false) : std::string();
    const std::string def = max_def > 0 ? Levels(p.def, max_def, false) : std::string();
    DataPageHeaderV2 v2;
    v2.num_values = p.num_values >= 0 ? p.num_values : count;
    for (int16_t d : p.def) v2.num_nulls += d < max_def;
    v2.num_rows = 0;
    for (int16_t r : p.rep) v2.num_rows += r == 0;
    if (max_rep == 0) v2.num_rows = count;
    v2.encoding = p.encoding;
    v2.repetition_levels_byte_length = static_cast<int32_t>(rep.size());
    v2.definition_levels_byte_length = static_cast<int32_t>(def.size());
    v2.is_compressed = p.v2_compressed;
    h.data_page_header_v2 = v2;
    raw = rep + def + p.values;
    body = rep + def + (p.v2_compressed ? Compressed(codec, p.values) : p.values);
  } else {
    const bool bit_packed = p.level_encoding == Encoding::kBitPacked;
    if (max_rep > 0)
      raw += bit_packed ? BitPackedLevels(p.rep, max_rep) : Levels(p.rep, max_rep, true);
    if (max_def > 0)
      raw += bit_packed ? BitPackedLevels(p.def, max_def) : Levels(p.def, max_def, true);
    raw += p.values;
    body = Compressed(codec, raw);
    h.data_page_header = DataPageHeader{p.num_values >= 0 ? p.num_values : count, p.encoding,
                                        p.level_encoding, p.level_encoding, std::nullopt};
  }
  h.uncompressed_page_size = p.uncompressed_size.value_or(static_cast<int32_t>(raw.size()));
  h.compressed_page_size = static_cast<int32_t>(body.size());
  std::string out;
  WritePageHeader(h, out);
  return out + body;
}

/// Lay out the chunks after "PAR1" and fill in the footer (schema, row groups, offsets, sizes,
/// value counts).
inline BuiltFile Build(const FileSpec& spec) {
  BuiltFile f;
  auto elements = ParseMessageType(spec.schema);
  EXPECT_TRUE(elements.has_value()) << (elements ? "" : elements.error().ToString());
  if (!elements) return f;
  auto ps = ParquetSchema::FromElements(*elements);
  EXPECT_TRUE(ps.has_value()) << (ps ? "" : ps.error().ToString());
  if (!ps) return f;
  const auto& leaves = ps->value.leaves();
  f.meta.schema = *elements;
  f.data = "PAR1";
  for (size_t g = 0; g < spec.row_groups.size(); ++g) {
    RowGroup rg;
    int64_t rows = 0;
    for (size_t c = 0; c < spec.row_groups[g].size() && c < leaves.size(); ++c) {
      const ChunkSpec& chunk = spec.row_groups[g][c];
      const ColumnDescriptor& leaf = leaves[c];
      ColumnMetaData m;
      m.type = leaf.physical;
      m.path_in_schema = leaf.path;
      m.codec = chunk.codec;
      const int64_t start = static_cast<int64_t>(f.data.size());
      bool data_seen = false;
      for (const PageSpec& p : chunk.pages) {
        const int64_t at = static_cast<int64_t>(f.data.size());
        if (p.type == PageType::kDictionaryPage) {
          m.dictionary_page_offset = at;
        } else {
          if (!data_seen) m.data_page_offset = at;
          data_seen = true;
          m.num_values += p.num_values >= 0
                              ? p.num_values
                              : static_cast<int64_t>(std::max(p.def.size(), p.rep.size()));
          if (c == 0) {
            if (leaf.max_rep == 0) {
              rows += static_cast<int64_t>(std::max(p.def.size(), p.rep.size()));
            } else {
              for (int16_t r : p.rep) rows += r == 0;
            }
          }
          m.encodings.push_back(p.encoding);
        }
        f.data += PageBytes(p, chunk.codec, leaf.max_def, leaf.max_rep);
      }
      if (!data_seen) m.data_page_offset = start;
      m.total_compressed_size = static_cast<int64_t>(f.data.size()) - start;
      m.total_uncompressed_size = m.total_compressed_size;
      ColumnChunk cc;
      cc.file_offset = start;
      cc.meta_data = m;
      rg.columns.push_back(cc);
    }
    rg.num_rows = g < spec.num_rows.size() ? spec.num_rows[g] : rows;
    f.meta.num_rows += rg.num_rows;
    f.meta.row_groups.push_back(rg);
  }
  f.meta.created_by = "sluice reader tests";
  return f;
}

/// The whole file: data, footer, footer length, "PAR1".
inline std::string Finish(const BuiltFile& f) {
  const std::string footer = WriteFileMetaData(f.meta);
  std::string out = f.data + footer;
  const auto len = static_cast<uint32_t>(footer.size());
  for (int i = 0; i < 4; ++i) out.push_back(static_cast<char>((len >> (8 * i)) & 0xff));
  return out + "PAR1";
}

inline std::string BuildFile(const FileSpec& spec) { return Finish(Build(spec)); }

/// Read every row of `bytes` (as file "t.parquet") with `projection`, one JSON text per row.
inline Result<std::vector<std::string>> ReadRows(const std::string& bytes,
                                                 const Projection& projection = {},
                                                 const ReaderOptions& options = {}) {
  auto fs = std::make_shared<MemoryFileSystem>();
  SLUICE_TRY(fs->WriteFile("t.parquet", bytes));
  SLUICE_ASSIGN_OR_RETURN(auto reader, FileReader::Open(fs, "t.parquet", options));
  std::vector<std::string> rows;
  SLUICE_TRY(reader->ReadAllRows(projection, [&](std::string_view row) -> Status {
    rows.emplace_back(row);
    return Ok();
  }));
  return rows;
}

template <class T>
std::string Plain(std::vector<T> values) {
  std::string out;
  PlainEncode(std::span<const T>(values), out);
  return out;
}

inline std::string PlainStrings(const std::vector<std::string_view>& values) {
  std::string out;
  EXPECT_TRUE(PlainEncodeByteArrays(values, out).has_value());
  return out;
}

inline std::string PlainBools(const std::vector<bool>& values) {
  PlainBooleanEncoder e;
  for (bool v : values) e.Put(v);
  std::string out;
  e.FlushTo(out);
  return out;
}

}  // namespace sluice::parquet::testing
