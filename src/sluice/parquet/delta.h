// The delta encodings (Encodings.md): DELTA_BINARY_PACKED for INT32 and INT64,
// DELTA_LENGTH_BYTE_ARRAY (delta-packed lengths, then the bytes back to back) and DELTA_BYTE_ARRAY
// (delta-packed prefix lengths, then the suffixes as DELTA_LENGTH_BYTE_ARRAY).
//
// DELTA_BINARY_PACKED: a header `<block size> <miniblocks per block> <total count> <first value>`
// (ULEB128, the first value zigzag), then blocks of `<min delta (zigzag)> <one bit-width byte per
// miniblock> <miniblocks>`, each miniblock the deltas minus the min delta bit-packed as the RLE
// hybrid packs. Arithmetic wraps in the type's unsigned width, as the spec says.
//
// The decoders are what the reader needs; the encoders (block size 128, 4 miniblocks, as
// parquet-mr writes) are here for tests and for writers that opt in.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "sluice/base/result.h"
#include "sluice/parquet/encoding.h"

namespace sluice::parquet {

/// DELTA_BINARY_PACKED writer for T = int32_t or int64_t. Not thread-safe.
template <class T>
class DeltaBinaryPackedEncoder {
 public:
  void Put(T value) { values_.push_back(value); }
  void Put(std::span<const T> values) {
    values_.insert(values_.end(), values.begin(), values.end());
  }
  size_t num_values() const { return values_.size(); }
  /// Append the encoded values to `out` and start anew.
  void FlushTo(std::string& out);

 private:
  std::vector<T> values_;
};

/// DELTA_BINARY_PACKED reader for T = int32_t or int64_t. Holds a view of the bytes.
template <class T>
class DeltaBinaryPackedDecoder final : public ValueDecoder<T> {
 public:
  /// Read the header. kInvalidArgument for a block size that is not a positive multiple of 128,
  /// a miniblock count that does not split it into multiples of 32 values, or a varint that runs
  /// off the end or past 64 bits.
  static Result<DeltaBinaryPackedDecoder> Make(std::string_view data, size_t page_offset = 0);

  /// Decode the next `n` values. kInvalidArgument past the header's total count, for a used
  /// miniblock wider than T, or a block past the end of the data.
  Status Decode(T* out, size_t n) override;

  /// The value count the header declares (not checked against the data until decoded).
  uint64_t total_values() const { return total_; }
  /// Walk the blocks of the whole stream without decoding them and return its length in bytes
  /// (where the data after it begins). Costs O(blocks); does not move the decoder.
  Result<size_t> EncodedSize() const;

 private:
  using U = std::make_unsigned_t<T>;
  DeltaBinaryPackedDecoder() = default;
  Status StartBlock();
  Status StartMiniblock();
  Unexpected<Error> Fail(size_t at, std::string_view what) const;

  std::string_view data_;
  size_t page_offset_ = 0;
  size_t pos_ = 0;  // next unread byte
  size_t header_size_ = 0;
  uint64_t block_size_ = 0;
  uint64_t miniblocks_ = 0;
  uint64_t per_miniblock_ = 0;
  uint64_t total_ = 0;
  uint64_t decoded_ = 0;
  U last_ = 0;  // the previous value, the base of the next delta
  U min_delta_ = 0;
  size_t widths_pos_ = 0;            // offset of the block's bit-width bytes
  uint64_t miniblock_ = 0;           // index of the current miniblock in its block
  const uint8_t* packed_ = nullptr;  // current miniblock's bytes
  int width_ = 0;
  uint64_t miniblock_left_ = 0;  // values not yet read from the current miniblock
  uint64_t miniblock_pos_ = 0;   // values read from it
  bool in_block_ = false;
  U group_[8] = {};
};

/// DELTA_LENGTH_BYTE_ARRAY writer. Values are copied. Not thread-safe.
class DeltaLengthByteArrayEncoder {
 public:
  void Put(std::string_view value);
  size_t num_values() const { return lengths_.num_values(); }
  /// Append the encoded values to `out` and start anew.
  void FlushTo(std::string& out);

 private:
  DeltaBinaryPackedEncoder<int32_t> lengths_;
  std::string bytes_;
};

/// DELTA_LENGTH_BYTE_ARRAY reader: values are views into the data.
class DeltaLengthByteArrayDecoder final : public ValueDecoder<std::string_view> {
 public:
  /// Read the lengths' header and find where the bytes begin. kInvalidArgument as
  /// DeltaBinaryPackedDecoder's Make and EncodedSize fail.
  static Result<DeltaLengthByteArrayDecoder> Make(std::string_view data, size_t page_offset = 0);

  /// Decode the next `n` values. kInvalidArgument for a negative length or one past the data.
  Status Decode(std::string_view* out, size_t n) override;

  uint64_t total_values() const { return lengths_.total_values(); }
  /// Bytes after the last value read so far (the end of the stream once all are read).
  size_t position() const { return bytes_pos_; }

 private:
  DeltaLengthByteArrayDecoder(DeltaBinaryPackedDecoder<int32_t> lengths, std::string_view data,
                              size_t bytes_pos, size_t page_offset)
      : lengths_(std::move(lengths)),
        data_(data),
        bytes_pos_(bytes_pos),
        page_offset_(page_offset) {}

  DeltaBinaryPackedDecoder<int32_t> lengths_;
  std::string_view data_;
  size_t bytes_pos_;
  size_t page_offset_;
};

/// DELTA_BYTE_ARRAY writer. Not thread-safe.
class DeltaByteArrayEncoder {
 public:
  void Put(std::string_view value);
  size_t num_values() const { return prefixes_.num_values(); }
  /// Append the encoded values to `out` and start anew.
  void FlushTo(std::string& out);

 private:
  DeltaBinaryPackedEncoder<int32_t> prefixes_;
  DeltaLengthByteArrayEncoder suffixes_;
  std::string last_;
};

/// DELTA_BYTE_ARRAY reader for BYTE_ARRAY and FIXED_LEN_BYTE_ARRAY (each value then must be
/// type_length bytes). A value with an empty prefix or an empty suffix is a view into the page;
/// one with both is rebuilt in storage the decoder owns, at most options.max_decoded_bytes.
class DeltaByteArrayDecoder final : public ValueDecoder<std::string_view> {
 public:
  static Result<DeltaByteArrayDecoder> Make(std::string_view data, const DecoderOptions& options);

  /// Decode the next `n` values. kInvalidArgument for a prefix longer than the value before it
  /// (the first value's must be 0), counts of prefixes and suffixes that differ, or rebuilt
  /// values past the limit.
  Status Decode(std::string_view* out, size_t n) override;

 private:
  DeltaByteArrayDecoder(DeltaBinaryPackedDecoder<int32_t> prefixes,
                        DeltaLengthByteArrayDecoder suffixes, std::string_view data,
                        const DecoderOptions& options)
      : prefixes_(std::move(prefixes)),
        suffixes_(std::move(suffixes)),
        data_(data),
        options_(options),
        arena_(options.max_decoded_bytes) {}

  DeltaBinaryPackedDecoder<int32_t> prefixes_;
  DeltaLengthByteArrayDecoder suffixes_;
  std::string_view data_;
  DecoderOptions options_;
  std::string_view last_;
  ValueArena arena_;
};

}  // namespace sluice::parquet
