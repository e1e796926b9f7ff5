// The reader's checks and additions around compression.h: a bound on what a page may claim to
// decompress to, from the codec's largest possible ratio (checked before anything is allocated),
// and BROTLI, which compression.h does not decode, when libbrotlidec is present. Not for use
// outside src/sluice/parquet.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include "sluice/base/result.h"
#include "sluice/parquet/metadata.h"

namespace sluice::parquet::internal {

/// kInvalidArgument when `compressed` bytes in `codec` cannot hold `uncompressed` bytes: more
/// than the codec's largest ratio allows, or (SNAPPY) a size other than the stream's own header
/// says.
Status CheckUncompressedSize(Codec codec, std::string_view compressed, size_t uncompressed);

/// Whether DecompressPage handles `codec`: compression.h's codecs, and BROTLI when built with it.
bool CanDecompressPage(Codec codec);

/// compression.h's Decompress, plus BROTLI when built with libbrotlidec.
Status DecompressPage(Codec codec, std::string_view in, size_t uncompressed_size, std::string& out);

}  // namespace sluice::parquet::internal
