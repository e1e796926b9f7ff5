// Fuzz Parquet's footer and page header decoders (Thrift's compact protocol) on hostile bytes.
//
// Input layout: byte 0 picks what the rest is (bit 0: a footer or a page header followed by
// anything) and the limits (bit 1: the defaults, or small ones that hostile input hits often).
// Checked:
//  * decoding ends with a struct or a kInvalidArgument error naming a byte offset;
//  * a page header's encoded size lies within the input;
//  * what decodes encodes, and the encoding decodes to the same struct (and the same size, for
//    a page header), and encodes to the same bytes again.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

#include "sluice/parquet/metadata.h"

namespace {

using namespace sluice;
using namespace sluice::parquet;

void Check(bool ok, const char* what) {
  if (!ok) {
    std::fprintf(stderr, "invariant failed: %s\n", what);
    std::abort();
  }
}

void CheckError(const Error& e, std::string_view prefix) {
  Check(e.code() == ErrorCode::kInvalidArgument, "errors are invalid_argument");
  Check(e.message().starts_with(prefix), "errors name what was read and a byte offset");
}

void Footer(std::string_view bytes, const MetadataLimits& limits) {
  auto meta = ReadFileMetaData(bytes, limits);
  if (!meta.has_value()) {
    CheckError(meta.error(), "parquet footer: byte ");
    return;
  }
  const std::string encoded = WriteFileMetaData(*meta);
  auto again = ReadFileMetaData(encoded);
  Check(again.has_value(), "a written footer reads");
  Check(*again == *meta, "a written footer reads back the same");
  Check(WriteFileMetaData(*again) == encoded, "writing is a fixed point");
}

void Page(std::string_view bytes, const MetadataLimits& limits) {
  size_t size = 0;
  auto header = ReadPageHeader(bytes, &size, limits);
  if (!header.has_value()) {
    CheckError(header.error(), "parquet page header: byte ");
    return;
  }
  Check(size > 0 && size <= bytes.size(), "the header lies within the input");
  std::string encoded;
  WritePageHeader(*header, encoded);
  encoded += "trailing page bytes";
  size_t size_again = 0;
  auto again = ReadPageHeader(encoded, &size_again);
  Check(again.has_value(), "a written page header reads");
  Check(*again == *header, "a written page header reads back the same");
  Check(size_again + 19 == encoded.size(), "the size read is the size written");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const uint8_t mode = data[0];
  const std::string_view bytes(reinterpret_cast<const char*>(data) + 1, size - 1);
  MetadataLimits limits;
  if ((mode & 2) != 0) {
    limits.max_list_size = 64;
    limits.max_string_size = 64;
    limits.max_nesting = 8;
    limits.max_total_bytes = 1 << 16;
  }
  if ((mode & 1) == 0) {
    Footer(bytes, limits);
  } else {
    Page(bytes, limits);
  }
  return 0;
}
