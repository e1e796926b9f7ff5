#include "sluice/parquet/encoding.h"

#include "sluice/parquet/byte_stream_split.h"
#include "sluice/parquet/delta.h"
#include "sluice/parquet/dictionary.h"
#include "sluice/parquet/encoding_internal.h"
#include "sluice/parquet/plain.h"
#include "sluice/parquet/rle.h"

namespace sluice::parquet {

using internal::ErrorAt;

namespace internal {

template <class T>
Status CheckDecoderType(const DecoderOptions& options) {
  bool ok;
  if constexpr (std::is_same_v<T, std::string_view>) {
    if (options.type == PhysicalType::kFixedLenByteArray && options.type_length <= 0) {
      return InvalidArgument(fmt::format("FIXED_LEN_BYTE_ARRAY's type_length {} is not positive",
                                         options.type_length));
    }
    ok = options.type == PhysicalType::kByteArray ||
         options.type == PhysicalType::kFixedLenByteArray;
  } else {
    ok = TypeName<T>() == PhysicalTypeName(options.type);
  }
  if (!ok) {
    return InvalidArgument(fmt::format("a decoder of {} values cannot read {} values",
                                       TypeName<T>(), PhysicalTypeName(options.type)));
  }
  return Ok();
}

template Status CheckDecoderType<bool>(const DecoderOptions&);
template Status CheckDecoderType<int32_t>(const DecoderOptions&);
template Status CheckDecoderType<int64_t>(const DecoderOptions&);
template Status CheckDecoderType<Int96>(const DecoderOptions&);
template Status CheckDecoderType<float>(const DecoderOptions&);
template Status CheckDecoderType<double>(const DecoderOptions&);
template Status CheckDecoderType<std::string_view>(const DecoderOptions&);

}  // namespace internal

namespace {

// BOOLEAN's RLE: the length-prefixed hybrid at bit width 1.
class RleBooleanDecoder final : public ValueDecoder<bool> {
 public:
  explicit RleBooleanDecoder(RleDecoder decoder) : decoder_(decoder) {}
  Status Decode(bool* out, size_t n) override { return decoder_.GetExactly(out, n); }

 private:
  RleDecoder decoder_;
};

template <class T, class D>
Result<std::unique_ptr<ValueDecoder<T>>> Boxed(Result<D> decoder) {
  if (!decoder.has_value()) return Fail(std::move(decoder).error());
  return std::unique_ptr<ValueDecoder<T>>(std::make_unique<D>(std::move(decoder).value()));
}

// The encoding's name; a value outside the enum (from a hostile page header) by its number.
std::string EncodingLabel(Encoding encoding) {
  const std::string_view name = EncodingName(encoding);
  if (name != "UNKNOWN") return std::string(name);
  return fmt::format("encoding {}", static_cast<int32_t>(encoding));
}

}  // namespace

template <class T>
Result<std::unique_ptr<ValueDecoder<T>>> MakeDecoder(Encoding encoding, std::string_view data,
                                                     const DecoderOptions& options,
                                                     std::span<const T> dictionary) {
  SLUICE_TRY(internal::CheckDecoderType<T>(options));
  constexpr bool kIsInteger = std::is_same_v<T, int32_t> || std::is_same_v<T, int64_t>;
  constexpr bool kIsBytes = std::is_same_v<T, std::string_view>;
  switch (encoding) {
    case Encoding::kPlain:
      return Boxed<T>(PlainDecoder<T>::Make(data, options));
    case Encoding::kPlainDictionary:
    case Encoding::kRleDictionary:
      if constexpr (std::is_same_v<T, bool>) {
        return Unimplemented("dictionary-encoded BOOLEAN values are not supported");
      } else {
        return Boxed<T>(DictionaryDecoder<T>::Make(dictionary, data, options.page_offset));
      }
    case Encoding::kRle:
      if constexpr (std::is_same_v<T, bool>) {
        SLUICE_ASSIGN_OR_RETURN(RleDecoder rle,
                                RleDecoder::MakeLengthPrefixed(data, 1, options.page_offset));
        return std::unique_ptr<ValueDecoder<T>>(std::make_unique<RleBooleanDecoder>(rle));
      }
      break;
    case Encoding::kBitPacked:
      return Unimplemented("BIT_PACKED (deprecated) encodes only levels, and is not supported");
    case Encoding::kDeltaBinaryPacked:
      if constexpr (kIsInteger) {
        return Boxed<T>(DeltaBinaryPackedDecoder<T>::Make(data, options.page_offset));
      }
      break;
    case Encoding::kDeltaLengthByteArray:
      if constexpr (kIsBytes) {
        if (options.type == PhysicalType::kByteArray) {
          return Boxed<T>(DeltaLengthByteArrayDecoder::Make(data, options.page_offset));
        }
      }
      break;
    case Encoding::kDeltaByteArray:
      if constexpr (kIsBytes) return Boxed<T>(DeltaByteArrayDecoder::Make(data, options));
      break;
    case Encoding::kByteStreamSplit:
      if constexpr (!std::is_same_v<T, bool> && !std::is_same_v<T, Int96>) {
        return Boxed<T>(ByteStreamSplitDecoder<T>::Make(data, options));
      }
      break;
  }
  if (static_cast<int32_t>(encoding) == 10) {
    return Unimplemented("the ALP encoding is not supported");
  }
  const std::string_view type = options.type == PhysicalType::kFixedLenByteArray
                                    ? "FIXED_LEN_BYTE_ARRAY"
                                    : internal::TypeName<T>();
  return ErrorAt(options.page_offset, "{} values cannot be encoded as {}", type,
                 EncodingLabel(encoding));
}

template Result<std::unique_ptr<ValueDecoder<bool>>> MakeDecoder<bool>(Encoding, std::string_view,
                                                                       const DecoderOptions&,
                                                                       std::span<const bool>);
template Result<std::unique_ptr<ValueDecoder<int32_t>>> MakeDecoder<int32_t>(
    Encoding, std::string_view, const DecoderOptions&, std::span<const int32_t>);
template Result<std::unique_ptr<ValueDecoder<int64_t>>> MakeDecoder<int64_t>(
    Encoding, std::string_view, const DecoderOptions&, std::span<const int64_t>);
template Result<std::unique_ptr<ValueDecoder<Int96>>> MakeDecoder<Int96>(Encoding, std::string_view,
                                                                         const DecoderOptions&,
                                                                         std::span<const Int96>);
template Result<std::unique_ptr<ValueDecoder<float>>> MakeDecoder<float>(Encoding, std::string_view,
                                                                         const DecoderOptions&,
                                                                         std::span<const float>);
template Result<std::unique_ptr<ValueDecoder<double>>> MakeDecoder<double>(Encoding,
                                                                           std::string_view,
                                                                           const DecoderOptions&,
                                                                           std::span<const double>);
template Result<std::unique_ptr<ValueDecoder<std::string_view>>> MakeDecoder<std::string_view>(
    Encoding, std::string_view, const DecoderOptions&, std::span<const std::string_view>);

}  // namespace sluice::parquet
