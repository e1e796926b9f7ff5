// PLAIN (Encodings.md "PLAIN = 0"): values back to back, little endian; BOOLEAN bit-packed LSB
// first; BYTE_ARRAY a 4-byte little-endian length then the bytes; FIXED_LEN_BYTE_ARRAY the bytes.
// Also the format of every dictionary page.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>

#include "sluice/base/result.h"
#include "sluice/parquet/encoding.h"

namespace sluice::parquet {

/// Append the PLAIN encoding of `values` to `out`.
void PlainEncode(std::span<const int32_t> values, std::string& out);
void PlainEncode(std::span<const int64_t> values, std::string& out);
void PlainEncode(std::span<const Int96> values, std::string& out);
void PlainEncode(std::span<const float> values, std::string& out);
void PlainEncode(std::span<const double> values, std::string& out);
/// Append BYTE_ARRAY values. kInvalidArgument for a value of 2^31 bytes or more (the length is
/// an int32 for most readers); `out` then holds the values before it.
Status PlainEncodeByteArrays(std::span<const std::string_view> values, std::string& out);
/// Append FIXED_LEN_BYTE_ARRAY values. kInvalidArgument for a value whose size is not
/// `type_length`; `out` then holds the values before it.
Status PlainEncodeFixedLenByteArrays(std::span<const std::string_view> values, int32_t type_length,
                                     std::string& out);

/// BOOLEAN's PLAIN encoding, bit-packed across calls: a page's booleans may come in batches of
/// any size. Not thread-safe.
class PlainBooleanEncoder {
 public:
  void Put(bool value) {
    if (value) pending_ |= uint8_t(1u << num_pending_);
    if (++num_pending_ == 8) {
      out_.push_back(static_cast<char>(pending_));
      pending_ = 0;
      num_pending_ = 0;
    }
    ++num_values_;
  }
  void Put(std::span<const bool> values);
  /// A bool array would convert to one bool through its pointer: pass a span.
  void Put(const bool* values) = delete;

  size_t num_values() const { return num_values_; }
  /// The bytes FlushTo would append now.
  size_t EstimatedSize() const { return out_.size() + (num_pending_ > 0 ? 1 : 0); }
  /// Append the page's booleans (the last byte padded with zero bits) to `out` and start anew.
  void FlushTo(std::string& out);

 private:
  std::string out_;
  uint8_t pending_ = 0;
  int num_pending_ = 0;
  size_t num_values_ = 0;
};

/// Decodes PLAIN values of type T (see DecoderOptions for the types) from a page's value
/// section. BYTE_ARRAY and FIXED_LEN_BYTE_ARRAY values are views into `data`, which must
/// outlive them and the decoder.
template <class T>
class PlainDecoder final : public ValueDecoder<T> {
 public:
  /// kInvalidArgument for FIXED_LEN_BYTE_ARRAY without a positive type_length, or a T that is
  /// not `options.type`'s.
  static Result<PlainDecoder> Make(std::string_view data, const DecoderOptions& options);

  Status Decode(T* out, size_t n) override;

  /// Bytes not yet decoded.
  size_t remaining_bytes() const { return data_.size() - pos_; }

 private:
  PlainDecoder(std::string_view data, const DecoderOptions& options)
      : data_(data),
        page_offset_(options.page_offset),
        type_length_(options.type == PhysicalType::kFixedLenByteArray ? options.type_length : 0) {}

  std::string_view data_;
  size_t pos_ = 0;  // next byte (for BOOLEAN, next bit is bit_pos_ of byte pos_)
  size_t page_offset_;
  int32_t type_length_;  // 0 but for FIXED_LEN_BYTE_ARRAY
  int bit_pos_ = 0;
};

}  // namespace sluice::parquet
