#include "sluice/parquet/byte_stream_split.h"

#include "sluice/parquet/encoding_internal.h"

namespace sluice::parquet {

using internal::ErrorAt;

namespace {

// Scatter n values of `width` bytes at `in` into `width` streams of n bytes at `out`.
void Split(const char* in, size_t n, size_t width, char* out) {
  for (size_t k = 0; k < width; ++k) {
    char* stream = out + k * n;
    for (size_t i = 0; i < n; ++i) stream[i] = in[i * width + k];
  }
}

// Gather values first..first+n of `width` bytes from streams of `count` bytes at `in`.
void Join(const char* in, size_t count, size_t first, size_t n, size_t width, char* out) {
  for (size_t k = 0; k < width; ++k) {
    const char* stream = in + k * count + first;
    for (size_t i = 0; i < n; ++i) out[i * width + k] = stream[i];
  }
}

}  // namespace

template <class T>
void ByteStreamSplitEncode(std::span<const T> values, std::string& out) {
  const size_t start = out.size();
  out.resize(start + values.size_bytes());
  Split(reinterpret_cast<const char*>(values.data()), values.size(), sizeof(T), out.data() + start);
}

template void ByteStreamSplitEncode<float>(std::span<const float>, std::string&);
template void ByteStreamSplitEncode<double>(std::span<const double>, std::string&);
template void ByteStreamSplitEncode<int32_t>(std::span<const int32_t>, std::string&);
template void ByteStreamSplitEncode<int64_t>(std::span<const int64_t>, std::string&);

Status ByteStreamSplitEncodeFixedLenByteArrays(std::span<const std::string_view> values,
                                               int32_t type_length, std::string& out) {
  for (size_t i = 0; i < values.size(); ++i) {
    if (type_length <= 0 || values[i].size() != size_t(type_length)) {
      return InvalidArgument(fmt::format("FIXED_LEN_BYTE_ARRAY value {} has {} bytes, not {}", i,
                                         values[i].size(), type_length));
    }
  }
  const size_t n = values.size();
  const size_t width = size_t(std::max(type_length, 1));
  const size_t start = out.size();
  out.resize(start + n * width);
  for (size_t i = 0; i < n; ++i) {
    for (size_t k = 0; k < width; ++k) out[start + k * n + i] = values[i][k];
  }
  return Ok();
}

template <class T>
Result<ByteStreamSplitDecoder<T>> ByteStreamSplitDecoder<T>::Make(std::string_view data,
                                                                  const DecoderOptions& options) {
  SLUICE_TRY(internal::CheckDecoderType<T>(options));
  size_t width = sizeof(T);
  if constexpr (std::is_same_v<T, std::string_view>) {
    if (options.type != PhysicalType::kFixedLenByteArray) {
      return ErrorAt(options.page_offset, "BYTE_STREAM_SPLIT does not encode BYTE_ARRAY values");
    }
    width = size_t(options.type_length);
  }
  if (data.size() % width != 0) {
    return ErrorAt(options.page_offset,
                   "BYTE_STREAM_SPLIT data of {} bytes is not a whole number of {}-byte values",
                   data.size(), width);
  }
  return ByteStreamSplitDecoder(data, width, options.page_offset);
}

template <class T>
Status ByteStreamSplitDecoder<T>::Decode(T* out, size_t n) {
  if (n > count_ - next_) {
    return ErrorAt(page_offset_ + next_, "BYTE_STREAM_SPLIT: {} values wanted, {} of {} remain", n,
                   count_ - next_, count_);
  }
  if constexpr (std::is_same_v<T, std::string_view>) {
    // The decoded values take exactly the data's size, the arena's limit.
    char* bytes = arena_.Allocate(n * width_);
    Join(data_.data(), count_, next_, n, width_, bytes);
    for (size_t i = 0; i < n; ++i) out[i] = std::string_view(bytes + i * width_, width_);
  } else {
    Join(data_.data(), count_, next_, n, width_, reinterpret_cast<char*>(out));
  }
  next_ += n;
  return Ok();
}

template class ByteStreamSplitDecoder<float>;
template class ByteStreamSplitDecoder<double>;
template class ByteStreamSplitDecoder<int32_t>;
template class ByteStreamSplitDecoder<int64_t>;
template class ByteStreamSplitDecoder<std::string_view>;

}  // namespace sluice::parquet
