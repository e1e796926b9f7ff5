#include "sluice/parquet/plain.h"

#include "sluice/parquet/encoding_internal.h"

namespace sluice::parquet {

using internal::ErrorAt;

namespace {

template <class T>
void AppendRaw(std::span<const T> values, std::string& out) {
  out.append(reinterpret_cast<const char*>(values.data()), values.size_bytes());
}

}  // namespace

void PlainEncode(std::span<const int32_t> values, std::string& out) { AppendRaw(values, out); }
void PlainEncode(std::span<const int64_t> values, std::string& out) { AppendRaw(values, out); }
void PlainEncode(std::span<const Int96> values, std::string& out) {
  static_assert(sizeof(Int96) == 12);
  AppendRaw(values, out);
}
void PlainEncode(std::span<const float> values, std::string& out) { AppendRaw(values, out); }
void PlainEncode(std::span<const double> values, std::string& out) { AppendRaw(values, out); }

Status PlainEncodeByteArrays(std::span<const std::string_view> values, std::string& out) {
  size_t total = 0;
  for (std::string_view v : values) total += 4 + v.size();
  out.reserve(out.size() + total);
  for (size_t i = 0; i < values.size(); ++i) {
    if (values[i].size() > 0x7fffffff) {
      return InvalidArgument(fmt::format(
          "BYTE_ARRAY value {} has {} bytes; PLAIN takes at most 2^31 - 1", i, values[i].size()));
    }
    internal::AppendLE(static_cast<uint32_t>(values[i].size()), out);
    out.append(values[i]);
  }
  return Ok();
}

Status PlainEncodeFixedLenByteArrays(std::span<const std::string_view> values, int32_t type_length,
                                     std::string& out) {
  out.reserve(out.size() + values.size() * size_t(std::max(type_length, 0)));
  for (size_t i = 0; i < values.size(); ++i) {
    if (type_length < 0 || values[i].size() != size_t(type_length)) {
      return InvalidArgument(fmt::format("FIXED_LEN_BYTE_ARRAY value {} has {} bytes, not {}", i,
                                         values[i].size(), type_length));
    }
    out.append(values[i]);
  }
  return Ok();
}

void PlainBooleanEncoder::Put(std::span<const bool> values) {
  size_t i = 0;
  while (i < values.size() && num_pending_ != 0) Put(values[i++]);
  // Whole bytes at a time once aligned.
  for (; i + 8 <= values.size(); i += 8) {
    uint8_t byte = 0;
    for (int b = 0; b < 8; ++b) byte |= uint8_t(values[i + b]) << b;
    out_.push_back(static_cast<char>(byte));
    num_values_ += 8;
  }
  while (i < values.size()) Put(values[i++]);
}

void PlainBooleanEncoder::FlushTo(std::string& out) {
  out.append(out_);
  if (num_pending_ > 0) out.push_back(static_cast<char>(pending_));
  out_.clear();
  pending_ = 0;
  num_pending_ = 0;
  num_values_ = 0;
}

template <class T>
Result<PlainDecoder<T>> PlainDecoder<T>::Make(std::string_view data,
                                              const DecoderOptions& options) {
  SLUICE_TRY(internal::CheckDecoderType<T>(options));
  return PlainDecoder(data, options);
}

template <class T>
Status PlainDecoder<T>::Decode(T* out, size_t n) {
  if (n == 0) return Ok();  // `out` may then be null, which memcpy may not take
  const size_t left = data_.size() - pos_;
  if constexpr (std::is_same_v<T, bool>) {
    const size_t bits = left * 8 - size_t(bit_pos_);
    if (n > bits) {
      return ErrorAt(page_offset_ + pos_, "PLAIN BOOLEAN: {} values wanted, {} remain", n, bits);
    }
    const auto* p = reinterpret_cast<const uint8_t*>(data_.data());
    size_t i = 0;
    for (; i < n && bit_pos_ != 0; ++i) {
      out[i] = (p[pos_] >> bit_pos_) & 1;
      if (++bit_pos_ == 8) {
        bit_pos_ = 0;
        ++pos_;
      }
    }
    for (; i + 8 <= n; i += 8, ++pos_) {
      const uint8_t byte = p[pos_];
      for (int b = 0; b < 8; ++b) out[i + b] = (byte >> b) & 1;
    }
    for (; i < n; ++i) {
      out[i] = (p[pos_] >> bit_pos_) & 1;
      if (++bit_pos_ == 8) {
        bit_pos_ = 0;
        ++pos_;
      }
    }
    return Ok();
  } else if constexpr (std::is_same_v<T, std::string_view>) {
    if (type_length_ > 0) {
      const size_t width = size_t(type_length_);
      if (n > left / width) {
        return ErrorAt(page_offset_ + pos_,
                       "PLAIN FIXED_LEN_BYTE_ARRAY({}): {} values need {} bytes, {} remain", width,
                       n, n * width, left);
      }
      for (size_t i = 0; i < n; ++i, pos_ += width) out[i] = data_.substr(pos_, width);
      return Ok();
    }
    const auto* p = reinterpret_cast<const uint8_t*>(data_.data());
    for (size_t i = 0; i < n; ++i) {
      if (data_.size() - pos_ < 4) {
        return ErrorAt(page_offset_ + pos_, "PLAIN BYTE_ARRAY: value's 4-byte length, {} remain",
                       data_.size() - pos_);
      }
      const uint32_t length = internal::LoadLE<uint32_t>(p + pos_);
      if (length > data_.size() - pos_ - 4) {
        return ErrorAt(page_offset_ + pos_,
                       "PLAIN BYTE_ARRAY: length {} passes the end of the data ({} bytes remain)",
                       length, data_.size() - pos_ - 4);
      }
      out[i] = data_.substr(pos_ + 4, length);
      pos_ += 4 + size_t(length);
    }
    return Ok();
  } else {
    if (n > left / sizeof(T)) {
      return ErrorAt(page_offset_ + pos_, "PLAIN {}: {} values wanted, {} bytes hold {}",
                     internal::TypeName<T>(), n, left, left / sizeof(T));
    }
    std::memcpy(out, data_.data() + pos_, n * sizeof(T));
    pos_ += n * sizeof(T);
    return Ok();
  }
}

template class PlainDecoder<bool>;
template class PlainDecoder<int32_t>;
template class PlainDecoder<int64_t>;
template class PlainDecoder<Int96>;
template class PlainDecoder<float>;
template class PlainDecoder<double>;
template class PlainDecoder<std::string_view>;

}  // namespace sluice::parquet
