// Page compression (parquet-format's Compression.md): each page's bytes go to the codec as they
// are, without framing, except the deprecated LZ4 codec's Hadoop framing.
//
// Supported: UNCOMPRESSED, SNAPPY, GZIP (RFC 1952; zlib-wrapped streams and pages of several
// gzip members also read), ZSTD, LZ4_RAW; LZ4 (Hadoop framing, or a bare LZ4 block as some old
// writers wrote) only for reading. BROTLI and LZO are kUnimplemented.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include "sluice/base/result.h"
#include "sluice/parquet/metadata.h"

namespace sluice::parquet {

/// Largest page Compress and Decompress take: sizes are int32 in page headers.
inline constexpr size_t kMaxPageSize = 0x7fffffff;

/// Whether Compress / Decompress handle `codec`.
bool CanCompress(Codec codec);
bool CanDecompress(Codec codec);

/// Append `in` compressed with `codec` to `out`. `level` 0 is the codec's default (ZSTD 3, as
/// Spark's; GZIP 6; LZ4_RAW's fast mode); otherwise ZSTD takes its own range (negative levels
/// are its fast modes), GZIP 1..9, LZ4_RAW 1..12 (LZ4 HC). SNAPPY and UNCOMPRESSED have no levels
/// and ignore it. kInvalidArgument for a level out of range or an input above kMaxPageSize;
/// kUnimplemented for LZ4 (write LZ4_RAW), BROTLI and LZO. Thread-safe (each thread keeps its
/// own codec contexts).
Status Compress(Codec codec, std::string_view in, std::string& out, int level = 0);

/// Append exactly `uncompressed_size` bytes, `in` decompressed with `codec`, to `out`, or fail.
/// `out` grows by `uncompressed_size` at most, whatever `in` claims: data that decompresses past
/// it fails ("decompresses past its declared size of N bytes") without decoding further, as does
/// data that ends short of it or is malformed (kInvalidArgument). kUnimplemented for BROTLI and
/// LZO. On failure `out` keeps its old size. Thread-safe.
Status Decompress(Codec codec, std::string_view in, size_t uncompressed_size, std::string& out);

}  // namespace sluice::parquet
