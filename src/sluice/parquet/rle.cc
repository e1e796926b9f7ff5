#include "sluice/parquet/rle.h"

#include <algorithm>
#include <bit>

#include "sluice/parquet/encoding_internal.h"

namespace sluice::parquet {

using internal::ErrorAt;

namespace {

// Runs are at most 2^31 - 1 values (Encodings.md), so a reader can hold a count in an int32.
constexpr size_t kMaxRunLength = 0x7fffffff;
// Literal runs close at 63 groups so their header is one byte, written before the groups and
// patched when the run ends.
constexpr size_t kMaxLiteralGroups = 63;

}  // namespace

int BitWidth(uint64_t max_value) { return 64 - std::countl_zero(max_value); }

RleEncoder::RleEncoder(int bit_width)
    : bit_width_(std::clamp(bit_width, 0, 32)),
      mask_(bit_width_ == 32 ? ~uint32_t{0} : (uint32_t{1} << bit_width_) - 1) {}

void RleEncoder::Put(uint32_t value) {
  value &= mask_;
  ++num_values_;
  if (repeated_count_ > 0) {
    if (value == repeated_value_ && repeated_count_ < kMaxRunLength) {
      ++repeated_count_;
      return;
    }
    EndRepeatedRun();
  }
  buffered_[num_buffered_++] = value;
  if (num_buffered_ == 8) FinishGroup();
}

void RleEncoder::Put(std::span<const uint32_t> values) {
  for (uint32_t v : values) Put(v);
}

void RleEncoder::PutRepeated(uint32_t value, size_t count) {
  value &= mask_;
  while (count > 0) {
    if (repeated_count_ > 0 && value == repeated_value_ && repeated_count_ < kMaxRunLength) {
      size_t take = std::min(count, kMaxRunLength - repeated_count_);
      repeated_count_ += take;
      num_values_ += take;
      count -= take;
    } else if (repeated_count_ == 0 && num_buffered_ == 0 && count >= 8) {
      EndLiteralRun();
      size_t take = std::min(count, kMaxRunLength);
      repeated_value_ = value;
      repeated_count_ = take;
      num_values_ += take;
      count -= take;
    } else {
      Put(value);
      --count;
    }
  }
}

void RleEncoder::FinishGroup() {
  bool all_equal =
      std::all_of(buffered_ + 1, buffered_ + 8, [&](uint32_t v) { return v == buffered_[0]; });
  if (all_equal) {
    EndLiteralRun();
    repeated_value_ = buffered_[0];
    repeated_count_ = 8;
    num_buffered_ = 0;
  } else {
    PackBufferedGroup();
  }
}

void RleEncoder::StartLiteralRun() {
  literal_header_ = out_.size();
  out_.push_back(0);
}

void RleEncoder::PackBufferedGroup() {
  if (literal_groups_ == 0) StartLiteralRun();
  internal::PackGroups(buffered_, 1, bit_width_, out_);
  num_buffered_ = 0;
  if (++literal_groups_ == kMaxLiteralGroups) EndLiteralRun();
}

void RleEncoder::EndLiteralRun() {
  if (literal_groups_ == 0) return;
  out_[literal_header_] = static_cast<char>((literal_groups_ << 1) | 1);
  literal_groups_ = 0;
}

void RleEncoder::EndRepeatedRun() {
  if (repeated_count_ == 0) return;
  internal::AppendUleb(uint64_t(repeated_count_) << 1, out_);
  uint32_t v = repeated_value_;
  for (int i = 0; i < (bit_width_ + 7) / 8; ++i, v >>= 8) out_.push_back(static_cast<char>(v));
  repeated_count_ = 0;
}

size_t RleEncoder::EstimatedSize() const {
  // The open repeated run's header and value, or the buffered values as one more group.
  return out_.size() + 10 + size_t(bit_width_);
}

void RleEncoder::FlushTo(std::string& out) {
  EndRepeatedRun();
  if (num_buffered_ > 0) {
    bool all_equal = std::all_of(buffered_ + 1, buffered_ + num_buffered_,
                                 [&](uint32_t v) { return v == buffered_[0]; });
    if (all_equal) {
      EndLiteralRun();
      repeated_value_ = buffered_[0];
      repeated_count_ = num_buffered_;
      EndRepeatedRun();
      num_buffered_ = 0;
    } else {
      std::fill(buffered_ + num_buffered_, buffered_ + 8, 0u);
      PackBufferedGroup();
    }
  }
  EndLiteralRun();
  out.append(out_);
  out_.clear();
  num_values_ = 0;
}

void RleEncoder::FlushWithLengthTo(std::string& out) {
  size_t at = out.size();
  internal::AppendLE<uint32_t>(0, out);
  FlushTo(out);
  uint32_t length = static_cast<uint32_t>(out.size() - at - 4);
  std::memcpy(out.data() + at, &length, 4);
}

RleDecoder::RleDecoder(std::string_view data, int bit_width, size_t page_offset,
                       size_t encoded_size)
    : data_(reinterpret_cast<const uint8_t*>(data.data())),
      size_(data.size()),
      bit_width_(bit_width),
      page_offset_(page_offset),
      encoded_size_(encoded_size) {}

Result<RleDecoder> RleDecoder::Make(std::string_view data, int bit_width, size_t page_offset) {
  if (bit_width < 0 || bit_width > 32) {
    return ErrorAt(page_offset, "RLE/bit-packed stream's bit width {} is above 32", bit_width);
  }
  return RleDecoder(data, bit_width, page_offset, data.size());
}

Result<RleDecoder> RleDecoder::MakeLengthPrefixed(std::string_view data, int bit_width,
                                                  size_t page_offset) {
  if (data.size() < 4) {
    return ErrorAt(page_offset, "RLE/bit-packed stream's 4-byte length: only {} bytes remain",
                   data.size());
  }
  uint32_t length = internal::LoadLE<uint32_t>(data.data());
  if (length > data.size() - 4) {
    return ErrorAt(page_offset,
                   "RLE/bit-packed stream's length {} passes the end of the data ({} bytes remain)",
                   length, data.size() - 4);
  }
  SLUICE_ASSIGN_OR_RETURN(RleDecoder decoder,
                          Make(data.substr(4, length), bit_width, page_offset + 4));
  decoder.encoded_size_ = 4 + size_t(length);
  return decoder;
}

Status RleDecoder::NextRun() {
  const size_t at = pos_;
  uint64_t header;
  if (!internal::ReadUleb(data_, size_, &pos_, 32, &header)) {
    return ErrorAt(page_offset_ + at, "RLE/bit-packed run header runs off the end or past 32 bits");
  }
  const size_t left = size_ - pos_;
  const size_t w = size_t(bit_width_);
  if (header & 1) {
    const uint64_t groups = header >> 1;
    const uint64_t need = groups * w;
    repeated_ = false;
    packed_ = data_ + pos_;
    if (need <= left) {
      run_left_ = groups * 8;
      packed_bytes_ = need;
    } else if (need - left < w) {
      // A last run cut short inside its last group: read the values its bytes hold.
      run_left_ = left * 8 / w;
      packed_bytes_ = left;
    } else {
      return ErrorAt(page_offset_ + at,
                     "RLE/bit-packed run of {} values needs {} bytes, but {} remain", groups * 8,
                     need, left);
    }
    pos_ += packed_bytes_;
    return Ok();
  }
  const size_t value_bytes = (w + 7) / 8;
  if (value_bytes > left) {
    return ErrorAt(page_offset_ + at, "RLE run's value needs {} bytes, but {} remain", value_bytes,
                   left);
  }
  uint32_t v = 0;
  for (size_t i = 0; i < value_bytes; ++i) v |= uint32_t(data_[pos_ + i]) << (8 * i);
  if (w < 32 && (v >> w) != 0) {
    return ErrorAt(page_offset_ + pos_, "RLE run's value {} does not fit in bit width {}", v, w);
  }
  pos_ += value_bytes;
  repeated_ = true;
  repeated_value_ = v;
  run_left_ = header >> 1;
  return Ok();
}

template <class U>
size_t RleDecoder::ReadPacked(U* out, size_t n) {
  const size_t w = size_t(bit_width_);
  const size_t want = std::min(n, run_left_);
  size_t groups = want / 8;
  if (w > 0) groups = std::min(groups, packed_bytes_ / w);
  // Bytes past the run but inside the data may be read (not used): the fast unpackers need them.
  internal::UnpackGroups<U>(packed_, size_t(data_ + size_ - packed_), bit_width_, out, groups);
  packed_ += groups * w;
  packed_bytes_ -= groups * w;
  run_left_ -= groups * 8;
  size_t done = groups * 8;
  if (done < n && run_left_ > 0) {
    // The batch ends inside a group (or the run's last group is cut short): unpack it whole and
    // keep what is not returned now.
    const size_t bytes = std::min(w, packed_bytes_);
    internal::UnpackPartialGroup<uint32_t>(packed_, bytes, bit_width_, group_);
    packed_ += bytes;
    packed_bytes_ -= bytes;
    const size_t in_group = std::min<size_t>(8, run_left_);
    run_left_ -= in_group;
    group_end_ = in_group;
    const size_t take = std::min(n - done, in_group);
    for (size_t i = 0; i < take; ++i) out[done + i] = static_cast<U>(group_[i]);
    group_pos_ = take;
    done += take;
  }
  return done;
}

template <class U>
Result<size_t> RleDecoder::Get(U* out, size_t n) {
  if (bit_width_ > internal::kMaxUnpackWidth<U>) {
    return InvalidArgument(
        fmt::format("RLE/bit-packed values of bit width {} do not fit in {} bits", bit_width_,
                    internal::kMaxUnpackWidth<U>));
  }
  size_t done = 0;
  while (done < n) {
    if (group_pos_ < group_end_) {
      const size_t take = std::min(n - done, group_end_ - group_pos_);
      for (size_t i = 0; i < take; ++i) out[done + i] = static_cast<U>(group_[group_pos_ + i]);
      group_pos_ += take;
      done += take;
    } else if (run_left_ == 0) {
      if (pos_ >= size_) break;
      SLUICE_TRY(NextRun());
    } else if (repeated_) {
      const size_t take = std::min(n - done, run_left_);
      std::fill(out + done, out + done + take, static_cast<U>(repeated_value_));
      run_left_ -= take;
      done += take;
    } else {
      done += ReadPacked(out + done, n - done);
    }
  }
  values_decoded_ += done;
  return done;
}

template <class U>
Status RleDecoder::GetExactly(U* out, size_t n) {
  SLUICE_ASSIGN_OR_RETURN(size_t got, Get(out, n));
  if (got < n) {
    return ErrorAt(page_offset_ + size_, "RLE/bit-packed stream ends after {} values, {} short",
                   values_decoded_, n - got);
  }
  return Ok();
}

#define SLUICE_RLE_INSTANTIATE(U)                                \
  template Result<size_t> RleDecoder::Get<U>(U * out, size_t n); \
  template Status RleDecoder::GetExactly<U>(U * out, size_t n);
SLUICE_RLE_INSTANTIATE(bool)
SLUICE_RLE_INSTANTIATE(uint8_t)
SLUICE_RLE_INSTANTIATE(int16_t)
SLUICE_RLE_INSTANTIATE(uint16_t)
SLUICE_RLE_INSTANTIATE(int32_t)
SLUICE_RLE_INSTANTIATE(uint32_t)
#undef SLUICE_RLE_INSTANTIATE

}  // namespace sluice::parquet
