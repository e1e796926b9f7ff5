#include "sluice/table/deletion_vector.h"

#include <fmt/format.h>
#include <zlib.h>

#include <limits>
#include <memory>

#include "sluice/base/strings.h"
#include "sluice/table/partition_path.h"
#include "sluice/table/roaring.h"
#include "sluice/table/z85.h"

namespace sluice::table {
namespace {

constexpr uint8_t kFileFormatVersion = 1;
// A 'u' DV's uuid is 16 bytes: 20 Z85 characters.
constexpr size_t kUuidZ85Chars = 20;

Result<std::string> MemberString(const JsonValue& json, std::string_view key) {
  const JsonValue* v = json.Find(key);
  if (v == nullptr) {
    return InvalidArgument(
        fmt::format("deletionVector at byte {}: `{}` is missing", json.offset(), key));
  }
  if (!v->is_string()) {
    return InvalidArgument(
        fmt::format("deletionVector.{} at byte {}: expected a string", key, v->offset()));
  }
  return v->as_string();
}

// An integer member in [0, max]; nullopt when absent or null and `optional`.
Result<std::optional<int64_t>> MemberCount(const JsonValue& json, std::string_view key, int64_t max,
                                           bool optional) {
  const JsonValue* v = json.Find(key);
  if (v == nullptr || v->is_null()) {
    if (optional) return std::optional<int64_t>();
    return InvalidArgument(
        fmt::format("deletionVector at byte {}: `{}` is missing", json.offset(), key));
  }
  std::optional<int64_t> n = v->is_number() ? v->as_int64() : std::nullopt;
  if (!n || *n < 0 || *n > max) {
    return InvalidArgument(fmt::format(
        "deletionVector.{} at byte {}: expected an integer from 0 to {}", key, v->offset(), max));
  }
  return n;
}

// The uuid's canonical text from its 16 bytes.
std::string UuidText(std::string_view b) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string s;
  for (size_t i = 0; i < 16; ++i) {
    if (i == 4 || i == 6 || i == 8 || i == 10) s.push_back('-');
    const auto c = static_cast<uint8_t>(b[i]);
    s.push_back(kHex[c >> 4]);
    s.push_back(kHex[c & 0xF]);
  }
  return s;
}

// A `file:` URI or an absolute path, decoded.
Result<std::string> AbsoluteFilePath(std::string_view uri) {
  std::string_view path = uri;
  if (StartsWith(path, "file:")) {
    path.remove_prefix(5);
    if (StartsWith(path, "//")) {
      path.remove_prefix(2);
      const size_t slash = path.find('/');
      const std::string_view host = path.substr(0, slash);
      if (!host.empty() && host != "localhost") {
        return Unimplemented(
            fmt::format("deletion vector path `{}`: files on host `{}` are not readable",
                        EscapeForMessage(uri), EscapeForMessage(host)));
      }
      path = slash == std::string_view::npos ? std::string_view() : path.substr(slash);
    }
  } else {
    const size_t colon = path.find(':');
    if (colon != std::string_view::npos && colon < path.find('/')) {
      return Unimplemented(
          fmt::format("deletion vector path `{}`: no file system for the scheme `{}`",
                      EscapeForMessage(uri), EscapeForMessage(path.substr(0, colon))));
    }
  }
  if (!StartsWith(path, "/")) {
    return InvalidArgument(
        fmt::format("deletion vector path `{}` is not absolute", EscapeForMessage(uri)));
  }
  auto decoded = DecodeAddPath(path);
  if (!decoded) {
    return Fail(decoded.error().WithContext(
        fmt::format("deletion vector path `{}`", EscapeForMessage(uri))));
  }
  return decoded;
}

uint32_t BigEndian32(const unsigned char* p) {
  return (uint32_t{p[0]} << 24) | (uint32_t{p[1]} << 16) | (uint32_t{p[2]} << 8) | p[3];
}

void PutBigEndian32(std::string& out, uint32_t v) {
  for (int shift = 24; shift >= 0; shift -= 8)
    out.push_back(static_cast<char>((v >> shift) & 0xFF));
}

uint32_t Crc32(std::string_view bytes) {
  uLong crc = crc32(0L, Z_NULL, 0);
  // zlib takes lengths as uInt; DV sizes are below 2^31.
  crc = crc32(crc, reinterpret_cast<const Bytef*>(bytes.data()), static_cast<uInt>(bytes.size()));
  return static_cast<uint32_t>(crc);
}

Status CheckCardinality(const RowIndexSet& rows, const DeletionVectorDescriptor& dv,
                        std::string_view origin) {
  if (rows.Cardinality() != static_cast<uint64_t>(dv.cardinality)) {
    return InvalidArgument(fmt::format("{}: the bitmap holds {} rows but cardinality says {}",
                                       origin, rows.Cardinality(), dv.cardinality));
  }
  return Ok();
}

Result<RowIndexSet> LoadInline(const DeletionVectorDescriptor& dv) {
  auto bytes = Z85Decode(dv.path_or_inline_dv);
  if (!bytes) return Fail(bytes.error().WithContext("inline deletion vector"));
  const auto size = static_cast<size_t>(dv.size_in_bytes);
  // Z85 pads the bitmap to a multiple of 4 bytes; sizeInBytes says where it ends.
  if (size > bytes->size() || bytes->size() - size >= 4) {
    return InvalidArgument(
        fmt::format("inline deletion vector: {} bytes of Z85 text cannot hold sizeInBytes {}",
                    bytes->size(), dv.size_in_bytes));
  }
  SLUICE_ASSIGN_OR_RETURN(
      RowIndexSet rows,
      ReadRoaringBitmapArray(std::string_view(*bytes).substr(0, size), "inline deletion vector"));
  SLUICE_TRY(CheckCardinality(rows, dv, "inline deletion vector"));
  return rows;
}

// Read `n` bytes at `offset` of `file`, which must have them.
Result<std::string> ReadExactly(const RandomAccessFile& file, uint64_t offset, size_t n,
                                const std::string& path) {
  std::string buf(n, '\0');
  size_t done = 0;
  while (done < n) {
    SLUICE_ASSIGN_OR_RETURN(const size_t got,
                            file.ReadAt(offset + done, n - done, buf.data() + done));
    if (got == 0) {
      return InvalidArgument(fmt::format("deletion vector file {} at byte {}: the file ends early",
                                         path, offset + done));
    }
    done += got;
  }
  return buf;
}

Result<RowIndexSet> LoadFromFile(FileSystem& fs, const std::string& path,
                                 const DeletionVectorDescriptor& dv) {
  const std::string origin = fmt::format("deletion vector file {}", path);
  SLUICE_ASSIGN_OR_RETURN(std::unique_ptr<RandomAccessFile> file, fs.OpenRandomAccess(path));
  const uint64_t file_size = file->size();
  auto fail = [&](uint64_t at, std::string_view what) {
    return InvalidArgument(fmt::format("{} at byte {}: {}", origin, at, what));
  };
  if (file_size == 0) return fail(0, "the file is empty");
  SLUICE_ASSIGN_OR_RETURN(const std::string version, ReadExactly(*file, 0, 1, path));
  if (static_cast<uint8_t>(version[0]) != kFileFormatVersion) {
    return fail(0, fmt::format("format version {} (only {} is known)",
                               static_cast<uint8_t>(version[0]), kFileFormatVersion));
  }
  const auto offset = static_cast<uint64_t>(dv.offset.value_or(0));
  const auto size = static_cast<uint64_t>(dv.size_in_bytes);
  // The size field, the bitmap and the checksum must all lie inside the file.
  if (offset + 4 + size + 4 > file_size) {
    return fail(offset, fmt::format("a DV of {} bytes there passes the end of the {}-byte file",
                                    size, file_size));
  }
  SLUICE_ASSIGN_OR_RETURN(const std::string data, ReadExactly(*file, offset, size + 8, path));
  const auto* p = reinterpret_cast<const unsigned char*>(data.data());
  const uint32_t stored_size = BigEndian32(p);
  if (stored_size != size) {
    return fail(offset, fmt::format("the file says the DV has {} bytes, the log says {}",
                                    stored_size, size));
  }
  const std::string_view bitmap = std::string_view(data).substr(4, size);
  const uint32_t stored_crc = BigEndian32(p + 4 + size);
  const uint32_t crc = Crc32(bitmap);
  if (stored_crc != crc) {
    return fail(
        offset + 4 + size,
        fmt::format("CRC-32 0x{:08X} does not match the bitmap's 0x{:08X}", stored_crc, crc));
  }
  SLUICE_ASSIGN_OR_RETURN(RowIndexSet rows, ReadRoaringBitmapArray(bitmap, origin, offset + 4));
  SLUICE_TRY(CheckCardinality(rows, dv, origin));
  return rows;
}

}  // namespace

std::string DeletionVectorDescriptor::UniqueId() const {
  std::string id(1, storage_type);
  id += path_or_inline_dv;
  if (offset) id += fmt::format("@{}", *offset);
  return id;
}

Result<DeletionVectorDescriptor> ParseDeletionVectorDescriptor(const JsonValue& json) {
  if (!json.is_object()) {
    return InvalidArgument(
        fmt::format("deletionVector at byte {}: expected an object", json.offset()));
  }
  DeletionVectorDescriptor dv;
  SLUICE_ASSIGN_OR_RETURN(const std::string storage, MemberString(json, "storageType"));
  if (storage.size() != 1 || (storage[0] != 'u' && storage[0] != 'i' && storage[0] != 'p')) {
    return InvalidArgument(
        fmt::format("deletionVector.storageType at byte {}: `{}` is none of u, i, p",
                    json.Find("storageType")->offset(), EscapeForMessage(storage)));
  }
  dv.storage_type = storage[0];
  SLUICE_ASSIGN_OR_RETURN(dv.path_or_inline_dv, MemberString(json, "pathOrInlineDv"));
  constexpr int64_t kInt32Max = std::numeric_limits<int32_t>::max();
  constexpr int64_t kInt64Max = std::numeric_limits<int64_t>::max();
  SLUICE_ASSIGN_OR_RETURN(auto offset, MemberCount(json, "offset", kInt32Max, true));
  if (offset) dv.offset = static_cast<int32_t>(*offset);
  SLUICE_ASSIGN_OR_RETURN(auto size, MemberCount(json, "sizeInBytes", kInt32Max, false));
  dv.size_in_bytes = static_cast<int32_t>(*size);
  SLUICE_ASSIGN_OR_RETURN(auto cardinality, MemberCount(json, "cardinality", kInt64Max, false));
  dv.cardinality = *cardinality;
  SLUICE_ASSIGN_OR_RETURN(dv.max_row_index, MemberCount(json, "maxRowIndex", kInt64Max, true));
  return dv;
}

JsonValue DeletionVectorDescriptorToJson(const DeletionVectorDescriptor& dv) {
  JsonValue json = JsonValue::Object();
  json.Set("storageType", JsonValue::String(std::string(1, dv.storage_type)));
  json.Set("pathOrInlineDv", JsonValue::String(dv.path_or_inline_dv));
  if (dv.offset) json.Set("offset", JsonValue::Int(*dv.offset));
  json.Set("sizeInBytes", JsonValue::Int(dv.size_in_bytes));
  json.Set("cardinality", JsonValue::Int(dv.cardinality));
  if (dv.max_row_index) json.Set("maxRowIndex", JsonValue::Int(*dv.max_row_index));
  return json;
}

Result<std::string> DeletionVectorFilePath(std::string_view table_root,
                                           const DeletionVectorDescriptor& dv) {
  switch (dv.storage_type) {
    case 'p':
      return AbsoluteFilePath(dv.path_or_inline_dv);
    case 'u': {
      const std::string_view text = dv.path_or_inline_dv;
      if (text.size() < kUuidZ85Chars) {
        return InvalidArgument(
            fmt::format("deletion vector `{}`: a 'u' path ends with a 20-character Z85 uuid",
                        EscapeForMessage(text)));
      }
      const std::string_view prefix = text.substr(0, text.size() - kUuidZ85Chars);
      // The prefix is one folder below the table; anything else would leave it.
      if (prefix.find('/') != std::string_view::npos || prefix == "." || prefix == "..") {
        return InvalidArgument(
            fmt::format("deletion vector `{}`: the prefix `{}` is no folder name",
                        EscapeForMessage(text), EscapeForMessage(prefix)));
      }
      auto uuid = Z85Decode(text.substr(prefix.size()));
      if (!uuid) {
        return Fail(
            uuid.error().WithContext(fmt::format("deletion vector `{}`", EscapeForMessage(text))));
      }
      std::string path(table_root);
      if (!path.empty() && path.back() != '/') path.push_back('/');
      if (!prefix.empty()) {
        path += prefix;
        path.push_back('/');
      }
      return path + "deletion_vector_" + UuidText(*uuid) + ".bin";
    }
    default:
      return InvalidArgument(fmt::format("deletion vector of storage type '{}' has no file",
                                         EscapeForMessage(std::string_view(&dv.storage_type, 1))));
  }
}

Result<RowIndexSet> LoadDeletionVector(FileSystem& fs, std::string_view table_root,
                                       const DeletionVectorDescriptor& dv) {
  if (dv.size_in_bytes < 0 || dv.cardinality < 0 || (dv.offset && *dv.offset < 0)) {
    return InvalidArgument(fmt::format("deletion vector `{}`: negative size, offset or cardinality",
                                       EscapeForMessage(dv.UniqueId())));
  }
  if (dv.storage_type == 'i') return LoadInline(dv);
  SLUICE_ASSIGN_OR_RETURN(const std::string path, DeletionVectorFilePath(table_root, dv));
  return LoadFromFile(fs, path, dv);
}

Result<std::string> EncodeDeletionVectorUuidPath(std::string_view prefix, std::string_view uuid) {
  if (prefix.find('/') != std::string_view::npos) {
    return InvalidArgument(
        fmt::format("deletion vector prefix `{}` holds a '/'", EscapeForMessage(prefix)));
  }
  std::string bytes;
  auto hex = [](char c) -> int {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
  };
  bool ok = uuid.size() == 36;
  for (size_t i = 0; ok && i < uuid.size();) {
    if (i == 8 || i == 13 || i == 18 || i == 23) {
      ok = uuid[i] == '-';
      ++i;
      continue;
    }
    const int hi = hex(uuid[i]);
    const int lo = i + 1 < uuid.size() ? hex(uuid[i + 1]) : -1;
    ok = hi >= 0 && lo >= 0;
    bytes.push_back(static_cast<char>(hi * 16 + lo));
    i += 2;
  }
  if (!ok) {
    return InvalidArgument(fmt::format("`{}` is no uuid", EscapeForMessage(uuid)));
  }
  return std::string(prefix) + Z85Encode(bytes);
}

Result<DeletionVectorDescriptor> MakeInlineDeletionVector(const RowIndexSet& rows) {
  SLUICE_ASSIGN_OR_RETURN(const std::string bitmap, WriteRoaringBitmapArray(rows));
  DeletionVectorDescriptor dv;
  dv.storage_type = 'i';
  dv.path_or_inline_dv = Z85Encode(bitmap);
  dv.size_in_bytes = static_cast<int32_t>(bitmap.size());
  dv.cardinality = static_cast<int64_t>(rows.Cardinality());
  if (!rows.empty()) dv.max_row_index = static_cast<int64_t>(rows.Max());
  return dv;
}

DeletionVectorFileBuilder::DeletionVectorFileBuilder() {
  bytes_.push_back(static_cast<char>(kFileFormatVersion));
}

Result<DeletionVectorDescriptor> DeletionVectorFileBuilder::Add(const RowIndexSet& rows) {
  SLUICE_ASSIGN_OR_RETURN(const std::string bitmap, WriteRoaringBitmapArray(rows));
  constexpr uint64_t kMax = std::numeric_limits<int32_t>::max();
  if (bytes_.size() + bitmap.size() + 8 > kMax) {
    return InvalidArgument(
        fmt::format("a deletion vector file of {} bytes cannot take {} more: offsets are 32-bit",
                    bytes_.size(), bitmap.size() + 8));
  }
  DeletionVectorDescriptor dv;
  dv.storage_type = 'u';
  dv.offset = static_cast<int32_t>(bytes_.size());
  dv.size_in_bytes = static_cast<int32_t>(bitmap.size());
  dv.cardinality = static_cast<int64_t>(rows.Cardinality());
  if (!rows.empty()) dv.max_row_index = static_cast<int64_t>(rows.Max());
  PutBigEndian32(bytes_, static_cast<uint32_t>(bitmap.size()));
  bytes_ += bitmap;
  PutBigEndian32(bytes_, Crc32(bitmap));
  return dv;
}

}  // namespace sluice::table
