// Shredding one JSON line into the leaf columns of a Parquet schema with Dremel's repetition
// and definition levels: the walk behind ParquetRecordSink (parquet_sink.h, whose contract it
// keeps), and the plan's per-node data it walks with. Only for the data module.
//
// The scanner is the shredder's own: it reads a line where it lies (no copy, no padding),
// skips nothing but the values of null-typed fields (a key outside the schema is an error, so
// recursion is bounded by the schema's depth), and checks what it reads as strictly as a JSON
// parser: structure, literals, number syntax, escapes and, once per line, UTF-8. Malformed
// JSON is an error naming the line and the byte.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>

#include "sluice/base/result.h"
#include "sluice/data/leaf_tape.h"
#include "sluice/data/name_index_internal.h"
#include "sluice/data/parquet_sink.h"
#include "sluice/parquet/column_writer.h"

namespace sluice::data {

// How a leaf's JSON value becomes a Parquet value.
enum class LeafKind : uint8_t {
  kNone,  // not a leaf
  kBoolean,
  kInt32,  // int8, int16, int32, range-checked
  kInt64,
  kFloat,
  kDouble,
  kDecimalInt32,
  kDecimalInt64,
  kDecimalBytes,  // FIXED_LEN_BYTE_ARRAY of `width` bytes
  kString,
  kBinary,
  kDate,
  kTimestamp,
  kTimestampNtz,
  kTimeInt32,  // time(3)
  kTimeInt64,
  kUuid,
};

struct ParquetRecordPlan::Node {
  LeafKind leaf = LeafKind::kNone;
  int precision = 0;
  int scale = 0;
  int32_t width = 0;
  schema::TimeUnit unit = schema::TimeUnit::kMicros;
  int64_t min = 0;
  int64_t max = 0;
  /// A struct child's name (the JSON key).
  std::string name;
  /// The name is written in JSON as it is (no '"', '\\' or control character to escape), so a
  /// key's raw bytes can be compared with it in place.
  bool plain_name = false;
  /// For a plain name of at most 15 bytes: the name and its closing quote as two little-endian
  /// words, and the mask of their bytes, so that a key is compared in two loads.
  bool short_name = false;
  uint64_t key_words[2] = {0, 0};
  uint64_t key_masks[2] = {0, 0};
  /// The schema path, for messages: `items[].qty`, `tags{key}`.
  std::string path;
  /// Wide structs: name -> child position.
  internal::StringMap<uint32_t> by_name;
};

namespace internal {

/// Shreds lines of one plan. Not thread-safe: one per thread.
class LineShredder {
 public:
  explicit LineShredder(const ParquetRecordPlan& plan);
  ~LineShredder();
  LineShredder(LineShredder&&) noexcept;
  LineShredder& operator=(LineShredder&&) noexcept;

  /// Append the record on `line` (a JSON object, without its newline) to `columns` (one writer
  /// per leaf of the plan, in leaf order); `line_number` is what messages name. On an error the
  /// columns may hold part of the record.
  Status Shred(std::string_view line, int64_t line_number, parquet::ColumnWriter* columns);
  /// The same for a line the validator wrote with a tape (leaf_tape.h): `input` is the
  /// record's text and `entries` its entries. Errors as Shred's.
  Status ShredTaped(std::string_view line, std::string_view input,
                    std::span<const TapeEntry> entries, int64_t line_number,
                    parquet::ColumnWriter* columns);

 private:
  struct Walk;
  std::unique_ptr<Walk> walk_;
};

}  // namespace internal
}  // namespace sluice::data
