// Fuzz Parquet's value decoders and page decompression. The first byte picks what reads the
// rest: the RLE/bit-packing hybrid (bare or length-prefixed), PLAIN of each physical type,
// dictionary indexes, DELTA_BINARY_PACKED (INT32, INT64), DELTA_LENGTH_BYTE_ARRAY,
// DELTA_BYTE_ARRAY, BYTE_STREAM_SPLIT, or Decompress with each codec; the second byte is its
// parameter (bit width, type, codec). Decoding must end with values or an error; values decoded
// must encode back to bytes that decode to the same values; byte arrays must lie inside the input
// (or the decoder's storage); hybrid values fit their bit width; dictionary lookups stay in the
// dictionary; a decompressed page has exactly its declared size.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

#include "sluice/parquet/byte_stream_split.h"
#include "sluice/parquet/compression.h"
#include "sluice/parquet/delta.h"
#include "sluice/parquet/dictionary.h"
#include "sluice/parquet/encoding.h"
#include "sluice/parquet/plain.h"
#include "sluice/parquet/rle.h"

namespace pq = sluice::parquet;

namespace {

// Runs may declare 2^31 values in a few bytes; read no more than this many.
constexpr size_t kMaxValues = 1 << 12;
constexpr size_t kBatches[] = {1, 7, 64, 1000};

void Check(bool ok) {
  if (!ok) std::abort();
}

// Decode up to `limit` values in varying batches; stop at the first error.
template <class T, class D>
std::vector<T> DecodeSome(D& decoder, size_t limit) {
  std::vector<T> out;
  for (size_t i = 0; out.size() < limit; ++i) {
    const size_t batch = std::min(kBatches[i % 4], limit - out.size());
    const size_t at = out.size();
    out.resize(at + batch);
    if (!decoder.Decode(out.data() + at, batch).has_value()) {
      out.resize(at);
      break;
    }
  }
  return out;
}

void FuzzRle(std::string_view data, int bit_width, bool length_prefixed) {
  auto decoder = length_prefixed ? pq::RleDecoder::MakeLengthPrefixed(data, bit_width)
                                 : pq::RleDecoder::Make(data, bit_width);
  if (!decoder.has_value()) return;
  Check(decoder->encoded_size() <= data.size());
  std::vector<uint32_t> values(kMaxValues);
  size_t n = 0;
  for (size_t i = 0; n < values.size(); ++i) {
    auto got = decoder->Get(values.data() + n, std::min(kBatches[i % 4], values.size() - n));
    if (!got.has_value() || *got == 0) break;
    n += *got;
  }
  values.resize(n);
  for (uint32_t v : values) Check(bit_width == 32 || (v >> bit_width) == 0);
  pq::RleEncoder encoder(bit_width);
  encoder.Put(values);
  std::string again;
  encoder.FlushTo(again);
  std::vector<uint32_t> back(n);
  Check(pq::RleDecoder::Make(again, bit_width)->GetExactly(back.data(), n).has_value());
  Check(back == values);
}

template <class T>
void FuzzPlain(std::string_view data, pq::PhysicalType type, int32_t type_length) {
  pq::DecoderOptions options;
  options.type = type;
  options.type_length = type_length;
  auto decoder = pq::PlainDecoder<T>::Make(data, options);
  if (!decoder.has_value()) return;
  std::vector<T> values = DecodeSome<T>(*decoder, kMaxValues);
  std::string again;
  if constexpr (std::is_same_v<T, std::string_view>) {
    for (std::string_view v : values) {
      Check(v.data() >= data.data() && v.data() + v.size() <= data.data() + data.size());
    }
    auto status = type == pq::PhysicalType::kByteArray
                      ? pq::PlainEncodeByteArrays(values, again)
                      : pq::PlainEncodeFixedLenByteArrays(values, type_length, again);
    Check(status.has_value());
  } else {
    pq::PlainEncode(std::span<const T>(values), again);
  }
  // PLAIN has one encoding per value: what was read is the start of the input.
  Check(data.substr(0, again.size()) == again);
}

void FuzzPlainBooleans(std::string_view data) {
  pq::DecoderOptions options;
  options.type = pq::PhysicalType::kBoolean;
  auto decoder = pq::PlainDecoder<bool>::Make(data, options);
  const size_t n = std::min(data.size() * 8, kMaxValues);
  std::unique_ptr<bool[]> values(new bool[n]);
  Check(decoder->Decode(values.get(), n).has_value());
  Check(!decoder->Decode(values.get(), data.size() * 8 - n + 1).has_value());
  pq::PlainBooleanEncoder encoder;
  encoder.Put(std::span<const bool>(values.get(), n));
  std::string again;
  encoder.FlushTo(again);
  for (size_t i = 0; i < n; ++i) {
    Check(((again[i / 8] >> (i % 8)) & 1) == ((data[i / 8] >> (i % 8)) & 1));
  }
}

void FuzzDictionary(std::string_view data, size_t dictionary_size) {
  std::vector<int32_t> dictionary(dictionary_size);
  for (size_t i = 0; i < dictionary_size; ++i) dictionary[i] = int32_t(i) * 3;
  auto decoder = pq::DictionaryDecoder<int32_t>::Make(dictionary, data);
  if (!decoder.has_value()) return;
  for (int32_t v : DecodeSome<int32_t>(*decoder, kMaxValues)) {
    Check(v % 3 == 0 && size_t(v / 3) < dictionary_size);
  }
}

template <class T>
void FuzzDeltaBinaryPacked(std::string_view data) {
  auto decoder = pq::DeltaBinaryPackedDecoder<T>::Make(data);
  if (!decoder.has_value()) return;
  const size_t limit = std::min<uint64_t>(decoder->total_values(), kMaxValues);
  std::vector<T> values = DecodeSome<T>(*decoder, limit);
  if (values.size() == decoder->total_values()) {
    auto size = pq::DeltaBinaryPackedDecoder<T>::Make(data)->EncodedSize();
    Check(size.has_value() && *size <= data.size());
  }
  pq::DeltaBinaryPackedEncoder<T> encoder;
  encoder.Put(values);
  std::string again;
  encoder.FlushTo(again);
  auto back = pq::DeltaBinaryPackedDecoder<T>::Make(again);
  Check(back.has_value() && back->total_values() == values.size());
  std::vector<T> got(values.size());
  Check(back->Decode(got.data(), got.size()).has_value());
  Check(got == values);
}

void FuzzDeltaLength(std::string_view data) {
  auto decoder = pq::DeltaLengthByteArrayDecoder::Make(data, 0);
  if (!decoder.has_value()) return;
  const size_t limit = std::min<uint64_t>(decoder->total_values(), kMaxValues);
  std::vector<std::string_view> values = DecodeSome<std::string_view>(*decoder, limit);
  pq::DeltaLengthByteArrayEncoder encoder;
  for (std::string_view v : values) {
    Check(v.data() >= data.data() && v.data() + v.size() <= data.data() + data.size());
    encoder.Put(v);
  }
  std::string again;
  encoder.FlushTo(again);
  auto back = pq::DeltaLengthByteArrayDecoder::Make(again, 0);
  std::vector<std::string_view> got(values.size());
  Check(back.has_value() && back->Decode(got.data(), got.size()).has_value());
  Check(got == values && back->position() == again.size());
}

void FuzzDeltaByteArray(std::string_view data, int32_t type_length) {
  pq::DecoderOptions options;
  options.type =
      type_length > 0 ? pq::PhysicalType::kFixedLenByteArray : pq::PhysicalType::kByteArray;
  options.type_length = type_length;
  options.max_decoded_bytes = 1 << 20;
  auto decoder = pq::DeltaByteArrayDecoder::Make(data, options);
  if (!decoder.has_value()) return;
  std::vector<std::string_view> values = DecodeSome<std::string_view>(*decoder, kMaxValues);
  pq::DeltaByteArrayEncoder encoder;
  for (std::string_view v : values) {
    if (type_length > 0) Check(v.size() == size_t(type_length));
    encoder.Put(v);
  }
  std::string again;
  encoder.FlushTo(again);
  options.max_decoded_bytes = size_t{1} << 30;
  auto back = pq::DeltaByteArrayDecoder::Make(again, options);
  std::vector<std::string_view> got(values.size());
  Check(back.has_value() && back->Decode(got.data(), got.size()).has_value());
  Check(got == values);
}

template <class T>
void FuzzByteStreamSplit(std::string_view data, pq::PhysicalType type, int32_t type_length) {
  pq::DecoderOptions options;
  options.type = type;
  options.type_length = type_length;
  auto decoder = pq::ByteStreamSplitDecoder<T>::Make(data, options);
  if (!decoder.has_value()) return;
  const size_t n = decoder->total_values();
  std::vector<T> values(n);
  Check(decoder->Decode(values.data(), n).has_value());
  std::string again;
  if constexpr (std::is_same_v<T, std::string_view>) {
    Check(pq::ByteStreamSplitEncodeFixedLenByteArrays(values, type_length, again).has_value());
  } else {
    pq::ByteStreamSplitEncode<T>(values, again);
  }
  Check(again == data);
}

void FuzzDecompress(std::string_view data, pq::Codec codec, size_t declared) {
  std::string out = "x";
  auto status = pq::Decompress(codec, data, declared, out);
  Check(out.size() == (status.has_value() ? 1 + declared : 1));
  if (!status.has_value() || !pq::CanCompress(codec)) return;
  std::string compressed, back;
  Check(pq::Compress(codec, std::string_view(out).substr(1), compressed).has_value());
  Check(pq::Decompress(codec, compressed, declared, back).has_value());
  Check(back == std::string_view(out).substr(1));
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* bytes, size_t size) {
  if (size < 2) return 0;
  const uint8_t mode = bytes[0] % 12;
  const uint8_t param = bytes[1];
  std::string_view data(reinterpret_cast<const char*>(bytes) + 2, size - 2);
  const int32_t type_length = 1 + param % 16;
  switch (mode) {
    case 0:
      FuzzRle(data, param % 33, false);
      break;
    case 1:
      FuzzRle(data, param % 33, true);
      break;
    case 2:
      switch (param % 8) {
        case 0:
          FuzzPlainBooleans(data);
          break;
        case 1:
          FuzzPlain<int32_t>(data, pq::PhysicalType::kInt32, 0);
          break;
        case 2:
          FuzzPlain<int64_t>(data, pq::PhysicalType::kInt64, 0);
          break;
        case 3:
          FuzzPlain<pq::Int96>(data, pq::PhysicalType::kInt96, 0);
          break;
        case 4:
          FuzzPlain<float>(data, pq::PhysicalType::kFloat, 0);
          break;
        case 5:
          FuzzPlain<double>(data, pq::PhysicalType::kDouble, 0);
          break;
        case 6:
          FuzzPlain<std::string_view>(data, pq::PhysicalType::kByteArray, 0);
          break;
        default:
          FuzzPlain<std::string_view>(data, pq::PhysicalType::kFixedLenByteArray, type_length);
          break;
      }
      break;
    case 3:
      FuzzDictionary(data, param);
      break;
    case 4:
      FuzzDeltaBinaryPacked<int32_t>(data);
      break;
    case 5:
      FuzzDeltaBinaryPacked<int64_t>(data);
      break;
    case 6:
      FuzzDeltaLength(data);
      break;
    case 7:
      FuzzDeltaByteArray(data, param % 2 == 0 ? 0 : type_length);
      break;
    case 8:
      switch (param % 5) {
        case 0:
          FuzzByteStreamSplit<float>(data, pq::PhysicalType::kFloat, 0);
          break;
        case 1:
          FuzzByteStreamSplit<double>(data, pq::PhysicalType::kDouble, 0);
          break;
        case 2:
          FuzzByteStreamSplit<int32_t>(data, pq::PhysicalType::kInt32, 0);
          break;
        case 3:
          FuzzByteStreamSplit<int64_t>(data, pq::PhysicalType::kInt64, 0);
          break;
        default:
          FuzzByteStreamSplit<std::string_view>(data, pq::PhysicalType::kFixedLenByteArray,
                                                type_length);
          break;
      }
      break;
    default: {
      // Decompress: the codec from the parameter, the declared size from the next two bytes
      // (scaled, up to 256 KiB).
      if (data.size() < 2) return 0;
      const auto codec = static_cast<pq::Codec>(param % 8);
      const size_t declared = (static_cast<size_t>(static_cast<uint8_t>(data[0])) |
                               static_cast<size_t>(static_cast<uint8_t>(data[1])) << 8) *
                              (mode == 9 ? 1 : 4);
      FuzzDecompress(data.substr(2), codec, declared);
      break;
    }
  }
  return 0;
}
