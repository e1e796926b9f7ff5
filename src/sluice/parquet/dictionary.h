// Dictionary encoding (Encodings.md "RLE_DICTIONARY = 8"): a column chunk's distinct values go
// once into a PLAIN-encoded dictionary page; data pages hold indexes into it as one bit-width
// byte followed by an RLE/bit-packing hybrid stream without a length prefix.
//
// The writer builds the dictionary with DictionaryBuilder and falls back to PLAIN once
// dictionary_page_bytes() passes its limit (kDefaultDictionaryPageSizeLimit, parquet-mr's).
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "sluice/base/result.h"
#include "sluice/parquet/encoding.h"
#include "sluice/parquet/rle.h"

namespace sluice::parquet {

/// parquet-mr's default dictionary page size limit (parquet.dictionary.page.size).
inline constexpr size_t kDefaultDictionaryPageSizeLimit = size_t{1} << 20;

/// Maps values to dictionary indexes in first-seen order. T is int32_t, int64_t, Int96, float or
/// double (floats compare by bit pattern: -0.0 and 0.0, and NaNs of different payloads, are
/// different entries) or std::string_view (below). Not thread-safe.
template <class T>
class DictionaryBuilder {
 public:
  DictionaryBuilder() = default;

  /// Return the index of `value`, adding it as a new entry when unseen.
  uint32_t Put(T value);
  /// Put every value, appending each one's index to `indexes`.
  void Put(std::span<const T> values, std::vector<uint32_t>& indexes);

  /// Entries, in index order.
  std::span<const T> values() const { return values_; }
  size_t size() const { return values_.size(); }
  /// Bytes of the PLAIN-encoded dictionary page (before compression).
  size_t dictionary_page_bytes() const { return values_.size() * sizeof(T); }
  /// Bit width of the indexes: BitWidth(size() - 1), 0 for zero or one entry.
  int index_bit_width() const;
  /// Append the dictionary page's body (the entries, PLAIN) to `out`.
  void WriteDictionaryPage(std::string& out) const;
  /// Forget every entry (a new column chunk).
  void Clear();

 private:
  void Grow();

  std::vector<T> values_;
  std::vector<uint32_t> slots_;  // open addressing: index + 1, 0 = empty
  size_t mask_ = 0;
};

/// The builder for BYTE_ARRAY (no fixed length) and FIXED_LEN_BYTE_ARRAY values. By default it
/// copies each new entry's bytes into storage it owns, so the caller's buffers may be reused;
/// with `copy_bytes` false it keeps the caller's views, which must then outlive the builder.
template <>
class DictionaryBuilder<std::string_view> {
 public:
  /// `fixed_length`: FIXED_LEN_BYTE_ARRAY's width (values must have that size), or none for
  /// BYTE_ARRAY.
  explicit DictionaryBuilder(std::optional<int32_t> fixed_length = std::nullopt,
                             bool copy_bytes = true)
      : fixed_length_(fixed_length), copy_bytes_(copy_bytes) {}

  uint32_t Put(std::string_view value);
  void Put(std::span<const std::string_view> values, std::vector<uint32_t>& indexes);

  std::span<const std::string_view> values() const { return values_; }
  size_t size() const { return values_.size(); }
  /// Bytes of the PLAIN-encoded dictionary page: each entry's bytes, plus 4 per entry for
  /// BYTE_ARRAY's lengths.
  size_t dictionary_page_bytes() const { return page_bytes_; }
  int index_bit_width() const;
  /// Append the dictionary page's body to `out`. Fails as PlainEncodeByteArrays or
  /// PlainEncodeFixedLenByteArrays does for a value they refuse.
  Status WriteDictionaryPage(std::string& out) const;
  void Clear();

 private:
  void Grow();
  std::string_view Store(std::string_view value);

  std::optional<int32_t> fixed_length_;
  bool copy_bytes_;
  std::vector<std::string_view> values_;
  std::vector<uint64_t> hashes_;  // of values_[i]
  // Open addressing: the entry's index + 1 in the low 32 bits (0 = empty), its hash's high 32
  // bits above, so that most probes that miss are told apart without reading the entry.
  std::vector<uint64_t> slots_;
  size_t mask_ = 0;
  size_t page_bytes_ = 0;
  ValueArena arena_{SIZE_MAX};  // copies of the entries' bytes
};

/// Append a data page's indexes: the bit-width byte, then the hybrid stream of `indexes`.
/// `bit_width` (0..32) must hold every index: the builder's index_bit_width().
void EncodeDictionaryIndexes(std::span<const uint32_t> indexes, int bit_width, std::string& out);

/// Decode a dictionary page: `num_values` PLAIN values of `options.type` (pages whose header
/// says the deprecated PLAIN_DICTIONARY are PLAIN too). kInvalidArgument when
/// the page is too short for `num_values` (checked before allocating) or a value is malformed.
/// Byte arrays are views into `data`.
template <class T>
Result<std::vector<T>> DecodeDictionaryPage(std::string_view data, int32_t num_values,
                                            const DecoderOptions& options);

/// Decodes a data page's dictionary indexes (bit-width byte, then the hybrid stream) and looks
/// them up in `dictionary`, which must outlive the decoder. Every index is checked against the
/// dictionary's size.
template <class T>
class DictionaryDecoder final : public ValueDecoder<T> {
 public:
  /// kInvalidArgument when `data` is empty or its bit width is above 32.
  static Result<DictionaryDecoder> Make(std::span<const T> dictionary, std::string_view data,
                                        size_t page_offset = 0);

  Status Decode(T* out, size_t n) override;
  /// Decode the next `n` indexes without looking them up (each still checked).
  Status DecodeIndexes(uint32_t* out, size_t n);

 private:
  DictionaryDecoder(std::span<const T> dictionary, RleDecoder indexes, size_t page_offset)
      : dictionary_(dictionary), indexes_(indexes), page_offset_(page_offset) {}

  std::span<const T> dictionary_;
  RleDecoder indexes_;
  size_t page_offset_;
  size_t decoded_ = 0;
};

}  // namespace sluice::parquet
