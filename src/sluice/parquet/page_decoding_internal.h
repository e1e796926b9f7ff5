// What the column reader decodes a page with: level streams (the RLE hybrid, or the deprecated
// BIT_PACKED) and a typed value stream that decodes a page's values in batches and renders them
// to their JSON text. Not for use outside src/sluice/parquet.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "sluice/base/result.h"
#include "sluice/parquet/column_reader.h"
#include "sluice/parquet/rle.h"

namespace sluice::parquet::internal {

/// Repetition or definition levels of one data page.
class LevelDecoder {
 public:
  /// The RLE hybrid over `data`, with the 4-byte length in front (data page v1) or without
  /// (v2, where `data` is exactly the stream). `*consumed` gets the bytes the stream takes.
  static Result<std::unique_ptr<LevelDecoder>> MakeRle(std::string_view data, int bit_width,
                                                       bool length_prefixed, size_t page_offset,
                                                       size_t* consumed);
  /// The deprecated BIT_PACKED encoding: `num_values` levels packed from the most significant
  /// bit, no length; `*consumed` gets ceil(num_values * bit_width / 8).
  static Result<std::unique_ptr<LevelDecoder>> MakeBitPacked(std::string_view data, int bit_width,
                                                             size_t num_values, size_t page_offset,
                                                             size_t* consumed);

  /// Decode exactly `n` levels, or fail saying how many the stream held.
  Status Get(int16_t* out, size_t n);

 private:
  LevelDecoder() = default;
  std::optional<RleDecoder> rle_;
  // BIT_PACKED state.
  const uint8_t* packed_ = nullptr;
  size_t packed_values_ = 0;  // levels the packed bytes hold
  size_t next_ = 0;           // next level to read
  int bit_width_ = 0;
  size_t page_offset_ = 0;
};

/// Decodes a column's values page by page, keeping the rendered dictionary for the chunk.
class ValueStream {
 public:
  virtual ~ValueStream() = default;
  /// A stream for `leaf`'s physical type; with `text_free`, values are screened, not rendered
  /// (ValueScreen).
  static Result<std::unique_ptr<ValueStream>> Make(const LeafColumn& leaf,
                                                   const ReaderOptions& options,
                                                   const ValueScreen* text_free = nullptr);

  /// Decode and render a dictionary page of `count` PLAIN values. `data` must outlive the
  /// stream.
  virtual Status SetDictionary(std::string_view data, int32_t count, size_t page_offset) = 0;
  /// Start a data page's value section in `encoding`; `data` must outlive the page.
  virtual Status StartPage(Encoding encoding, std::string_view data, size_t page_offset) = 0;
  /// Decode the next `n` values of the page, appending one ValueRef each to `refs`; text the
  /// values need goes to `text`, which must not move or grow afterwards while the refs live.
  virtual Status Read(size_t n, std::vector<ValueRef>& refs, std::string& text) = 0;
};

}  // namespace sluice::parquet::internal
