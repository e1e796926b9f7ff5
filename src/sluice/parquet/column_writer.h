// Writing one leaf column of a row group: ColumnWriter buffers the repetition levels, definition
// levels and values a shredder appends, and a ColumnChunkBuilder turns such buffers, one segment
// after another, into the column chunk's pages (an optional dictionary page, then data pages v1)
// and its ColumnMetaData (EncodeColumnChunk: a chunk of one segment).
//
// Appending is cheap and allocation-free per value (byte arrays go into one arena); everything
// costly (dictionary, encodings, statistics, compression) happens in the builder, which the file
// writer runs on worker threads as a row group fills.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "sluice/base/large_buffer.h"
#include "sluice/base/result.h"
#include "sluice/parquet/dictionary.h"
#include "sluice/parquet/encoding.h"
#include "sluice/parquet/metadata.h"
#include "sluice/parquet/statistics_builder.h"

namespace sluice::parquet {

/// What a column writer must know about its leaf.
struct ColumnSpec {
  /// path_in_schema: the names from below the root to the leaf.
  std::vector<std::string> path;
  PhysicalType type = PhysicalType::kInt32;
  /// FIXED_LEN_BYTE_ARRAY's width; 0 for other types.
  int32_t type_length = 0;
  int16_t max_def_level = 0;
  int16_t max_rep_level = 0;
  StatisticsOrder order = StatisticsOrder::kSigned;
};

/// How column chunks are encoded.
struct ColumnEncodeOptions {
  Codec codec = Codec::kSnappy;
  /// The codec's level; 0 is its default (see compression.h).
  int compression_level = 0;
  /// Dictionary-encode every column but BOOLEAN, falling back to PLAIN for the rest of the chunk
  /// once the dictionary page passes dictionary_page_limit, or after the first page when the
  /// dictionary does not make it smaller.
  bool dictionary = true;
  size_t dictionary_page_limit = kDefaultDictionaryPageSizeLimit;
  /// A data page is cut, on a record boundary, once its values and levels reach this many bytes
  /// (uncompressed, PLAIN-sized) or it holds page_row_limit records.
  size_t page_bytes = size_t{1} << 20;
  size_t page_row_limit = 20000;
};

/// Buffers one leaf column of the row group being written. Values are appended with the
/// repetition level of their entry; a value's definition level is the column's maximum, and a
/// null (or an empty or absent ancestor) is AppendNull with the level at which it stops. Use the
/// Append call of the column's physical type: BYTE_ARRAY and FIXED_LEN_BYTE_ARRAY take
/// AppendBytes (a FIXED_LEN_BYTE_ARRAY value must be type_length bytes, checked when encoding).
/// Levels are trusted (the shredder computes them from the schema); a repetition level other
/// than 0 must not start the buffer. Not thread-safe.
class ColumnWriter {
 public:
  explicit ColumnWriter(ColumnSpec spec);

  void AppendNull(int16_t def, int16_t rep) { PutLevels(def, rep); }
  void AppendBool(bool v, int16_t rep) {
    PutLevels(spec_.max_def_level, rep);
    bools_.push_back(v ? 1 : 0);
  }
  void AppendInt32(int32_t v, int16_t rep) {
    PutLevels(spec_.max_def_level, rep);
    int32s_.push_back(v);
  }
  void AppendInt64(int64_t v, int16_t rep) {
    PutLevels(spec_.max_def_level, rep);
    int64s_.push_back(v);
  }
  void AppendInt96(const Int96& v, int16_t rep) {
    PutLevels(spec_.max_def_level, rep);
    int96s_.push_back(v);
  }
  void AppendFloat(float v, int16_t rep) {
    PutLevels(spec_.max_def_level, rep);
    floats_.push_back(v);
  }
  void AppendDouble(double v, int16_t rep) {
    PutLevels(spec_.max_def_level, rep);
    doubles_.push_back(v);
  }
  void AppendBytes(std::string_view v, int16_t rep) {
    PutLevels(spec_.max_def_level, rep);
    arena_.Append(v);
    ends_.push_back(arena_.size());
  }

  /// Append every entry `other` holds (a column of the same spec, filled apart: on another
  /// thread, for rows that come later), as if appended here one by one.
  void AppendFrom(const ColumnWriter& other);

  /// Empty the buffers, keeping their memory, for the next row group of the same column: a
  /// fresh buffer is memory the system has to map (a page fault for every 4 KiB written).
  void Clear();

  const ColumnSpec& spec() const { return spec_; }
  /// Entries (values and nulls): the chunk's num_values.
  int64_t num_entries() const { return num_entries_; }
  /// Non-null values.
  int64_t num_values() const;
  /// Records: entries with repetition level 0.
  int64_t num_rows() const { return num_rows_; }
  /// Bytes held by the buffers: what segments and row groups are measured by.
  size_t buffered_bytes() const;

  // The buffers, for EncodeColumnChunk. Levels are empty when the maximum is 0.
  const LargeArray<int16_t>& def_levels() const { return def_levels_; }
  const LargeArray<int16_t>& rep_levels() const { return rep_levels_; }
  const LargeArray<uint8_t>& bools() const { return bools_; }
  const LargeArray<int32_t>& int32s() const { return int32s_; }
  const LargeArray<int64_t>& int64s() const { return int64s_; }
  const LargeArray<Int96>& int96s() const { return int96s_; }
  const LargeArray<float>& floats() const { return floats_; }
  const LargeArray<double>& doubles() const { return doubles_; }
  /// Byte array value i is arena[start(i), ends[i]), start(0) = 0, start(i) = ends[i - 1].
  std::string_view arena() const { return arena_.view(); }
  const LargeArray<uint64_t>& ends() const { return ends_; }
  std::string_view bytes_value(size_t i) const {
    const uint64_t start = i == 0 ? 0 : ends_[i - 1];
    return std::string_view(arena_.view().data() + start, ends_[i] - start);
  }

 private:
  void PutLevels(int16_t def, int16_t rep) {
    if (spec_.max_def_level > 0) def_levels_.push_back(def);
    if (spec_.max_rep_level > 0) {
      rep_levels_.push_back(rep);
      num_rows_ += rep == 0;
    } else {
      ++num_rows_;
    }
    ++num_entries_;
  }

  ColumnSpec spec_;
  int64_t num_entries_ = 0;
  int64_t num_rows_ = 0;
  // Large buffers: a row group's worth of a column reaches many megabytes (base/large_buffer.h).
  LargeArray<int16_t> def_levels_;
  LargeArray<int16_t> rep_levels_;
  LargeArray<uint8_t> bools_;
  LargeArray<int32_t> int32s_;
  LargeArray<int64_t> int64s_;
  LargeArray<Int96> int96s_;
  LargeArray<float> floats_;
  LargeArray<double> doubles_;
  LargeBytes arena_;
  LargeArray<uint64_t> ends_;
};

/// A column chunk's bytes and metadata. Offsets in `meta` are relative to the chunk's first
/// byte (the dictionary page when there is one); the file writer adds the chunk's file offset.
struct EncodedColumnChunk {
  // Header and (compressed) body; empty without a dictionary.
  LargeString dictionary_page;
  // Every data page, headers included: megabytes for a full row group (base/large_buffer.h).
  LargeString data_pages;
  ColumnMetaData meta;
  size_t size() const { return dictionary_page.size() + data_pages.size(); }
};

/// Encodes one column chunk from its entries handed over in segments, so a row group need not
/// hold its values until it is cut: each segment (whole records, the chunk's next ones) becomes
/// data pages at once, the last one ending with the segment; the dictionary, the statistics
/// and the totals carry over from segment to segment; Finish puts the dictionary page in front.
/// A segment's buffers may be reused as soon as Add returns (the dictionary and the bounds keep
/// copies). Not thread-safe; one segment at a time, in order. After an error the builder
/// refuses every call.
class ColumnChunkBuilder {
 public:
  virtual ~ColumnChunkBuilder() = default;
  /// Encode `segment` (a column of the builder's spec) as the chunk's next pages. Errors as
  /// EncodeColumnChunk's.
  virtual Status Add(const ColumnWriter& segment) = 0;
  /// The chunk, once every segment is added. Call once.
  virtual Result<EncodedColumnChunk> Finish() = 0;
};

/// A builder for a chunk of `spec`'s column. kInvalidArgument for a codec the writer lacks or a
/// FIXED_LEN_BYTE_ARRAY spec without a positive width.
Result<std::unique_ptr<ColumnChunkBuilder>> NewColumnChunkBuilder(
    ColumnSpec spec, const ColumnEncodeOptions& options);

/// Encode the buffered column as one column chunk (one segment of a ColumnChunkBuilder).
/// kInvalidArgument for a value the format cannot hold (a byte array of 2 GiB or more, a
/// FIXED_LEN_BYTE_ARRAY value of the wrong width, a page past 2 GiB) or a codec the writer lacks.
/// Thread-safe for distinct columns.
Result<EncodedColumnChunk> EncodeColumnChunk(const ColumnWriter& column,
                                             const ColumnEncodeOptions& options);

}  // namespace sluice::parquet
