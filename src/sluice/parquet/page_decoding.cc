#include <fmt/format.h>

#include <algorithm>
#include <cstring>
#include <span>

#include "sluice/parquet/dictionary.h"
#include "sluice/parquet/encoding.h"
#include "sluice/parquet/page_decoding_internal.h"
#include "sluice/parquet/row_screen.h"

namespace sluice::parquet::internal {

Result<std::unique_ptr<LevelDecoder>> LevelDecoder::MakeRle(std::string_view data, int bit_width,
                                                            bool length_prefixed,
                                                            size_t page_offset, size_t* consumed) {
  std::unique_ptr<LevelDecoder> d(new LevelDecoder());
  if (length_prefixed) {
    SLUICE_ASSIGN_OR_RETURN(RleDecoder rle,
                            RleDecoder::MakeLengthPrefixed(data, bit_width, page_offset));
    *consumed = rle.encoded_size();
    d->rle_.emplace(rle);
  } else {
    SLUICE_ASSIGN_OR_RETURN(RleDecoder rle, RleDecoder::Make(data, bit_width, page_offset));
    *consumed = data.size();
    d->rle_.emplace(rle);
  }
  return d;
}

Result<std::unique_ptr<LevelDecoder>> LevelDecoder::MakeBitPacked(std::string_view data,
                                                                  int bit_width, size_t num_values,
                                                                  size_t page_offset,
                                                                  size_t* consumed) {
  if (bit_width < 0 || bit_width > 16) {
    return InvalidArgument(
        fmt::format("byte {}: BIT_PACKED levels of bit width {}", page_offset, bit_width));
  }
  // num_values comes from a page header (int32), so the product cannot overflow.
  const size_t bytes = (num_values * static_cast<size_t>(bit_width) + 7) / 8;
  if (bytes > data.size()) {
    return InvalidArgument(
        fmt::format("byte {}: BIT_PACKED levels need {} bytes for {} values, the page has {} left",
                    page_offset, bytes, num_values, data.size()));
  }
  std::unique_ptr<LevelDecoder> d(new LevelDecoder());
  d->packed_ = reinterpret_cast<const uint8_t*>(data.data());
  d->packed_values_ = num_values;
  d->bit_width_ = bit_width;
  d->page_offset_ = page_offset;
  *consumed = bytes;
  return d;
}

Status LevelDecoder::Get(int16_t* out, size_t n) {
  if (rle_) return rle_->GetExactly(out, n);
  if (packed_values_ - next_ < n) {
    return InvalidArgument(fmt::format("byte {}: BIT_PACKED levels hold {} values, {} were read",
                                       page_offset_, packed_values_, next_ + n));
  }
  // Most significant bit first, unlike the hybrid's packing.
  const size_t w = static_cast<size_t>(bit_width_);
  size_t bit = next_ * w;
  for (size_t i = 0; i < n; ++i) {
    uint32_t v = 0;
    for (size_t b = 0; b < w; ++b, ++bit) {
      v = (v << 1) | ((packed_[bit >> 3] >> (7 - (bit & 7))) & 1u);
    }
    out[i] = static_cast<int16_t>(v);
  }
  next_ += n;
  return Ok();
}

namespace {

bool IsDictionaryEncoding(Encoding e) {
  return e == Encoding::kPlainDictionary || e == Encoding::kRleDictionary;
}

// INT32 DELTA_BINARY_PACKED decoded as INT64 and narrowed. DuckDB computes INT32 deltas in 64
// bits and writes miniblocks 33 bits wide, which the INT32 decoder refuses; modulo 2^32 the
// 64-bit sums are the same values, so decoding wide and keeping the low 32 bits reads both
// those files and the ones written in 32 bits.
class WideDeltaInt32Decoder final : public ValueDecoder<int32_t> {
 public:
  explicit WideDeltaInt32Decoder(std::unique_ptr<ValueDecoder<int64_t>> wide)
      : wide_(std::move(wide)) {}

  Status Decode(int32_t* out, size_t n) override {
    if (buffer_.size() < n) buffer_.resize(n);
    SLUICE_TRY(wide_->Decode(buffer_.data(), n));
    for (size_t i = 0; i < n; ++i) out[i] = static_cast<int32_t>(static_cast<uint32_t>(buffer_[i]));
    return Ok();
  }

 private:
  std::unique_ptr<ValueDecoder<int64_t>> wide_;
  std::vector<int64_t> buffer_;
};

template <class T>
class TypedValueStream final : public ValueStream {
 public:
  TypedValueStream(const LeafColumn& leaf, const ReaderOptions& options,
                   const ValueScreen* text_free)
      : format_(leaf.format) {
    if (text_free != nullptr) screen_ = *text_free;
    options_.type = leaf.type;
    options_.type_length = leaf.type_length;
    options_.max_decoded_bytes = options.max_decoded_bytes;
  }

  Status SetDictionary(std::string_view data, int32_t count, size_t page_offset) override {
    if constexpr (std::is_same_v<T, bool>) {
      return InvalidArgument(
          fmt::format("byte {}: a dictionary page for BOOLEAN values", page_offset));
    } else {
      DecoderOptions options = options_;
      options.page_offset = page_offset;
      SLUICE_ASSIGN_OR_RETURN(dictionary_, DecodeDictionaryPage<T>(data, count, options));
      if (screen_) {
        dict_refs_.clear();
        dict_refs_.reserve(dictionary_.size());
        for (const T& v : dictionary_) dict_refs_.push_back(Verdict(v));
        has_dictionary_ = true;
        return Ok();
      }
      // Rendered a slice at a time: the widest types reserve about 100 bytes a value while
      // rendering, which the whole dictionary at once would multiply.
      constexpr size_t kSlice = 4096;
      std::vector<size_t> ends(dictionary_.size());
      dict_text_.clear();
      for (size_t i = 0; i < dictionary_.size(); i += kSlice) {
        const size_t n = std::min(kSlice, dictionary_.size() - i);
        SLUICE_TRY(RenderValues<T>(format_, dictionary_.data() + i, n, dict_text_, &ends[i]));
      }
      dict_refs_.clear();
      dict_refs_.reserve(ends.size());
      size_t start = 0;
      for (size_t end : ends) {
        dict_refs_.push_back({dict_text_.data() + start, end - start});
        start = end;
      }
      has_dictionary_ = true;
      return Ok();
    }
  }

  Status StartPage(Encoding encoding, std::string_view data, size_t page_offset) override {
    decoder_.reset();
    if constexpr (!std::is_same_v<T, bool>) {
      dict_decoder_.reset();
      if (IsDictionaryEncoding(encoding)) {
        if (!has_dictionary_) {
          return InvalidArgument(
              fmt::format("byte {}: a dictionary-encoded page in a chunk without a dictionary page",
                          page_offset));
        }
        SLUICE_ASSIGN_OR_RETURN(
            auto d, DictionaryDecoder<T>::Make(std::span<const T>(dictionary_), data, page_offset));
        dict_decoder_.emplace(std::move(d));
        return Ok();
      }
    }
    DecoderOptions options = options_;
    options.page_offset = page_offset;
    if constexpr (std::is_same_v<T, int32_t>) {
      if (encoding == Encoding::kDeltaBinaryPacked) {
        options.type = PhysicalType::kInt64;
        SLUICE_ASSIGN_OR_RETURN(auto wide, MakeDecoder<int64_t>(encoding, data, options));
        decoder_ = std::make_unique<WideDeltaInt32Decoder>(std::move(wide));
        return Ok();
      }
    }
    SLUICE_ASSIGN_OR_RETURN(decoder_, MakeDecoder<T>(encoding, data, options));
    return Ok();
  }

  Status Read(size_t n, std::vector<ValueRef>& refs, std::string& text) override {
    if constexpr (!std::is_same_v<T, bool>) {
      if (dict_decoder_) {
        if (indexes_.size() < n) indexes_.resize(n);
        SLUICE_TRY(dict_decoder_->DecodeIndexes(indexes_.data(), n));
        const size_t old = refs.size();
        refs.resize(old + n);
        ValueRef* out = refs.data() + old;
        const ValueRef* dict = dict_refs_.data();
        for (size_t i = 0; i < n; ++i) out[i] = dict[indexes_[i]];
        return Ok();
      }
    }
    if (!decoder_) return Internal("values read before a page was started");
    if (scratch_size_ < n) {
      scratch_ = std::make_unique<T[]>(n);
      scratch_size_ = n;
    }
    SLUICE_TRY(decoder_->Decode(scratch_.get(), n));
    const size_t old = refs.size();
    refs.resize(old + n);
    ValueRef* out = refs.data() + old;
    if (screen_) {
      for (size_t i = 0; i < n; ++i) out[i] = Verdict(scratch_[i]);
      return Ok();
    }
    if constexpr (std::is_same_v<T, bool>) {
      // Booleans need no text of their own.
      static constexpr std::string_view kTrue = "true", kFalse = "false", kNull = "null";
      const bool null = format_.kind == ValueFormat::Kind::kNull;
      for (size_t i = 0; i < n; ++i) {
        const std::string_view s = null ? kNull : scratch_[i] ? kTrue : kFalse;
        out[i] = {s.data(), s.size()};
      }
      return Ok();
    } else {
      if (ends_.size() < n) ends_.resize(n);
      size_t start = text.size();
      SLUICE_TRY(RenderValues<T>(format_, scratch_.get(), n, text, ends_.data()));
      for (size_t i = 0; i < n; ++i) {
        out[i] = {text.data() + start, ends_[i] - start};
        start = ends_[i];
      }
      return Ok();
    }
  }

 private:
  // std::optional needs a complete type; bool has no dictionary decoder.
  struct NoDictionary {};
  using DictDecoder =
      std::conditional_t<std::is_same_v<T, bool>, NoDictionary, DictionaryDecoder<T>>;

  // Screening without text: an empty ref for a value that passes, a one-byte one otherwise.
  ValueRef Verdict(const T& v) const {
    static constexpr char kFailed[] = "!";
    return PassesScreen(format_, *screen_, v) ? ValueRef{kFailed, 0} : ValueRef{kFailed, 1};
  }

  ValueFormat format_;
  std::optional<ValueScreen> screen_;
  DecoderOptions options_;
  std::vector<T> dictionary_;
  std::string dict_text_;
  std::vector<ValueRef> dict_refs_;
  bool has_dictionary_ = false;
  std::unique_ptr<ValueDecoder<T>> decoder_;
  std::optional<DictDecoder> dict_decoder_;
  std::unique_ptr<T[]> scratch_;
  size_t scratch_size_ = 0;
  std::vector<uint32_t> indexes_;
  std::vector<size_t> ends_;
};

}  // namespace

Result<std::unique_ptr<ValueStream>> ValueStream::Make(const LeafColumn& leaf,
                                                       const ReaderOptions& options,
                                                       const ValueScreen* s) {
  switch (leaf.type) {
    case PhysicalType::kBoolean:
      return std::make_unique<TypedValueStream<bool>>(leaf, options, s);
    case PhysicalType::kInt32:
      return std::make_unique<TypedValueStream<int32_t>>(leaf, options, s);
    case PhysicalType::kInt64:
      return std::make_unique<TypedValueStream<int64_t>>(leaf, options, s);
    case PhysicalType::kInt96:
      return std::make_unique<TypedValueStream<Int96>>(leaf, options, s);
    case PhysicalType::kFloat:
      return std::make_unique<TypedValueStream<float>>(leaf, options, s);
    case PhysicalType::kDouble:
      return std::make_unique<TypedValueStream<double>>(leaf, options, s);
    case PhysicalType::kByteArray:
    case PhysicalType::kFixedLenByteArray:
      return std::make_unique<TypedValueStream<std::string_view>>(leaf, options, s);
  }
  return InvalidArgument(
      fmt::format("column {}: unknown physical type {}", leaf.path, static_cast<int>(leaf.type)));
}

}  // namespace sluice::parquet::internal
