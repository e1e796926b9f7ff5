// Fuzz Delta's deletion vectors and partition paths on hostile bytes. The first byte picks what
// the rest is: a RoaringBitmapArray, Z85 text (inline DV or uuid path), a DV file in memory read
// through a descriptor whose offset, size and cardinality come from the next bytes, an add
// action's path, or a partition value of one of the partition types.
//
// What a user relies on:
//  * reading ends with a set or an error, never a crash, whatever the bytes;
//  * a set that reads walks in ascending order, as many values as its cardinality, each one
//    Contains; written again it reads back the same set;
//  * Z85 that decodes encodes back to the same text;
//  * an encoded path (without NUL bytes) decodes back to itself, a Hive directory name parses back
//  to its value;
//  * a partition value that reads writes back to text that reads as the same value.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "sluice/base/file_system.h"
#include "sluice/base/json_writer.h"
#include "sluice/schema/type.h"
#include "sluice/table/deletion_vector.h"
#include "sluice/table/partition_path.h"
#include "sluice/table/partition_values.h"
#include "sluice/table/roaring.h"
#include "sluice/table/z85.h"

namespace {

using namespace sluice;
using namespace sluice::table;

void CheckSet(const RowIndexSet& rows) {
  uint64_t n = 0;
  bool first = true;
  uint64_t previous = 0;
  for (uint64_t v : rows) {
    if (!first && v <= previous) std::abort();
    if (!rows.Contains(v)) std::abort();
    first = false;
    previous = v;
    ++n;
  }
  if (n != rows.Cardinality()) std::abort();
  if (!rows.empty() && rows.Max() != previous) std::abort();
  auto bytes = WriteRoaringBitmapArray(rows);
  if (!bytes) {
    if (rows.Max() <= kMaxDeletionVectorRow) std::abort();
    return;
  }
  auto back = ReadRoaringBitmapArray(*bytes);
  if (!back || !(*back == rows)) std::abort();
}

uint32_t Take32(std::string_view& in) {
  uint32_t v = 0;
  for (int i = 0; i < 4 && !in.empty(); ++i) {
    v = (v << 8) | static_cast<uint8_t>(in.front());
    in.remove_prefix(1);
  }
  return v;
}

void FuzzFile(std::string_view in) {
  DeletionVectorDescriptor dv;
  dv.storage_type = 'p';
  dv.path_or_inline_dv = "/t/dv.bin";
  dv.offset = static_cast<int32_t>(Take32(in) & 0x7FFFFFFF);
  dv.size_in_bytes = static_cast<int32_t>(Take32(in) & 0x7FFFFFFF);
  dv.cardinality = Take32(in);
  MemoryFileSystem fs;
  if (!fs.WriteFile("/t/dv.bin", in)) std::abort();
  auto rows = LoadDeletionVector(fs, "/t", dv);
  if (rows) {
    if (rows->Cardinality() != static_cast<uint64_t>(dv.cardinality)) std::abort();
    CheckSet(*rows);
  } else if (rows.error().code() != ErrorCode::kInvalidArgument) {
    std::abort();
  }
}

void FuzzPartitionValue(uint8_t pick, std::string_view text) {
  static const schema::TypePtr kTypes[] = {
      schema::Type::String(),        schema::Type::Int8(),    schema::Type::Int64(),
      schema::Type::Float32(),       schema::Type::Float64(), schema::Type::Boolean(),
      *schema::Type::Decimal(12, 5), schema::Type::Date(),    schema::Type::Timestamp(),
      schema::Type::TimestampNtz(),  schema::Type::Binary(),
  };
  const schema::Type& type = *kTypes[pick % (sizeof(kTypes) / sizeof(kTypes[0]))];
  auto value = ParsePartitionValue("c", type, text);
  if (!value) return;
  auto written = SerializePartitionValue("c", type, *value);
  // Binary bytes need not be UTF-8; every other value that reads writes.
  if (!written) {
    if (type.kind() != schema::TypeKind::kBinary) std::abort();
    return;
  }
  auto again = ParsePartitionValue("c", type, *written);
  if (!again || !again->Equals(*value)) std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const uint8_t mode = data[0];
  std::string_view in(reinterpret_cast<const char*>(data) + 1, size - 1);
  switch (mode % 6) {
    case 0: {
      auto rows = ReadRoaringBitmapArray(in);
      if (rows) CheckSet(*rows);
      break;
    }
    case 1: {
      auto bytes = Z85Decode(in);
      if (bytes && Z85Encode(*bytes) != in) std::abort();
      DeletionVectorDescriptor dv;
      dv.storage_type = (mode / 6) % 2 == 0 ? 'i' : 'u';
      dv.path_or_inline_dv = std::string(in);
      dv.size_in_bytes = bytes ? static_cast<int32_t>(bytes->size()) : 0;
      MemoryFileSystem fs;
      (void)LoadDeletionVector(fs, "/t", dv);
      break;
    }
    case 2:
      FuzzFile(in);
      break;
    case 3: {
      // A NUL byte names no file; its encoding is refused on decoding.
      auto decoded = DecodeAddPath(EncodeAddPath(in));
      if (in.find('\0') == std::string_view::npos && (!decoded || *decoded != in)) std::abort();
      (void)DecodeAddPath(in);
      (void)ParsePartitionDirectory(in);
      break;
    }
    case 4: {
      auto parsed = ParsePartitionDirectory(PartitionDirectoryName("c", in));
      if (!parsed || parsed->size() != 1) std::abort();
      const auto& value = (*parsed)[0].second;
      if (in.empty() || in == kHiveDefaultPartition ? value.has_value() : value != in) {
        std::abort();
      }
      break;
    }
    default:
      FuzzPartitionValue(static_cast<uint8_t>(mode / 6), in);
      break;
  }
  return 0;
}
