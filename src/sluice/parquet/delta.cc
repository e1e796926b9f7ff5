#include "sluice/parquet/delta.h"

#include <algorithm>
#include <limits>

#include "sluice/parquet/encoding_internal.h"
#include "sluice/parquet/rle.h"

namespace sluice::parquet {

using internal::ErrorAt;

namespace {

// parquet-mr's and Arrow's choice: blocks of 128 values in 4 miniblocks of 32.
constexpr uint64_t kBlockSize = 128;
constexpr uint64_t kMiniblocks = 4;
constexpr uint64_t kPerMiniblock = kBlockSize / kMiniblocks;

// Values decoded per step when byte-array decoders read their lengths.
constexpr size_t kLengthBatch = 256;

}  // namespace

template <class T>
void DeltaBinaryPackedEncoder<T>::FlushTo(std::string& out) {
  using U = std::make_unsigned_t<T>;
  const size_t n = values_.size();
  internal::AppendUleb(kBlockSize, out);
  internal::AppendUleb(kMiniblocks, out);
  internal::AppendUleb(n, out);
  internal::AppendUleb(internal::ZigZagEncode(n > 0 ? values_[0] : 0), out);
  // Deltas wrap in the type's unsigned width, so a delta and (delta - min) always fit in it.
  uint64_t rel[kBlockSize];
  for (size_t start = 1; start < n; start += kBlockSize) {
    const size_t count = std::min<size_t>(kBlockSize, n - start);
    T min_delta = std::numeric_limits<T>::max();
    for (size_t i = 0; i < count; ++i) {
      const U d = U(values_[start + i]) - U(values_[start + i - 1]);
      rel[i] = d;
      min_delta = std::min(min_delta, static_cast<T>(d));
    }
    std::fill(rel + count, rel + kBlockSize, 0);
    for (size_t i = 0; i < count; ++i) rel[i] = U(U(rel[i]) - U(min_delta));
    internal::AppendUleb(internal::ZigZagEncode(min_delta), out);
    int widths[kMiniblocks] = {};
    const size_t used = (count + kPerMiniblock - 1) / kPerMiniblock;
    for (size_t m = 0; m < used; ++m) {
      uint64_t max = 0;
      for (size_t i = 0; i < kPerMiniblock; ++i) max |= rel[m * kPerMiniblock + i];
      widths[m] = BitWidth(max);
    }
    for (int w : widths) out.push_back(static_cast<char>(w));
    for (size_t m = 0; m < used; ++m) {
      internal::PackGroups<uint64_t>(rel + m * kPerMiniblock, kPerMiniblock / 8, widths[m], out);
    }
  }
  values_.clear();
}

template <class T>
Unexpected<Error> DeltaBinaryPackedDecoder<T>::Fail(size_t at, std::string_view what) const {
  return ErrorAt(page_offset_ + at, "DELTA_BINARY_PACKED: {}", what);
}

template <class T>
Result<DeltaBinaryPackedDecoder<T>> DeltaBinaryPackedDecoder<T>::Make(std::string_view data,
                                                                      size_t page_offset) {
  DeltaBinaryPackedDecoder d;
  d.data_ = data;
  d.page_offset_ = page_offset;
  const auto* p = reinterpret_cast<const uint8_t*>(data.data());
  size_t at = 0;
  uint64_t first = 0;
  if (!internal::ReadUleb(p, data.size(), &d.pos_, 32, &d.block_size_)) {
    return d.Fail(at, "the block size runs off the end or past 32 bits");
  }
  if (d.block_size_ == 0 || d.block_size_ % 128 != 0) {
    return d.Fail(at,
                  fmt::format("block size {} is not a positive multiple of 128", d.block_size_));
  }
  at = d.pos_;
  if (!internal::ReadUleb(p, data.size(), &d.pos_, 32, &d.miniblocks_)) {
    return d.Fail(at, "the miniblock count runs off the end or past 32 bits");
  }
  if (d.miniblocks_ == 0 || d.block_size_ % d.miniblocks_ != 0 ||
      (d.block_size_ / d.miniblocks_) % 32 != 0) {
    return d.Fail(at, fmt::format("{} miniblocks do not split a block of {} values into "
                                  "multiples of 32",
                                  d.miniblocks_, d.block_size_));
  }
  d.per_miniblock_ = d.block_size_ / d.miniblocks_;
  at = d.pos_;
  if (!internal::ReadUleb(p, data.size(), &d.pos_, 64, &d.total_)) {
    return d.Fail(at, "the value count runs off the end or past 64 bits");
  }
  at = d.pos_;
  if (!internal::ReadUleb(p, data.size(), &d.pos_, 64, &first)) {
    return d.Fail(at, "the first value runs off the end or past 64 bits");
  }
  d.last_ = U(internal::ZigZagDecode(first));
  d.header_size_ = d.pos_;
  return d;
}

template <class T>
Status DeltaBinaryPackedDecoder<T>::StartBlock() {
  const auto* p = reinterpret_cast<const uint8_t*>(data_.data());
  const size_t at = pos_;
  uint64_t min_delta;
  if (!internal::ReadUleb(p, data_.size(), &pos_, 64, &min_delta)) {
    return Fail(at, "a block's min delta runs off the end or past 64 bits");
  }
  min_delta_ = U(internal::ZigZagDecode(min_delta));
  if (miniblocks_ > data_.size() - pos_) {
    return Fail(pos_, fmt::format("a block's {} bit widths pass the end of the data ({} bytes "
                                  "remain)",
                                  miniblocks_, data_.size() - pos_));
  }
  widths_pos_ = pos_;
  pos_ += miniblocks_;
  miniblock_ = 0;
  in_block_ = true;
  return Ok();
}

template <class T>
Status DeltaBinaryPackedDecoder<T>::StartMiniblock() {
  if (!in_block_ || miniblock_ == miniblocks_) SLUICE_TRY(StartBlock());
  const size_t width_at = widths_pos_ + miniblock_;
  const int width = static_cast<uint8_t>(data_[width_at]);
  if (width > int(sizeof(T) * 8)) {
    return Fail(width_at,
                fmt::format("miniblock bit width {} is wider than {} bits", width, sizeof(T) * 8));
  }
  const uint64_t bytes = per_miniblock_ * uint64_t(width) / 8;
  if (bytes > data_.size() - pos_) {
    return Fail(pos_, fmt::format("a miniblock of {} values at bit width {} needs {} bytes, {} "
                                  "remain",
                                  per_miniblock_, width, bytes, data_.size() - pos_));
  }
  packed_ = reinterpret_cast<const uint8_t*>(data_.data()) + pos_;
  pos_ += bytes;
  width_ = width;
  miniblock_left_ = per_miniblock_;
  miniblock_pos_ = 0;
  ++miniblock_;
  return Ok();
}

template <class T>
Status DeltaBinaryPackedDecoder<T>::Decode(T* out, size_t n) {
  if (n > total_ - decoded_) {
    return Fail(pos_, fmt::format("{} values wanted, but the header declares {} and {} were read",
                                  n, total_, decoded_));
  }
  size_t i = 0;
  if (decoded_ == 0 && n > 0) {
    out[0] = static_cast<T>(last_);
    i = 1;
    decoded_ = 1;
  }
  const auto* end = reinterpret_cast<const uint8_t*>(data_.data()) + data_.size();
  while (i < n) {
    if (miniblock_left_ == 0) {
      SLUICE_TRY(StartMiniblock());
      continue;
    }
    const size_t w = size_t(width_);
    const size_t take = std::min<uint64_t>(n - i, miniblock_left_);
    // Signed and unsigned variants of a type may alias: unpack the deltas in place, then sum.
    U* deltas = reinterpret_cast<U*>(out + i);
    size_t done = 0;
    const size_t in_group = miniblock_pos_ % 8;
    if (in_group != 0) {
      done = std::min<size_t>(take, 8 - in_group);
      std::copy(group_ + in_group, group_ + in_group + done, deltas);
    }
    const size_t groups = (take - done) / 8;
    const uint8_t* from = packed_ + (miniblock_pos_ + done) / 8 * w;
    internal::UnpackGroups<U>(from, size_t(end - from), width_, deltas + done, groups);
    done += groups * 8;
    if (done < take) {
      from += groups * w;
      internal::UnpackGroups<U>(from, size_t(end - from), width_, group_, 1);
      std::copy(group_, group_ + (take - done), deltas + done);
    }
    U v = last_;
    const U min_delta = min_delta_;
    for (size_t k = 0; k < take; ++k) {
      v += min_delta + deltas[k];
      deltas[k] = v;
    }
    last_ = v;
    miniblock_pos_ += take;
    miniblock_left_ -= take;
    decoded_ += take;
    i += take;
  }
  return Ok();
}

template <class T>
Result<size_t> DeltaBinaryPackedDecoder<T>::EncodedSize() const {
  const auto* p = reinterpret_cast<const uint8_t*>(data_.data());
  size_t pos = header_size_;
  uint64_t left = total_ > 0 ? total_ - 1 : 0;
  // Every block takes at least one byte, so this walk is bounded by the data's size.
  while (left > 0) {
    const size_t at = pos;
    uint64_t min_delta;
    if (!internal::ReadUleb(p, data_.size(), &pos, 64, &min_delta)) {
      return Fail(at, "a block's min delta runs off the end or past 64 bits");
    }
    if (miniblocks_ > data_.size() - pos) {
      return Fail(pos,
                  fmt::format("a block's {} bit widths pass the end of the data", miniblocks_));
    }
    const size_t widths = pos;
    pos += miniblocks_;
    for (uint64_t m = 0; m < miniblocks_ && left > 0; ++m) {
      const int width = p[widths + m];
      if (width > int(sizeof(T) * 8)) {
        return Fail(widths + m, fmt::format("miniblock bit width {} is wider than {} bits", width,
                                            sizeof(T) * 8));
      }
      const uint64_t bytes = per_miniblock_ * uint64_t(width) / 8;
      if (bytes > data_.size() - pos) {
        return Fail(pos, fmt::format("a miniblock of {} values at bit width {} needs {} bytes, "
                                     "{} remain",
                                     per_miniblock_, width, bytes, data_.size() - pos));
      }
      pos += bytes;
      left -= std::min(left, per_miniblock_);
    }
  }
  return pos;
}

template class DeltaBinaryPackedEncoder<int32_t>;
template class DeltaBinaryPackedEncoder<int64_t>;
template class DeltaBinaryPackedDecoder<int32_t>;
template class DeltaBinaryPackedDecoder<int64_t>;

void DeltaLengthByteArrayEncoder::Put(std::string_view value) {
  lengths_.Put(static_cast<int32_t>(value.size()));
  bytes_.append(value);
}

void DeltaLengthByteArrayEncoder::FlushTo(std::string& out) {
  lengths_.FlushTo(out);
  out.append(bytes_);
  bytes_.clear();
}

Result<DeltaLengthByteArrayDecoder> DeltaLengthByteArrayDecoder::Make(std::string_view data,
                                                                      size_t page_offset) {
  SLUICE_ASSIGN_OR_RETURN(auto lengths, DeltaBinaryPackedDecoder<int32_t>::Make(data, page_offset));
  SLUICE_ASSIGN_OR_RETURN(size_t bytes_pos, lengths.EncodedSize());
  return DeltaLengthByteArrayDecoder(std::move(lengths), data, bytes_pos, page_offset);
}

Status DeltaLengthByteArrayDecoder::Decode(std::string_view* out, size_t n) {
  int32_t lengths[kLengthBatch];
  for (size_t i = 0; i < n;) {
    const size_t k = std::min(n - i, kLengthBatch);
    SLUICE_TRY(lengths_.Decode(lengths, k));
    for (size_t j = 0; j < k; ++j, ++i) {
      const int32_t length = lengths[j];
      if (length < 0 || size_t(length) > data_.size() - bytes_pos_) {
        return ErrorAt(page_offset_ + bytes_pos_,
                       "DELTA_LENGTH_BYTE_ARRAY: value of length {} passes the end of the data "
                       "({} bytes remain)",
                       length, data_.size() - bytes_pos_);
      }
      out[i] = data_.substr(bytes_pos_, size_t(length));
      bytes_pos_ += size_t(length);
    }
  }
  return Ok();
}

void DeltaByteArrayEncoder::Put(std::string_view value) {
  const size_t limit = std::min(last_.size(), value.size());
  size_t prefix = 0;
  while (prefix < limit && last_[prefix] == value[prefix]) ++prefix;
  prefixes_.Put(static_cast<int32_t>(prefix));
  suffixes_.Put(value.substr(prefix));
  last_.assign(value);
}

void DeltaByteArrayEncoder::FlushTo(std::string& out) {
  prefixes_.FlushTo(out);
  suffixes_.FlushTo(out);
  last_.clear();
}

Result<DeltaByteArrayDecoder> DeltaByteArrayDecoder::Make(std::string_view data,
                                                          const DecoderOptions& options) {
  SLUICE_TRY(internal::CheckDecoderType<std::string_view>(options));
  SLUICE_ASSIGN_OR_RETURN(auto prefixes,
                          DeltaBinaryPackedDecoder<int32_t>::Make(data, options.page_offset));
  SLUICE_ASSIGN_OR_RETURN(size_t prefixes_size, prefixes.EncodedSize());
  SLUICE_ASSIGN_OR_RETURN(auto suffixes,
                          DeltaLengthByteArrayDecoder::Make(data.substr(prefixes_size),
                                                            options.page_offset + prefixes_size));
  if (prefixes.total_values() != suffixes.total_values()) {
    return ErrorAt(options.page_offset + prefixes_size,
                   "DELTA_BYTE_ARRAY: {} prefix lengths but {} suffixes", prefixes.total_values(),
                   suffixes.total_values());
  }
  return DeltaByteArrayDecoder(std::move(prefixes), std::move(suffixes), data, options);
}

Status DeltaByteArrayDecoder::Decode(std::string_view* out, size_t n) {
  const bool fixed = options_.type == PhysicalType::kFixedLenByteArray;
  int32_t prefix_lengths[kLengthBatch];
  for (size_t i = 0; i < n;) {
    const size_t k = std::min(n - i, kLengthBatch);
    SLUICE_TRY(prefixes_.Decode(prefix_lengths, k));
    SLUICE_TRY(suffixes_.Decode(out + i, k));
    for (size_t j = 0; j < k; ++j, ++i) {
      const int32_t prefix = prefix_lengths[j];
      const std::string_view suffix = out[i];
      // Suffixes are views into the data, so their position is where the value's bytes are.
      const size_t at = options_.page_offset + size_t(suffix.data() - data_.data());
      if (prefix < 0 || size_t(prefix) > last_.size()) {
        return ErrorAt(at,
                       "DELTA_BYTE_ARRAY: prefix length {} is longer than the value before it "
                       "({} bytes)",
                       prefix, last_.size());
      }
      std::string_view value;
      if (prefix == 0) {
        value = suffix;
      } else if (suffix.empty()) {
        value = last_.substr(0, size_t(prefix));
      } else {
        const size_t size = size_t(prefix) + suffix.size();
        char* bytes = arena_.Allocate(size);
        if (bytes == nullptr) {
          return ErrorAt(at,
                         "DELTA_BYTE_ARRAY: values rebuilt from prefixes pass the limit of {} "
                         "bytes",
                         options_.max_decoded_bytes);
        }
        std::memcpy(bytes, last_.data(), size_t(prefix));
        std::memcpy(bytes + prefix, suffix.data(), suffix.size());
        value = std::string_view(bytes, size);
      }
      if (fixed && value.size() != size_t(options_.type_length)) {
        return ErrorAt(at, "DELTA_BYTE_ARRAY: a FIXED_LEN_BYTE_ARRAY({}) value has {} bytes",
                       options_.type_length, value.size());
      }
      out[i] = value;
      last_ = value;
    }
  }
  return Ok();
}

}  // namespace sluice::parquet
