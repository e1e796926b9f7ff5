#include <fmt/format.h>

#include "sluice/parquet/compression.h"
#include "sluice/parquet/page_codecs_internal.h"

#if SLUICE_HAVE_BROTLI
#include <brotli/decode.h>
#endif

namespace sluice::parquet::internal {
namespace {

// Largest output per input byte of each format, rounded up: LZ4 copies at most 255 bytes per
// length byte; deflate at most 1032; a zstd RLE block turns 4 bytes into 128 KiB.
constexpr size_t kLz4Ratio = 256;
constexpr size_t kDeflateRatio = 1033;
constexpr size_t kZstdRatio = 32768;
// Headers and trailers of every format fit in this, so tiny pages are never refused.
constexpr size_t kSlack = 1024;

}  // namespace

Status CheckUncompressedSize(Codec codec, std::string_view compressed, size_t uncompressed) {
  size_t ratio = 0;
  switch (codec) {
    case Codec::kSnappy: {
      // The stream starts with its uncompressed length as a varint.
      uint64_t length = 0;
      size_t i = 0;
      for (int shift = 0; i < compressed.size() && shift <= 28; shift += 7) {
        const auto b = static_cast<unsigned char>(compressed[i++]);
        length |= uint64_t{b & 0x7fu} << shift;
        if (!(b & 0x80)) break;
      }
      if (compressed.empty() || length == uncompressed) return Ok();
      return InvalidArgument(fmt::format("a SNAPPY page declared as {} bytes whose stream says {}",
                                         uncompressed, length));
    }
    case Codec::kLz4:
    case Codec::kLz4Raw:
      ratio = kLz4Ratio;
      break;
    case Codec::kGzip:
      ratio = kDeflateRatio;
      break;
    case Codec::kZstd:
      ratio = kZstdRatio;
      break;
    case Codec::kUncompressed:
    case Codec::kLzo:
    case Codec::kBrotli:
      return Ok();
  }
  if (ratio != 0 && uncompressed > kSlack && (uncompressed - kSlack) / ratio > compressed.size()) {
    return InvalidArgument(
        fmt::format("a {} page of {} bytes cannot decompress to the {} bytes it "
                    "declares",
                    CodecName(codec), compressed.size(), uncompressed));
  }
  return Ok();
}

bool CanDecompressPage(Codec codec) {
#if SLUICE_HAVE_BROTLI
  if (codec == Codec::kBrotli) return true;
#endif
  return CanDecompress(codec);
}

Status DecompressPage(Codec codec, std::string_view in, size_t uncompressed_size,
                      std::string& out) {
#if SLUICE_HAVE_BROTLI
  if (codec == Codec::kBrotli) {
    const size_t start = out.size();
    out.resize(start + uncompressed_size);
    size_t decoded = uncompressed_size;
    const BrotliDecoderResult r =
        BrotliDecoderDecompress(in.size(), reinterpret_cast<const uint8_t*>(in.data()), &decoded,
                                reinterpret_cast<uint8_t*>(out.data() + start));
    if (r != BROTLI_DECODER_RESULT_SUCCESS || decoded != uncompressed_size) {
      out.resize(start);
      return InvalidArgument(fmt::format(
          "BROTLI page does not decompress to its declared size of {} bytes", uncompressed_size));
    }
    return Ok();
  }
#endif
  return Decompress(codec, in, uncompressed_size, out);
}

}  // namespace sluice::parquet::internal
