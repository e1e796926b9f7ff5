#include "sluice/data/avro_codecs_internal.h"

#include <fmt/format.h>
#include <snappy.h>
#include <zlib.h>
#include <zstd.h>

#include <algorithm>
#include <cstdint>
#include <memory>

namespace sluice::data::internal {
namespace {

// The output grows as the data decompresses, never past limit + 1 bytes: one byte past the
// limit is how a bomb is told from data that fills it exactly.
size_t NextCapacity(size_t have, size_t in_size, size_t limit) {
  size_t want = std::max<size_t>({have * 2, in_size * 4, size_t{1} << 16});
  return std::min(want, limit + 1);
}

Unexpected<Error> OverLimit(std::string_view codec, size_t limit) {
  return ParseError(fmt::format("{} data decompresses past the limit of {} bytes", codec, limit));
}

Status InflateRaw(std::string_view in, size_t limit, std::string& out) {
  z_stream zs{};
  // Negative window bits: raw deflate, no zlib header or trailer (the spec's RFC 1951).
  if (inflateInit2(&zs, -15) != Z_OK) return Internal("zlib's inflateInit2 failed");
  std::unique_ptr<z_stream, int (*)(z_streamp)> guard(&zs, inflateEnd);
  zs.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(in.data()));
  zs.avail_in = static_cast<uInt>(in.size());
  out.clear();
  size_t produced = 0;
  while (true) {
    if (produced == out.size()) {
      if (out.size() > limit) return OverLimit("deflate", limit);
      out.resize(NextCapacity(out.size(), in.size(), limit));
    }
    const size_t room = std::min<size_t>(out.size() - produced, 1u << 30);
    zs.next_out = reinterpret_cast<Bytef*>(out.data() + produced);
    zs.avail_out = static_cast<uInt>(room);
    const int rc = inflate(&zs, Z_NO_FLUSH);
    produced += room - zs.avail_out;
    if (rc == Z_STREAM_END) break;
    if (rc == Z_OK) continue;
    if (rc == Z_BUF_ERROR && zs.avail_out == 0) continue;
    if (rc == Z_BUF_ERROR) return ParseError("deflate data is truncated");
    return ParseError(
        fmt::format("deflate data is malformed: {}", zs.msg ? zs.msg : "inflate failed"));
  }
  if (produced > limit) return OverLimit("deflate", limit);
  out.resize(produced);
  return Ok();
}

Status Unsnappy(std::string_view in, size_t limit, std::string& out) {
  if (in.size() < 4) return ParseError("snappy data is shorter than its 4-byte CRC-32");
  std::string_view data = in.substr(0, in.size() - 4);
  size_t size = 0;
  if (!snappy::GetUncompressedLength(data.data(), data.size(), &size)) {
    return ParseError("snappy data is malformed: no valid length");
  }
  if (size > limit) {
    return ParseError(
        fmt::format("snappy data declares {} bytes, past the limit of {} bytes", size, limit));
  }
  out.resize(size);
  if (!snappy::RawUncompress(data.data(), data.size(), out.data())) {
    out.clear();
    return ParseError("snappy data is malformed");
  }
  const auto* c = reinterpret_cast<const uint8_t*>(in.data() + data.size());
  const uint32_t stored =
      (uint32_t{c[0]} << 24) | (uint32_t{c[1]} << 16) | (uint32_t{c[2]} << 8) | uint32_t{c[3]};
  const uint32_t actual = static_cast<uint32_t>(
      crc32(0, reinterpret_cast<const Bytef*>(out.data()), static_cast<uInt>(out.size())));
  if (stored != actual) {
    out.clear();
    return ParseError(fmt::format(
        "snappy data fails its CRC-32 check (stored {:08x}, computed {:08x})", stored, actual));
  }
  return Ok();
}

Status Unzstd(std::string_view in, size_t limit, std::string& out) {
  std::unique_ptr<ZSTD_DCtx, size_t (*)(ZSTD_DCtx*)> ctx(ZSTD_createDCtx(), ZSTD_freeDCtx);
  if (ctx == nullptr) return Internal("ZSTD_createDCtx failed");
  ZSTD_inBuffer input{in.data(), in.size(), 0};
  out.clear();
  size_t produced = 0;
  size_t pending = 1;  // ZSTD_decompressStream's hint: 0 once a frame is complete
  while (input.pos < input.size || pending != 0) {
    if (produced == out.size()) {
      if (out.size() > limit) return OverLimit("zstandard", limit);
      out.resize(NextCapacity(out.size(), in.size(), limit));
    }
    ZSTD_outBuffer output{out.data() + produced, out.size() - produced, 0};
    const size_t before_in = input.pos;
    pending = ZSTD_decompressStream(ctx.get(), &output, &input);
    produced += output.pos;
    if (ZSTD_isError(pending)) {
      return ParseError(fmt::format("zstandard data is malformed: {}", ZSTD_getErrorName(pending)));
    }
    // No input left, a frame unfinished, and no output made: the data stops short.
    if (pending != 0 && input.pos == input.size && input.pos == before_in && output.pos == 0) {
      return ParseError("zstandard data is truncated");
    }
  }
  if (produced > limit) return OverLimit("zstandard", limit);
  out.resize(produced);
  return Ok();
}

}  // namespace

Status AvroDecompress(AvroCodec codec, std::string_view in, size_t limit, std::string& out) {
  switch (codec) {
    case AvroCodec::kNull:
      out.assign(in);
      return Ok();
    case AvroCodec::kDeflate:
      return InflateRaw(in, limit, out);
    case AvroCodec::kSnappy:
      return Unsnappy(in, limit, out);
    case AvroCodec::kZstandard:
      return Unzstd(in, limit, out);
  }
  return Internal("unknown Avro codec");
}

Status AvroCompress(AvroCodec codec, std::string_view in, std::string& out) {
  out.clear();
  switch (codec) {
    case AvroCodec::kNull:
      out.assign(in);
      return Ok();
    case AvroCodec::kDeflate: {
      z_stream zs{};
      if (deflateInit2(&zs, Z_DEFAULT_COMPRESSION, Z_DEFLATED, -15, 8, Z_DEFAULT_STRATEGY) !=
          Z_OK) {
        return Internal("zlib's deflateInit2 failed");
      }
      std::unique_ptr<z_stream, int (*)(z_streamp)> guard(&zs, deflateEnd);
      out.resize(deflateBound(&zs, static_cast<uLong>(in.size())));
      zs.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(in.data()));
      zs.avail_in = static_cast<uInt>(in.size());
      zs.next_out = reinterpret_cast<Bytef*>(out.data());
      zs.avail_out = static_cast<uInt>(out.size());
      if (deflate(&zs, Z_FINISH) != Z_STREAM_END) return Internal("zlib's deflate failed");
      out.resize(zs.total_out);
      return Ok();
    }
    case AvroCodec::kSnappy: {
      out.resize(snappy::MaxCompressedLength(in.size()) + 4);
      size_t written = 0;
      snappy::RawCompress(in.data(), in.size(), out.data(), &written);
      const uint32_t crc = static_cast<uint32_t>(
          crc32(0, reinterpret_cast<const Bytef*>(in.data()), static_cast<uInt>(in.size())));
      out.resize(written);
      for (int shift = 24; shift >= 0; shift -= 8) {
        out.push_back(static_cast<char>((crc >> shift) & 0xff));
      }
      return Ok();
    }
    case AvroCodec::kZstandard: {
      out.resize(ZSTD_compressBound(in.size()));
      const size_t n = ZSTD_compress(out.data(), out.size(), in.data(), in.size(), 3);
      if (ZSTD_isError(n)) {
        return Internal(fmt::format("zstandard compression failed: {}", ZSTD_getErrorName(n)));
      }
      out.resize(n);
      return Ok();
    }
  }
  return Internal("unknown Avro codec");
}

}  // namespace sluice::data::internal
