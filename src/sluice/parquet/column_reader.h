// Reading one column chunk: its pages (a dictionary page, data pages v1 and v2), decompressed
// and decoded in batches into repetition and definition levels and the canonical JSON text of
// each non-null value (value_text.h). The record assembler (record_assembler.h) consumes the
// buffers from the front; the reader appends at the back.
//
// Every page is checked before use: header and body inside the chunk, uncompressed size under
// the limit before anything is allocated, levels within the column's maximums, the level and
// value counts the page and the chunk declare. Errors are kInvalidArgument and name the file,
// the column and the byte offset of the page in the file.
#pragma once

#include <cstddef>
#include <cstdint>
#include <deque>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "sluice/base/result.h"
#include "sluice/parquet/metadata.h"
#include "sluice/parquet/value_text.h"

namespace sluice::parquet {

/// Bounds on what a file may make the reader allocate, checked before allocating.
struct ReaderOptions {
  /// Footer and page header limits.
  MetadataLimits metadata;
  /// Largest uncompressed page (or dictionary page) the reader decompresses. Some writers put
  /// a whole column chunk in one page (DuckDB: tens of MB).
  size_t max_page_size = size_t{1} << 30;
  /// Most level entries one row may take in one column (a list of that many elements): a row
  /// is held whole while it is assembled, about 24 bytes an entry plus its text, and RLE levels
  /// let a tiny file declare a list of billions of nulls.
  size_t max_row_entries = size_t{1} << 24;
  /// Most bytes a decoder may rebuild for one page (DELTA_BYTE_ARRAY prefixes).
  size_t max_decoded_bytes = size_t{1} << 28;
  /// Most entries of a dictionary page: the dictionary is rendered whole, some 50 bytes an
  /// entry, and a page of zeros compresses well enough to declare hundreds of millions.
  size_t max_dictionary_entries = size_t{1} << 24;
  /// Threads that decode a row group's columns, the caller's among them (rows are still
  /// assembled and delivered in order on the caller's thread).
  int threads = 1;
  /// Write maps as JSON objects keyed by each key's text (`{"k":1}`; a key that is not a
  /// string is quoted: `{"7":1}`), the form record validation reads, instead of arrays of
  /// {"key":k,"value":v} entries.
  bool maps_as_objects = false;
};

/// What the reader needs to know about a leaf column.
struct LeafColumn {
  std::string path;  // dotted path in the file's schema, for messages
  PhysicalType type = PhysicalType::kInt32;
  int32_t type_length = 0;  // FIXED_LEN_BYTE_ARRAY only
  int16_t max_def = 0;
  int16_t max_rep = 0;
  ValueFormat format;
};

/// One value's JSON text: bytes owned by the reader, valid until the reader drops them
/// (Consume, then Compact).
struct ValueRef {
  const char* data;
  size_t size;
};

/// What a row must hold at one plan node to pass the screen (AssemblyNode::screen; row_screen.h).
enum class ScreenCheck : uint8_t {
  kNone = 0,
  kNoExponent,  // a number written without an exponent (float32: none near its range's end)
  kDigits,      // at most ValueScreen::arg digits
  kInt8,
  kInt16,
  kFourDigitYear,  // "dddd-..."
  kNull,           // never present
};

/// A leaf's screen check (AssemblyNode::screen). A reader screening values without text
/// (ColumnChunkReader::Make) gives each value as an empty ValueRef when it passes, a one-byte
/// one when it does not.
struct ValueScreen {
  ScreenCheck check = ScreenCheck::kNone;
  uint8_t arg = 0;
};

/// Buffers a column's chunk readers reuse from one row group to the next: a fresh buffer the
/// size of a page costs a page fault every 4 KiB, and some writers put a whole chunk in one page.
/// Used by one reader at a time.
struct ColumnBuffers {
  std::string page;                     // the current page, decompressed
  std::string dictionary;               // the dictionary page, decompressed
  std::vector<std::string> spare_text;  // buffers of rendered text no longer in use
};

namespace internal {
class ValueStream;
class LevelDecoder;

/// An allocator whose construct() of no arguments leaves a value uninitialised, so that a
/// vector's resize() does not zero what the caller writes next.
template <class T>
class DefaultInitAllocator : public std::allocator<T> {
 public:
  template <class U>
  struct rebind {
    using other = DefaultInitAllocator<U>;
  };
  DefaultInitAllocator() noexcept = default;
  template <class U>
  DefaultInitAllocator(const DefaultInitAllocator<U>&) noexcept {}  // NOLINT: rebinding
  template <class U>
  void construct(U* p) noexcept {
    ::new (static_cast<void*>(p)) U;
  }
  template <class U, class... Args>
  void construct(U* p, Args&&... args) {
    ::new (static_cast<void*>(p)) U(std::forward<Args>(args)...);
  }
};

using LevelVector = std::vector<int16_t, DefaultInitAllocator<int16_t>>;
}  // namespace internal

/// Decodes one column chunk. Not thread-safe; one per chunk being read.
class ColumnChunkReader {
 public:
  /// `chunk` holds the chunk's bytes from its first page (the dictionary page when there is
  /// one) for total_compressed_size bytes; `chunk_offset` is where they start in the file.
  /// The bytes must outlive the reader. `context` starts every error message (the file and
  /// row group). `buffers`, when given, must outlive the reader and not be used by another at
  /// the same time. kInvalidArgument for a physical type that differs from the schema's.
  static Result<std::unique_ptr<ColumnChunkReader>> Make(
      const LeafColumn& leaf, const ColumnMetaData& meta, std::string_view chunk,
      uint64_t chunk_offset, std::string context, const ReaderOptions& options,
      ColumnBuffers* buffers = nullptr, const ValueScreen* text_free = nullptr);
  ~ColumnChunkReader();

  /// Decode up to about `entries` more level entries (at least one when any remain) and
  /// append them and their values to the buffers. Does nothing once the chunk is exhausted.
  Status ReadMore(size_t entries);
  /// Every page decoded and checked against the chunk's num_values.
  bool exhausted() const { return exhausted_; }

  /// Level entries buffered and not yet consumed: def_levels()[pos()..size()), and likewise
  /// for rep_levels(). A column without repetition or definition levels still gets zeros.
  const int16_t* def_levels() const { return def_.data(); }
  const int16_t* rep_levels() const { return rep_.data(); }
  size_t level_pos() const { return level_pos_; }
  size_t level_end() const { return def_.size(); }
  /// Non-null values buffered: values()[value_pos()..value_end()).
  const ValueRef* values() const { return values_.data(); }
  size_t value_pos() const { return value_pos_; }
  size_t value_end() const { return values_.size(); }
  /// Rows whose entries are all buffered (an entry with repetition level 0 starts a row; the
  /// last row started is complete only once the chunk is exhausted).
  size_t complete_rows() const;

  /// Mark entries and values up to these positions consumed, and `rows` rows with them.
  void Consume(size_t level_pos, size_t value_pos, size_t rows);
  /// Drop consumed buffers when they make up most of what is held (amortised O(1) per entry).
  void Compact();

  const LeafColumn& leaf() const { return leaf_; }

 private:
  ColumnChunkReader(const LeafColumn& leaf, const ColumnMetaData& meta, std::string_view chunk,
                    uint64_t chunk_offset, std::string context, const ReaderOptions& options);
  Status NextPage();
  Status ReadDictionaryPage(const PageHeader& header, std::string_view body, size_t at);
  Status StartDataPageV1(const PageHeader& header, std::string_view body, size_t at);
  Status StartDataPageV2(const PageHeader& header, std::string_view body, size_t at);
  Status StartValues(Encoding encoding, std::string_view data, size_t page_offset);
  Result<std::string_view> Decompress(std::string_view body, size_t uncompressed, size_t at,
                                      std::string& buffer);
  Status DecodeBatch(size_t n);
  Error PageError(const Error& e) const;
  Error ChunkError(size_t at, std::string_view what) const;

  LeafColumn leaf_;
  Codec codec_;
  int64_t num_values_;  // the chunk's, from its metadata
  std::string_view chunk_;
  uint64_t chunk_offset_;
  std::string context_;
  ReaderOptions options_;

  size_t pos_ = 0;               // next page header in chunk_
  int64_t values_in_pages_ = 0;  // level entries of the data pages started so far
  bool seen_data_page_ = false;
  bool seen_dictionary_ = false;
  bool exhausted_ = false;
  uint64_t page_at_ = 0;           // file offset of the current page, for messages
  size_t page_left_ = 0;           // level entries of the current page not yet decoded
  bool page_first_entry_ = false;  // the next entry decoded is the page's first
  bool page_starts_row_ = false;   // data page v2: its first entry must start a row
  ColumnBuffers own_buffers_;
  ColumnBuffers* buffers_ = &own_buffers_;
  std::unique_ptr<internal::LevelDecoder> def_decoder_;
  std::unique_ptr<internal::LevelDecoder> rep_decoder_;
  std::unique_ptr<internal::ValueStream> values_stream_;

  // Levels of the batches decoded and not yet consumed; grown without zeroing, as every batch
  // is written in full by its decoders (or dropped again when one fails).
  internal::LevelVector def_;
  internal::LevelVector rep_;
  std::vector<ValueRef> values_;
  size_t level_pos_ = 0;
  size_t value_pos_ = 0;
  size_t row_starts_ = 0;  // entries with repetition level 0 in [level_pos_, end)
  // Rendered text, one block per batch, freed once every value in it is consumed.
  struct TextBlock {
    std::string text;
    uint64_t values_end;  // absolute index of the value after the block's last
  };
  std::deque<TextBlock> blocks_;
  uint64_t values_base_ = 0;  // absolute index of values_[0]
};

}  // namespace sluice::parquet
