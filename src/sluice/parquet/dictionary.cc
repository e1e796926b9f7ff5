#include "sluice/parquet/dictionary.h"

#include <algorithm>
#include <cstring>

#include "sluice/base/strings.h"
#include "sluice/parquet/encoding_internal.h"
#include "sluice/parquet/plain.h"

namespace sluice::parquet {

using internal::ErrorAt;

namespace {

// Open addressing starts at this many slots and doubles at half full.
constexpr size_t kInitialSlots = 1024;

// A mix of the value's bits in which every bit of the result (the table's index is its low
// bits) depends on every bit of the value: fixed-width values compare and hash by bit pattern.
// A single multiply is not enough: its low bits depend only on the value's low bits, and the
// low mantissa bits of doubles such as prices (2943.07, 12.34) repeat the binary pattern of
// their cents, which made long probe runs in a table of a few hundred thousand of them.
template <class T>
uint64_t HashBits(const T& value) {
  uint64_t h = 0;
  const auto* bytes = reinterpret_cast<const unsigned char*>(&value);
  for (size_t i = 0; i < sizeof(T); i += 8) {
    uint64_t word = 0;
    std::memcpy(&word, bytes + i, std::min<size_t>(8, sizeof(T) - i));
    h = (h ^ word) * 0x9e3779b97f4a7c15ULL;
  }
  h ^= h >> 33;
  h *= 0xff51afd7ed558ccdULL;
  h ^= h >> 33;
  return h;
}

// A byte string's hash, 8 bytes at a time, each word folded in with a multiply and the result
// mixed so that its low bits (the table's index) depend on every byte.
uint64_t HashBytes(std::string_view s) {
  uint64_t h = 0x9e3779b97f4a7c15ULL ^ s.size();
  const char* p = s.data();
  size_t n = s.size();
  for (; n >= 8; p += 8, n -= 8) {
    uint64_t word;
    std::memcpy(&word, p, 8);
    h = (h ^ word) * 0xff51afd7ed558ccdULL;
    h ^= h >> 32;
  }
  if (n > 0) {
    // The tail by whole loads (a copy of n bytes into a word is n byte stores that the word's
    // load must wait for): the last 8 bytes when the string has them, else two overlapping
    // halves, else its first, middle and last byte.
    uint64_t word = 0;
    if (s.size() >= 8) {
      std::memcpy(&word, s.data() + s.size() - 8, 8);
    } else if (n >= 4) {
      uint32_t lo;
      uint32_t hi;
      std::memcpy(&lo, p, 4);
      std::memcpy(&hi, p + n - 4, 4);
      word = lo | (static_cast<uint64_t>(hi) << 32);
    } else {
      word = static_cast<uint64_t>(static_cast<unsigned char>(p[0])) |
             static_cast<uint64_t>(static_cast<unsigned char>(p[n / 2])) << 8 |
             static_cast<uint64_t>(static_cast<unsigned char>(p[n - 1])) << 16;
    }
    h = (h ^ word) * 0xff51afd7ed558ccdULL;
  }
  h ^= h >> 29;
  h *= 0xc4ceb9fe1a85ec53ULL;
  return h ^ (h >> 32);
}

template <class T>
bool SameBits(const T& a, const T& b) {
  return std::memcmp(&a, &b, sizeof(T)) == 0;
}

}  // namespace

template <class T>
uint32_t DictionaryBuilder<T>::Put(T value) {
  if (slots_.empty()) Grow();
  for (size_t i = HashBits(value) & mask_;; i = (i + 1) & mask_) {
    const uint32_t slot = slots_[i];
    if (slot == 0) {
      values_.push_back(value);
      slots_[i] = static_cast<uint32_t>(values_.size());
      if (values_.size() * 2 > slots_.size()) Grow();
      return static_cast<uint32_t>(values_.size() - 1);
    }
    if (SameBits(values_[slot - 1], value)) return slot - 1;
  }
}

template <class T>
void DictionaryBuilder<T>::Put(std::span<const T> values, std::vector<uint32_t>& indexes) {
  indexes.reserve(indexes.size() + values.size());
  for (const T& v : values) indexes.push_back(Put(v));
}

template <class T>
void DictionaryBuilder<T>::Grow() {
  const size_t size = std::max(kInitialSlots, slots_.size() * 2);
  slots_.assign(size, 0);
  mask_ = size - 1;
  for (size_t k = 0; k < values_.size(); ++k) {
    size_t i = HashBits(values_[k]) & mask_;
    while (slots_[i] != 0) i = (i + 1) & mask_;
    slots_[i] = static_cast<uint32_t>(k + 1);
  }
}

template <class T>
int DictionaryBuilder<T>::index_bit_width() const {
  return values_.size() <= 1 ? 0 : BitWidth(values_.size() - 1);
}

template <class T>
void DictionaryBuilder<T>::WriteDictionaryPage(std::string& out) const {
  PlainEncode(std::span<const T>(values_), out);
}

template <class T>
void DictionaryBuilder<T>::Clear() {
  values_.clear();
  slots_.clear();
  mask_ = 0;
}

template class DictionaryBuilder<int32_t>;
template class DictionaryBuilder<int64_t>;
template class DictionaryBuilder<Int96>;
template class DictionaryBuilder<float>;
template class DictionaryBuilder<double>;

uint32_t DictionaryBuilder<std::string_view>::Put(std::string_view value) {
  if (slots_.empty()) Grow();
  const uint64_t hash = HashBytes(value);
  const uint64_t tag = hash >> 32 << 32;
  for (size_t i = hash & mask_;; i = (i + 1) & mask_) {
    const uint64_t slot = slots_[i];
    if (slot == 0) {
      values_.push_back(Store(value));
      hashes_.push_back(hash);
      page_bytes_ += value.size() + (fixed_length_ ? 0 : 4);
      slots_[i] = tag | values_.size();
      if (values_.size() * 2 > slots_.size()) Grow();
      return static_cast<uint32_t>(values_.size() - 1);
    }
    if ((slot & ~uint64_t{0xffffffff}) != tag) continue;
    const uint32_t k = static_cast<uint32_t>(slot) - 1;
    const std::string_view entry = values_[k];
    if (entry.size() == value.size() && SameBytes(entry.data(), value.data(), value.size())) {
      return k;
    }
  }
}

void DictionaryBuilder<std::string_view>::Put(std::span<const std::string_view> values,
                                              std::vector<uint32_t>& indexes) {
  indexes.reserve(indexes.size() + values.size());
  for (std::string_view v : values) indexes.push_back(Put(v));
}

std::string_view DictionaryBuilder<std::string_view>::Store(std::string_view value) {
  if (!copy_bytes_ || value.empty()) return value;
  char* bytes = arena_.Allocate(value.size());
  std::memcpy(bytes, value.data(), value.size());
  return std::string_view(bytes, value.size());
}

void DictionaryBuilder<std::string_view>::Grow() {
  const size_t size = std::max(kInitialSlots, slots_.size() * 2);
  slots_.assign(size, 0);
  mask_ = size - 1;
  for (size_t k = 0; k < values_.size(); ++k) {
    size_t i = hashes_[k] & mask_;
    while (slots_[i] != 0) i = (i + 1) & mask_;
    slots_[i] = (hashes_[k] >> 32 << 32) | (k + 1);
  }
}

int DictionaryBuilder<std::string_view>::index_bit_width() const {
  return values_.size() <= 1 ? 0 : BitWidth(values_.size() - 1);
}

Status DictionaryBuilder<std::string_view>::WriteDictionaryPage(std::string& out) const {
  if (fixed_length_) return PlainEncodeFixedLenByteArrays(values_, *fixed_length_, out);
  return PlainEncodeByteArrays(values_, out);
}

void DictionaryBuilder<std::string_view>::Clear() {
  values_.clear();
  hashes_.clear();
  slots_.clear();
  mask_ = 0;
  page_bytes_ = 0;
  arena_ = ValueArena(SIZE_MAX);
}

void EncodeDictionaryIndexes(std::span<const uint32_t> indexes, int bit_width, std::string& out) {
  RleEncoder encoder(bit_width);
  out.push_back(static_cast<char>(encoder.bit_width()));
  encoder.Put(indexes);
  encoder.FlushTo(out);
}

template <class T>
Result<std::vector<T>> DecodeDictionaryPage(std::string_view data, int32_t num_values,
                                            const DecoderOptions& options) {
  SLUICE_ASSIGN_OR_RETURN(PlainDecoder<T> plain, PlainDecoder<T>::Make(data, options));
  const size_t width = internal::PlainWidth<T>(options);
  if (num_values < 0 || size_t(num_values) > data.size() / width) {
    return ErrorAt(options.page_offset,
                   "a dictionary page of {} bytes cannot hold {} {} values of {} bytes or more",
                   data.size(), num_values, internal::TypeName<T>(), width);
  }
  std::vector<T> values(static_cast<size_t>(num_values));
  SLUICE_TRY(plain.Decode(values.data(), values.size()));
  return values;
}

template Result<std::vector<int32_t>> DecodeDictionaryPage<int32_t>(std::string_view, int32_t,
                                                                    const DecoderOptions&);
template Result<std::vector<int64_t>> DecodeDictionaryPage<int64_t>(std::string_view, int32_t,
                                                                    const DecoderOptions&);
template Result<std::vector<Int96>> DecodeDictionaryPage<Int96>(std::string_view, int32_t,
                                                                const DecoderOptions&);
template Result<std::vector<float>> DecodeDictionaryPage<float>(std::string_view, int32_t,
                                                                const DecoderOptions&);
template Result<std::vector<double>> DecodeDictionaryPage<double>(std::string_view, int32_t,
                                                                  const DecoderOptions&);
template Result<std::vector<std::string_view>> DecodeDictionaryPage<std::string_view>(
    std::string_view, int32_t, const DecoderOptions&);

template <class T>
Result<DictionaryDecoder<T>> DictionaryDecoder<T>::Make(std::span<const T> dictionary,
                                                        std::string_view data, size_t page_offset) {
  if (data.empty()) {
    return ErrorAt(page_offset, "dictionary indexes: the bit-width byte is missing");
  }
  const int bit_width = static_cast<uint8_t>(data[0]);
  if (bit_width > 32) {
    return ErrorAt(page_offset, "dictionary indexes' bit width {} is above 32", bit_width);
  }
  SLUICE_ASSIGN_OR_RETURN(RleDecoder indexes,
                          RleDecoder::Make(data.substr(1), bit_width, page_offset + 1));
  return DictionaryDecoder(dictionary, indexes, page_offset);
}

template <class T>
Status DictionaryDecoder<T>::DecodeIndexes(uint32_t* out, size_t n) {
  SLUICE_TRY(indexes_.GetExactly(out, n));
  // One pass for the common case, where every index is good; the slow pass only finds which.
  uint32_t max = 0;
  for (size_t i = 0; i < n; ++i) max = std::max(max, out[i]);
  if (n > 0 && max >= dictionary_.size()) {
    size_t bad = 0;
    while (out[bad] < dictionary_.size()) ++bad;
    return ErrorAt(indexes_.offset(),
                   "dictionary index {} (value {}) is not below the dictionary's {} entries",
                   out[bad], decoded_ + bad, dictionary_.size());
  }
  decoded_ += n;
  return Ok();
}

template <class T>
Status DictionaryDecoder<T>::Decode(T* out, size_t n) {
  constexpr size_t kBatch = 1024;
  uint32_t indexes[kBatch];
  for (size_t i = 0; i < n;) {
    const size_t k = std::min(n - i, kBatch);
    SLUICE_TRY(DecodeIndexes(indexes, k));
    const T* dict = dictionary_.data();
    for (size_t j = 0; j < k; ++j) out[i + j] = dict[indexes[j]];
    i += k;
  }
  return Ok();
}

template class DictionaryDecoder<int32_t>;
template class DictionaryDecoder<int64_t>;
template class DictionaryDecoder<Int96>;
template class DictionaryDecoder<float>;
template class DictionaryDecoder<double>;
template class DictionaryDecoder<std::string_view>;

}  // namespace sluice::parquet
