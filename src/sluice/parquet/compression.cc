#include "sluice/parquet/compression.h"

#include <fmt/format.h>
#include <lz4.h>
#include <lz4hc.h>
#include <snappy.h>
#include <zlib.h>
#include <zstd.h>
#include <zstd_errors.h>

#include <algorithm>
#include <cstring>
#include <memory>

namespace sluice::parquet {

namespace {

constexpr int kZstdDefaultLevel = 3;  // Spark's spark.io.compression.zstd.level
constexpr int kGzipDefaultLevel = 6;  // zlib's own default

Unexpected<Error> PastDeclaredSize(Codec codec, size_t size) {
  return InvalidArgument(fmt::format("{} page decompresses past its declared size of {} bytes",
                                     CodecName(codec), size));
}

Unexpected<Error> ShortOfDeclaredSize(Codec codec, size_t got, size_t size) {
  return InvalidArgument(
      fmt::format("{} page decompresses to {} bytes, short of its declared size of {} bytes",
                  CodecName(codec), got, size));
}

Unexpected<Error> Malformed(Codec codec, std::string_view why) {
  return InvalidArgument(fmt::format("{} page is malformed: {}", CodecName(codec), why));
}

// Each thread keeps one zstd context of each kind: creating one costs more than a small page.
struct ZstdContexts {
  ZSTD_CCtx* compress = nullptr;
  ZSTD_DCtx* decompress = nullptr;
  ~ZstdContexts() {
    ZSTD_freeCCtx(compress);
    ZSTD_freeDCtx(decompress);
  }
};
thread_local ZstdContexts zstd_contexts;

// Shrink `out` back to `size` when a codec fails, so failures leave it as it was.
class Rollback {
 public:
  explicit Rollback(std::string& out) : out_(out), size_(out.size()) {}
  ~Rollback() {
    if (!committed_) out_.resize(size_);
  }
  void Commit() { committed_ = true; }

 private:
  std::string& out_;
  size_t size_;
  bool committed_ = false;
};

Status CompressGzip(std::string_view in, std::string& out, int level) {
  z_stream zs{};
  if (deflateInit2(&zs, level, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK) {
    return Internal("zlib's deflateInit2 failed");
  }
  const size_t start = out.size();
  const size_t bound = deflateBound(&zs, static_cast<uLong>(in.size()));
  out.resize(start + bound);
  zs.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(in.data()));
  zs.avail_in = static_cast<uInt>(in.size());
  zs.next_out = reinterpret_cast<Bytef*>(out.data() + start);
  zs.avail_out = static_cast<uInt>(bound);
  const int rc = deflate(&zs, Z_FINISH);
  const size_t written = zs.total_out;
  deflateEnd(&zs);
  if (rc != Z_STREAM_END) {
    out.resize(start);
    return Internal(fmt::format("zlib's deflate failed ({})", rc));
  }
  out.resize(start + written);
  return Ok();
}

// The output is full: the stream may still hold an end marker, trailers or empty members, but
// not one more byte.
Status DrainGzip(z_stream& zs, size_t size) {
  while (true) {
    unsigned char extra;
    zs.next_out = &extra;
    zs.avail_out = 1;
    const int rc = inflate(&zs, Z_NO_FLUSH);
    if (zs.avail_out == 0) return PastDeclaredSize(Codec::kGzip, size);
    if (rc == Z_STREAM_END) {
      if (zs.avail_in == 0) return Ok();
      if (inflateReset(&zs) != Z_OK) return Internal("zlib's inflateReset failed");
      continue;
    }
    // Z_OK means progress without output (headers, trailers); no progress is Z_BUF_ERROR.
    if (rc == Z_OK) continue;
    if (rc == Z_BUF_ERROR) return Malformed(Codec::kGzip, "the stream ends before its end marker");
    return Malformed(Codec::kGzip, zs.msg ? zs.msg : "inflate failed");
  }
}

Status DecompressGzip(std::string_view in, size_t size, char* dst) {
  // 15 + 32: gzip or zlib framing, told apart by the header. A page may hold several gzip
  // members one after another (Compression.md).
  z_stream zs{};
  if (inflateInit2(&zs, 15 + 32) != Z_OK) return Internal("zlib's inflateInit2 failed");
  std::unique_ptr<z_stream, int (*)(z_streamp)> guard(&zs, inflateEnd);
  zs.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(in.data()));
  zs.avail_in = static_cast<uInt>(in.size());
  zs.next_out = reinterpret_cast<Bytef*>(dst);
  zs.avail_out = static_cast<uInt>(size);
  while (true) {
    const int rc = inflate(&zs, Z_NO_FLUSH);
    if (rc == Z_STREAM_END) {
      if (zs.avail_in == 0) break;
      if (inflateReset(&zs) != Z_OK) return Internal("zlib's inflateReset failed");
      continue;
    }
    if (zs.avail_out == 0 && (rc == Z_OK || rc == Z_BUF_ERROR)) return DrainGzip(zs, size);
    if (rc == Z_OK) continue;
    if (rc == Z_BUF_ERROR) return Malformed(Codec::kGzip, "the stream ends before its end marker");
    return Malformed(Codec::kGzip, zs.msg ? zs.msg : "inflate failed");
  }
  const size_t produced = size - zs.avail_out;
  if (produced != size) return ShortOfDeclaredSize(Codec::kGzip, produced, size);
  return Ok();
}

Status DecompressZstd(std::string_view in, size_t size, char* dst) {
  // A frame that declares its size can be refused before any work.
  const unsigned long long declared = ZSTD_getFrameContentSize(in.data(), in.size());
  if (declared != ZSTD_CONTENTSIZE_UNKNOWN && declared != ZSTD_CONTENTSIZE_ERROR &&
      declared > size) {
    return PastDeclaredSize(Codec::kZstd, size);
  }
  if (zstd_contexts.decompress == nullptr) zstd_contexts.decompress = ZSTD_createDCtx();
  if (zstd_contexts.decompress == nullptr) return Internal("ZSTD_createDCtx failed");
  const size_t rc = ZSTD_decompressDCtx(zstd_contexts.decompress, dst, size, in.data(), in.size());
  if (ZSTD_isError(rc)) {
    if (ZSTD_getErrorCode(rc) == ZSTD_error_dstSize_tooSmall) {
      return PastDeclaredSize(Codec::kZstd, size);
    }
    return Malformed(Codec::kZstd, ZSTD_getErrorName(rc));
  }
  if (rc != size) return ShortOfDeclaredSize(Codec::kZstd, rc, size);
  return Ok();
}

Status DecompressSnappy(std::string_view in, size_t size, char* dst) {
  size_t declared;
  if (!snappy::GetUncompressedLength(in.data(), in.size(), &declared)) {
    return Malformed(Codec::kSnappy, "its length header is unreadable");
  }
  if (declared > size) return PastDeclaredSize(Codec::kSnappy, size);
  if (declared < size) return ShortOfDeclaredSize(Codec::kSnappy, declared, size);
  // The block's own length header now equals `size`, which bounds every write.
  if (!snappy::RawUncompress(in.data(), in.size(), dst)) {
    return Malformed(Codec::kSnappy, "its data is corrupt");
  }
  return Ok();
}

Status DecompressLz4Raw(std::string_view in, size_t size, char* dst) {
  if (in.size() > size_t(LZ4_MAX_INPUT_SIZE)) return Malformed(Codec::kLz4Raw, "it is too large");
  const int rc =
      LZ4_decompress_safe(in.data(), dst, static_cast<int>(in.size()), static_cast<int>(size));
  if (rc < 0) {
    return InvalidArgument(fmt::format(
        "LZ4_RAW page is malformed or decompresses past its declared size of {} bytes", size));
  }
  if (size_t(rc) != size) return ShortOfDeclaredSize(Codec::kLz4Raw, size_t(rc), size);
  return Ok();
}

// Hadoop's framing, which parquet-mr wrote for LZ4: blocks of a 4-byte big-endian decompressed
// size, then chunks of a 4-byte big-endian compressed size and an LZ4 block. False when `in`
// does not parse that way into exactly `size` bytes.
bool DecompressHadoopLz4(std::string_view in, size_t size, char* dst) {
  auto load_be32 = [](const char* p) {
    const auto* b = reinterpret_cast<const unsigned char*>(p);
    return uint32_t(b[0]) << 24 | uint32_t(b[1]) << 16 | uint32_t(b[2]) << 8 | uint32_t(b[3]);
  };
  size_t pos = 0;
  size_t produced = 0;
  while (pos < in.size()) {
    if (in.size() - pos < 4) return false;
    size_t block_left = load_be32(in.data() + pos);
    pos += 4;
    if (block_left > size - produced) return false;
    while (block_left > 0) {
      if (in.size() - pos < 4) return false;
      const size_t chunk = load_be32(in.data() + pos);
      pos += 4;
      if (chunk > in.size() - pos || chunk > size_t(LZ4_MAX_INPUT_SIZE)) return false;
      const int rc = LZ4_decompress_safe(in.data() + pos, dst + produced, static_cast<int>(chunk),
                                         static_cast<int>(block_left));
      if (rc <= 0) return false;
      pos += chunk;
      produced += size_t(rc);
      block_left -= size_t(rc);
    }
  }
  return produced == size;
}

}  // namespace

bool CanCompress(Codec codec) {
  switch (codec) {
    case Codec::kUncompressed:
    case Codec::kSnappy:
    case Codec::kGzip:
    case Codec::kZstd:
    case Codec::kLz4Raw:
      return true;
    case Codec::kLzo:
    case Codec::kBrotli:
    case Codec::kLz4:
      return false;
  }
  return false;
}

bool CanDecompress(Codec codec) { return CanCompress(codec) || codec == Codec::kLz4; }

Status Compress(Codec codec, std::string_view in, std::string& out, int level) {
  if (in.size() > kMaxPageSize) {
    return InvalidArgument(fmt::format("a page of {} bytes is above Parquet's limit of {} bytes",
                                       in.size(), kMaxPageSize));
  }
  switch (codec) {
    case Codec::kUncompressed:
      out.append(in);
      return Ok();
    case Codec::kSnappy: {
      // snappy writes into the bound's bytes: they are not zeroed first.
      const size_t start = out.size();
      out.resize_and_overwrite(start + snappy::MaxCompressedLength(in.size()),
                               [&](char* data, size_t) {
                                 size_t written = 0;
                                 snappy::RawCompress(in.data(), in.size(), data + start, &written);
                                 return start + written;
                               });
      return Ok();
    }
    case Codec::kGzip:
      if (level == 0) level = kGzipDefaultLevel;
      if (level < 1 || level > 9) {
        return InvalidArgument(fmt::format("GZIP level {} is not in 1..9", level));
      }
      return CompressGzip(in, out, level);
    case Codec::kZstd: {
      if (level == 0) level = kZstdDefaultLevel;
      if (level < ZSTD_minCLevel() || level > ZSTD_maxCLevel()) {
        return InvalidArgument(fmt::format("ZSTD level {} is not in {}..{}", level,
                                           ZSTD_minCLevel(), ZSTD_maxCLevel()));
      }
      if (zstd_contexts.compress == nullptr) zstd_contexts.compress = ZSTD_createCCtx();
      if (zstd_contexts.compress == nullptr) return Internal("ZSTD_createCCtx failed");
      const size_t start = out.size();
      out.resize(start + ZSTD_compressBound(in.size()));
      const size_t rc = ZSTD_compressCCtx(zstd_contexts.compress, out.data() + start,
                                          out.size() - start, in.data(), in.size(), level);
      if (ZSTD_isError(rc)) {
        out.resize(start);
        return Internal(fmt::format("ZSTD compression failed: {}", ZSTD_getErrorName(rc)));
      }
      out.resize(start + rc);
      return Ok();
    }
    case Codec::kLz4Raw: {
      if (level < 0 || level > LZ4HC_CLEVEL_MAX) {
        return InvalidArgument(
            fmt::format("LZ4_RAW level {} is not in 0..{}", level, LZ4HC_CLEVEL_MAX));
      }
      const size_t start = out.size();
      const int bound = LZ4_compressBound(static_cast<int>(in.size()));
      out.resize(start + size_t(bound));
      const int written = level == 0 ? LZ4_compress_default(in.data(), out.data() + start,
                                                            static_cast<int>(in.size()), bound)
                                     : LZ4_compress_HC(in.data(), out.data() + start,
                                                       static_cast<int>(in.size()), bound, level);
      if (written <= 0 && !in.empty()) {
        out.resize(start);
        return Internal("LZ4 compression failed");
      }
      out.resize(start + size_t(std::max(written, 0)));
      return Ok();
    }
    case Codec::kLz4:
      return Unimplemented("writing the deprecated LZ4 codec is not supported; use LZ4_RAW");
    case Codec::kLzo:
    case Codec::kBrotli:
      return Unimplemented(fmt::format("the {} codec is not supported", CodecName(codec)));
  }
  return InvalidArgument(fmt::format("unknown codec {}", static_cast<int32_t>(codec)));
}

Status Decompress(Codec codec, std::string_view in, size_t uncompressed_size, std::string& out) {
  if (uncompressed_size > kMaxPageSize) {
    return InvalidArgument(fmt::format("a page of {} bytes is above Parquet's limit of {} bytes",
                                       uncompressed_size, kMaxPageSize));
  }
  if (in.size() > kMaxPageSize) {
    return InvalidArgument(
        fmt::format("a compressed page of {} bytes is above Parquet's limit", in.size()));
  }
  if (!CanDecompress(codec)) {
    if (codec == Codec::kLzo || codec == Codec::kBrotli) {
      return Unimplemented(fmt::format("the {} codec is not supported", CodecName(codec)));
    }
    return InvalidArgument(fmt::format("unknown codec {}", static_cast<int32_t>(codec)));
  }
  // Some writers store an empty page as no bytes at all, whatever the codec.
  if (uncompressed_size == 0 && in.empty()) return Ok();
  Rollback rollback(out);
  const size_t start = out.size();
  if (codec == Codec::kSnappy) {
    // snappy writes every byte of the declared size or fails (and the rollback drops them):
    // nothing to zero first. The size is the one asked for, not the callback's second argument:
    // libstdc++ 12 passes the capacity it allocated there, which may be larger.
    const size_t size = start + uncompressed_size;
    out.resize_and_overwrite(size, [size](char*, size_t) { return size; });
  } else {
    out.resize(start + uncompressed_size);
  }
  char* dst = out.data() + start;
  switch (codec) {
    case Codec::kUncompressed:
      if (in.size() > uncompressed_size) return PastDeclaredSize(codec, uncompressed_size);
      if (in.size() < uncompressed_size) {
        return ShortOfDeclaredSize(codec, in.size(), uncompressed_size);
      }
      if (!in.empty()) std::memcpy(dst, in.data(), in.size());
      break;
    case Codec::kSnappy:
      SLUICE_TRY(DecompressSnappy(in, uncompressed_size, dst));
      break;
    case Codec::kGzip:
      SLUICE_TRY(DecompressGzip(in, uncompressed_size, dst));
      break;
    case Codec::kZstd:
      SLUICE_TRY(DecompressZstd(in, uncompressed_size, dst));
      break;
    case Codec::kLz4Raw:
      SLUICE_TRY(DecompressLz4Raw(in, uncompressed_size, dst));
      break;
    case Codec::kLz4:
      // Old parquet-cpp wrote bare LZ4 blocks under this codec; try Hadoop's framing first.
      if (!DecompressHadoopLz4(in, uncompressed_size, dst)) {
        auto raw = DecompressLz4Raw(in, uncompressed_size, dst);
        if (!raw.has_value()) {
          return InvalidArgument(fmt::format(
              "LZ4 page is neither Hadoop-framed nor a bare LZ4 block of its declared size of {} "
              "bytes",
              uncompressed_size));
        }
      }
      break;
    case Codec::kLzo:
    case Codec::kBrotli:
      return Internal("unreachable");
  }
  rollback.Commit();
  return Ok();
}

}  // namespace sluice::parquet
