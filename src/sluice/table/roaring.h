// Delta's RoaringBitmapArray (PROTOCOL.md "Deletion Vector Format"): a 4-byte magic number, then
// a 64-bit Roaring bitmap in the portable format of RoaringFormatSpec ("Extension for 64-bit
// implementations"): the number of 32-bit buckets, then each bucket's key (the high 32 bits) and
// a standard 32-bit Roaring bitmap of the low 32 bits (array, bitmap and run containers). Every
// number is little-endian.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "sluice/base/result.h"
#include "sluice/table/row_index_set.h"

namespace sluice::table {

/// The magic number of the portable format, which Delta writes.
inline constexpr uint32_t kPortableRoaringMagic = 1681511377;
/// The magic number of Delta's older "native" format: a 32-bit count of bitmaps, then each
/// bitmap's byte size and the bitmap, the bucket key being its position.
inline constexpr uint32_t kNativeRoaringMagic = 1681511376;

/// The largest row index Delta's RoaringBitmapArray can hold (its keys are Java ints below
/// Int.MaxValue).
inline constexpr uint64_t kMaxDeletionVectorRow = (uint64_t{0x7FFFFFFE} << 32) | 0xFFFFFFFFu;

/// Read a serialized RoaringBitmapArray: the portable format, the native one, or the native one
/// framed big-endian as PROTOCOL.md's inline example is. Every byte must belong to the bitmap.
/// Hostile input (wrong magic, truncation, counts the bytes cannot hold, containers or buckets
/// out of order, cardinalities that disagree with the containers) is kInvalidArgument naming
/// `origin` and the byte offset, counted from `base_offset`. Memory stays within a small multiple
/// of `bytes.size()`.
Result<RowIndexSet> ReadRoaringBitmapArray(std::string_view bytes,
                                           std::string_view origin = "RoaringBitmapArray",
                                           uint64_t base_offset = 0);

/// Serialize `rows` in the portable format with its magic number, the form Delta writes (only
/// non-empty buckets are written; readers fill the gaps). kInvalidArgument for a row index above
/// kMaxDeletionVectorRow.
Result<std::string> WriteRoaringBitmapArray(const RowIndexSet& rows);

}  // namespace sluice::table
