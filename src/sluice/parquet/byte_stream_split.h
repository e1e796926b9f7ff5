// BYTE_STREAM_SPLIT (Encodings.md "BYTE_STREAM_SPLIT = 9"): for N values of K bytes, K streams
// of N bytes, stream k holding byte k of every value, concatenated. For FLOAT, DOUBLE, INT32,
// INT64 and FIXED_LEN_BYTE_ARRAY. No header: N is the data's size over K.
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

/// Append the encoding of `values` (T = float, double, int32_t or int64_t) to `out`.
template <class T>
void ByteStreamSplitEncode(std::span<const T> values, std::string& out);
/// Append the encoding of FIXED_LEN_BYTE_ARRAY values. kInvalidArgument (and `out` unchanged)
/// for a value whose size is not `type_length`.
Status ByteStreamSplitEncodeFixedLenByteArrays(std::span<const std::string_view> values,
                                               int32_t type_length, std::string& out);

/// Decodes BYTE_STREAM_SPLIT for T = float, double, int32_t, int64_t, or std::string_view
/// (FIXED_LEN_BYTE_ARRAY; values are rebuilt in storage the decoder owns, at most the data's
/// size in all).
template <class T>
class ByteStreamSplitDecoder final : public ValueDecoder<T> {
 public:
  /// kInvalidArgument when the data's size is not a multiple of the value width, or for
  /// FIXED_LEN_BYTE_ARRAY without a positive type_length.
  static Result<ByteStreamSplitDecoder> Make(std::string_view data, const DecoderOptions& options);

  Status Decode(T* out, size_t n) override;

  size_t total_values() const { return count_; }

 private:
  ByteStreamSplitDecoder(std::string_view data, size_t width, size_t page_offset)
      : data_(data),
        width_(width),
        count_(data.size() / width),
        page_offset_(page_offset),
        arena_(data.size()) {}

  std::string_view data_;
  size_t width_;
  size_t count_;
  size_t page_offset_;
  size_t next_ = 0;
  ValueArena arena_;  // FIXED_LEN_BYTE_ARRAY values
};

}  // namespace sluice::parquet
