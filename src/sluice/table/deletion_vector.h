// Deletion vectors (PROTOCOL.md "Deletion Vectors"): the rows of a data file that a table no
// longer holds, named by the `deletionVector` object of an add or remove action and stored
// inline in the log (Z85 text) or in a file beside the data:
//
//   byte 0         format version (1)
//   at `offset`:   size (4 bytes, big-endian), the RoaringBitmapArray (roaring.h), its CRC-32
//                  (4 bytes, big-endian), and so on for each further DV of the file.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "sluice/base/file_system.h"
#include "sluice/base/json.h"
#include "sluice/base/result.h"
#include "sluice/table/row_index_set.h"

namespace sluice::table {

/// The `deletionVector` object of an add or remove action.
struct DeletionVectorDescriptor {
  /// 'u': a file beside the data named by a uuid, 'i': inline, 'p': a file at an absolute path.
  char storage_type = 'i';
  /// 'u': an optional prefix (a folder) and the Z85 uuid (20 characters); 'i': the Z85 bitmap;
  /// 'p': the URI-encoded absolute path.
  std::string path_or_inline_dv;
  /// Where the DV starts in its file; absent for inline DVs (and read as 0 otherwise).
  std::optional<int32_t> offset;
  /// The bitmap's size in bytes (before Z85 for inline DVs).
  int32_t size_in_bytes = 0;
  /// How many rows the DV removes.
  int64_t cardinality = 0;
  std::optional<int64_t> max_row_index;

  /// `<storageType><pathOrInlineDv>`, with `@<offset>` when there is an offset: what tells two
  /// DVs of one data file apart in log replay.
  std::string UniqueId() const;

  bool operator==(const DeletionVectorDescriptor&) const = default;
};

/// Read a `deletionVector` object; unknown members are ignored. kInvalidArgument naming the
/// member and its byte offset for a missing or mistyped member, a storage type other than u, i
/// or p, or a negative size, offset or cardinality.
Result<DeletionVectorDescriptor> ParseDeletionVectorDescriptor(const JsonValue& json);

/// The `deletionVector` object: storageType, pathOrInlineDv, offset (when set), sizeInBytes,
/// cardinality, maxRowIndex (when set).
JsonValue DeletionVectorDescriptorToJson(const DeletionVectorDescriptor& dv);

/// The file an on-disk DV lives in: `<table_root>/<prefix>/deletion_vector_<uuid>.bin` for 'u',
/// the decoded path for 'p' (a `file:` URI or an absolute path). kInvalidArgument for an inline
/// DV or a malformed path or uuid; kUnimplemented for a URI of another scheme (s3:, abfss:...).
Result<std::string> DeletionVectorFilePath(std::string_view table_root,
                                           const DeletionVectorDescriptor& dv);

/// The row indexes `dv` removes, read from the log or from its file through `fs`. Checks the
/// file's version, the size against `sizeInBytes`, the CRC-32 and the cardinality against
/// `cardinality`. kInvalidArgument naming the file and byte offset for anything that does not
/// hold; kNotFound for a missing file. Memory stays within a small multiple of `sizeInBytes`.
Result<RowIndexSet> LoadDeletionVector(FileSystem& fs, std::string_view table_root,
                                       const DeletionVectorDescriptor& dv);

/// `<prefix><Z85 of the uuid's 16 bytes>`: the pathOrInlineDv of a 'u' DV. `uuid` is canonical
/// text (8-4-4-4-12 hex digits); kInvalidArgument otherwise, or for a prefix holding '/'.
Result<std::string> EncodeDeletionVectorUuidPath(std::string_view prefix, std::string_view uuid);

/// An inline ('i') DV of `rows`. kInvalidArgument as WriteRoaringBitmapArray.
Result<DeletionVectorDescriptor> MakeInlineDeletionVector(const RowIndexSet& rows);

/// Builds the bytes of a DV file, one DV after another.
class DeletionVectorFileBuilder {
 public:
  DeletionVectorFileBuilder();

  /// Append `rows`; return its descriptor with offset, size, cardinality and max row index set
  /// and storage type 'u' (the caller fills in the path). kInvalidArgument as
  /// WriteRoaringBitmapArray, or when the file would pass 2 GiB (offsets are 32-bit).
  Result<DeletionVectorDescriptor> Add(const RowIndexSet& rows);

  const std::string& bytes() const { return bytes_; }

 private:
  std::string bytes_;
};

}  // namespace sluice::table
