// For tests: decode a column chunk the writer produced, page by page, with the module's own
// decoders (page headers, decompression, RLE levels, PLAIN and dictionary values), so tests can
// assert what a reader gets back.
#pragma once

#include <cstdint>
#include <cstring>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "sluice/base/result.h"
#include "sluice/parquet/column_writer.h"
#include "sluice/parquet/compression.h"
#include "sluice/parquet/dictionary.h"
#include "sluice/parquet/encoding.h"
#include "sluice/parquet/metadata.h"
#include "sluice/parquet/rle.h"

namespace sluice::parquet::testing {

/// One decoded chunk: every page header, and the levels and values of all data pages in order.
/// Values are kept as their PLAIN bytes (a byte array's bytes without the length prefix; a
/// boolean as one byte 0/1), so one type serves every physical type.
struct DecodedChunk {
  std::vector<PageHeader> headers;
  std::vector<int16_t> def_levels;
  std::vector<int16_t> rep_levels;
  std::vector<std::string> values;
  std::vector<size_t> page_first_entry;  // per data page: index of its first entry
  size_t dictionary_size = 0;
};

template <class T>
std::string PlainBytesOf(const T& v) {
  if constexpr (std::is_same_v<T, std::string_view>) {
    return std::string(v);
  } else if constexpr (std::is_same_v<T, bool>) {
    return std::string(1, v ? '\1' : '\0');
  } else {
    std::string s(sizeof(T), '\0');
    std::memcpy(s.data(), &v, sizeof(T));
    return s;
  }
}

template <class T>
Status DecodeValues(Encoding encoding, std::string_view data, const DecoderOptions& options,
                    std::span<const T> dictionary, size_t n, std::vector<std::string>& out) {
  SLUICE_ASSIGN_OR_RETURN(auto decoder, MakeDecoder<T>(encoding, data, options, dictionary));
  if constexpr (std::is_same_v<T, bool>) {
    std::unique_ptr<bool[]> flags(new bool[n + 1]);
    SLUICE_TRY(decoder->Decode(flags.get(), n));
    for (size_t i = 0; i < n; ++i) out.push_back(PlainBytesOf(flags[i]));
  } else {
    std::vector<T> values(n);
    SLUICE_TRY(decoder->Decode(values.data(), n));
    for (const T& v : values) out.push_back(PlainBytesOf(v));
  }
  return Ok();
}

template <class T>
Status DecodeChunkTyped(std::string_view bytes, const ColumnSpec& spec, Codec codec,
                        DecodedChunk& out) {
  DecoderOptions options;
  options.type = spec.type;
  options.type_length = spec.type_length;
  std::vector<std::conditional_t<std::is_same_v<T, bool>, uint8_t, T>> dictionary;
  std::string dictionary_bytes;  // the decompressed dictionary page: views point into it
  size_t pos = 0;
  while (pos < bytes.size()) {
    size_t header_size = 0;
    SLUICE_ASSIGN_OR_RETURN(PageHeader header, ReadPageHeader(bytes.substr(pos), &header_size));
    pos += header_size;
    std::string_view stored = bytes.substr(pos, static_cast<size_t>(header.compressed_page_size));
    pos += stored.size();
    std::string body;
    SLUICE_TRY(Decompress(codec, stored, static_cast<size_t>(header.uncompressed_page_size), body));
    out.headers.push_back(header);
    if (header.type == PageType::kDictionaryPage) {
      dictionary_bytes = std::move(body);
      const int32_t n = header.dictionary_page_header->num_values;
      if constexpr (!std::is_same_v<T, bool>) {
        SLUICE_ASSIGN_OR_RETURN(dictionary, DecodeDictionaryPage<T>(dictionary_bytes, n, options));
      }
      out.dictionary_size = static_cast<size_t>(n);
      continue;
    }
    const DataPageHeader& dp = *header.data_page_header;
    const size_t n = static_cast<size_t>(dp.num_values);
    out.page_first_entry.push_back(out.rep_levels.size());
    std::string_view rest = body;
    std::vector<int16_t> rep(n, 0);
    std::vector<int16_t> def(n, spec.max_def_level);
    if (spec.max_rep_level > 0) {
      SLUICE_ASSIGN_OR_RETURN(
          auto dec, RleDecoder::MakeLengthPrefixed(rest, BitWidth(uint64_t(spec.max_rep_level))));
      SLUICE_TRY(dec.GetExactly(rep.data(), n));
      rest.remove_prefix(dec.encoded_size());
    }
    if (spec.max_def_level > 0) {
      SLUICE_ASSIGN_OR_RETURN(
          auto dec, RleDecoder::MakeLengthPrefixed(rest, BitWidth(uint64_t(spec.max_def_level))));
      SLUICE_TRY(dec.GetExactly(def.data(), n));
      rest.remove_prefix(dec.encoded_size());
    }
    size_t present = 0;
    for (int16_t d : def) present += d == spec.max_def_level;
    if constexpr (std::is_same_v<T, bool>) {
      SLUICE_TRY(DecodeValues<T>(dp.encoding, rest, options, {}, present, out.values));
    } else {
      SLUICE_TRY(DecodeValues<T>(dp.encoding, rest, options, dictionary, present, out.values));
    }
    out.rep_levels.insert(out.rep_levels.end(), rep.begin(), rep.end());
    out.def_levels.insert(out.def_levels.end(), def.begin(), def.end());
  }
  return Ok();
}

/// Decode the pages of `chunk` (dictionary page first, then data pages).
inline Result<DecodedChunk> DecodeChunk(const EncodedColumnChunk& chunk, const ColumnSpec& spec,
                                        Codec codec) {
  DecodedChunk out;
  std::string bytes(std::string_view(chunk.dictionary_page));
  bytes += std::string_view(chunk.data_pages);
  Status s;
  switch (spec.type) {
    case PhysicalType::kBoolean:
      s = DecodeChunkTyped<bool>(bytes, spec, codec, out);
      break;
    case PhysicalType::kInt32:
      s = DecodeChunkTyped<int32_t>(bytes, spec, codec, out);
      break;
    case PhysicalType::kInt64:
      s = DecodeChunkTyped<int64_t>(bytes, spec, codec, out);
      break;
    case PhysicalType::kInt96:
      s = DecodeChunkTyped<Int96>(bytes, spec, codec, out);
      break;
    case PhysicalType::kFloat:
      s = DecodeChunkTyped<float>(bytes, spec, codec, out);
      break;
    case PhysicalType::kDouble:
      s = DecodeChunkTyped<double>(bytes, spec, codec, out);
      break;
    case PhysicalType::kByteArray:
    case PhysicalType::kFixedLenByteArray:
      s = DecodeChunkTyped<std::string_view>(bytes, spec, codec, out);
      break;
  }
  if (!s) return Fail(s.error());
  return out;
}

}  // namespace sluice::parquet::testing
