// The RLE/bit-packing hybrid (Encodings.md "RLE = 3"): repetition and definition levels,
// dictionary indexes and RLE booleans. A stream is a sequence of runs, each either one value
// repeated (header `count << 1`, then the value in ceil(bit_width / 8) little-endian bytes) or
// groups of 8 values bit-packed LSB first (header `groups << 1 | 1`), headers ULEB128.
//
// Two framings: data page v1 levels and RLE booleans put the stream's byte length in front as 4
// little-endian bytes; v2 levels and dictionary indexes (after their bit-width byte) do not.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>

#include "sluice/base/result.h"

namespace sluice::parquet {

/// Return the number of bits needed to write `max_value` (0 for 0, 64 for 2^63 and above).
int BitWidth(uint64_t max_value);

/// Encodes values of a fixed bit width (0..32) as the hybrid: a run of 8 or more equal values
/// that starts on a group boundary becomes a repeated run, the rest bit-packed groups. Values
/// must be below 2^bit_width (higher bits are dropped). Not thread-safe.
class RleEncoder {
 public:
  /// `bit_width` must be in 0..32.
  explicit RleEncoder(int bit_width);

  void Put(uint32_t value);
  void Put(std::span<const uint32_t> values);
  /// Put `value` `count` times; long repeats cost O(1) once on a group boundary.
  void PutRepeated(uint32_t value, size_t count);

  /// Values put since construction or the last flush.
  size_t num_values() const { return num_values_; }
  /// An upper bound on the bytes FlushTo would append now.
  size_t EstimatedSize() const;

  /// Append the stream (no length prefix) to `out` and start a new, empty one. The last
  /// bit-packed group is padded with zeros; readers stop at the value count they know.
  void FlushTo(std::string& out);
  /// As FlushTo, with the stream's byte length in front as 4 little-endian bytes.
  void FlushWithLengthTo(std::string& out);

  int bit_width() const { return bit_width_; }

 private:
  void StartLiteralRun();
  void EndLiteralRun();
  void EndRepeatedRun();
  void PackBufferedGroup();
  void FinishGroup();

  int bit_width_;
  uint32_t mask_;
  size_t num_values_ = 0;
  std::string out_;            // finished runs, and the open literal run's groups
  size_t literal_header_ = 0;  // offset in out_ of the open literal run's header byte
  size_t literal_groups_ = 0;  // groups in the open literal run; 0 = none open
  uint32_t repeated_value_ = 0;
  size_t repeated_count_ = 0;  // length of the open repeated run; 0 = none open
  uint32_t buffered_[8] = {};
  size_t num_buffered_ = 0;
};

/// Decodes a hybrid stream in batches. Every run header is checked against the bytes that
/// remain: a repeated run needs its value bytes and a value that fits the bit width; a
/// bit-packed run yields only the values its remaining bytes hold (writers that cut the last
/// run short are read as parquet-mr and Arrow read them), so no run makes the decoder read past
/// the data or allocate. Cheap to copy; holds a view of the bytes, which must outlive it.
class RleDecoder {
 public:
  /// A decoder over `data`, a stream without a length prefix. `page_offset` is the offset of
  /// data[0] in its page, for error messages. kInvalidArgument when bit_width is not in 0..32.
  static Result<RleDecoder> Make(std::string_view data, int bit_width, size_t page_offset = 0);
  /// A decoder over the stream that follows a 4-byte little-endian length at the start of
  /// `data`. kInvalidArgument when the length passes the end of `data`.
  static Result<RleDecoder> MakeLengthPrefixed(std::string_view data, int bit_width,
                                               size_t page_offset = 0);

  /// Decode up to `n` values into `out`; return how many, fewer than `n` only at the end of the
  /// stream. kInvalidArgument (with the byte offset) for a malformed run. U is uint8_t, bool,
  /// int16_t, uint16_t, int32_t or uint32_t, wide enough for the bit width (else
  /// kInvalidArgument).
  template <class U>
  Result<size_t> Get(U* out, size_t n);
  /// Decode exactly `n` values, or fail saying how many the stream held.
  template <class U>
  Status GetExactly(U* out, size_t n);

  /// Bytes of `data` the stream takes, including the length prefix when there is one: where
  /// the next section of a v1 page begins.
  size_t encoded_size() const { return encoded_size_; }
  int bit_width() const { return bit_width_; }
  /// The byte offset within the page just past the run being read (for error messages).
  size_t offset() const { return page_offset_ + pos_; }

 private:
  RleDecoder(std::string_view data, int bit_width, size_t page_offset, size_t encoded_size);
  Status NextRun();
  template <class U>
  size_t ReadPacked(U* out, size_t n);

  const uint8_t* data_;
  size_t size_;
  size_t pos_ = 0;  // next header
  int bit_width_;
  size_t page_offset_;  // of data_[0]
  size_t encoded_size_;
  size_t values_decoded_ = 0;
  // The current run: a repeated value, or bit-packed bytes at packed_ with packed_left_ values.
  bool repeated_ = false;
  uint32_t repeated_value_ = 0;
  size_t run_left_ = 0;
  const uint8_t* packed_ = nullptr;
  size_t packed_bytes_ = 0;  // bytes from packed_ the run may read
  // Values of a group unpacked but not yet returned (a batch that ended mid-group).
  uint32_t group_[8] = {};
  size_t group_pos_ = 0;
  size_t group_end_ = 0;
};

}  // namespace sluice::parquet
