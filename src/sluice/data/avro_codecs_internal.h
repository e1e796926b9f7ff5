// The block codecs of Avro container files, over Debian's zlib, snappy and zstd.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include "sluice/base/result.h"
#include "sluice/data/avro_container.h"

namespace sluice::data::internal {

/// Replace `out` with `in` decompressed by `codec`, never more than `limit` bytes: data that
/// decompresses past it fails without decoding further. kParseError for data that is
/// malformed, truncated or (snappy) fails its CRC-32; the message names no file.
Status AvroDecompress(AvroCodec codec, std::string_view in, size_t limit, std::string& out);

/// Replace `out` with `in` compressed by `codec` (deflate and zstd at their default levels).
Status AvroCompress(AvroCodec codec, std::string_view in, std::string& out);

}  // namespace sluice::data::internal
