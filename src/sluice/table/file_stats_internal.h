// The per-column half of file_stats.h: one leaf column's bounds and null count combined over a
// footer's row groups and rendered as Delta writes them, and Delta's string truncation. Not for
// use outside src/sluice/table.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "sluice/base/result.h"
#include "sluice/parquet/metadata.h"
#include "sluice/parquet/schema_map.h"

namespace sluice::table::internal {

/// What the footer says of one leaf column, rendered as JSON values for the stats string.
struct LeafStats {
  std::optional<std::string> min_json;
  std::optional<std::string> max_json;
  /// Summed over the row groups; nullopt when a chunk does not say.
  std::optional<int64_t> null_count;
};

/// Whether Delta keeps min/max for a leaf of this model type (Spark's SkippingEligibleDataType:
/// numbers, decimals, strings, dates, timestamps).
bool MinMaxEligible(const parquet::ColumnDescriptor& leaf);

/// Combine leaf `column`'s chunks over every row group of `footer`; bounds only when
/// `want_bounds`. kInvalidArgument for statistics bytes that do not fit the column's type.
Result<LeafStats> CombineLeafStats(const parquet::FileMetaData& footer, size_t column,
                                   const parquet::ColumnDescriptor& leaf, bool want_bounds,
                                   int string_prefix_length);

/// The first `prefix_length` characters (code points) of `s`, as Spark's substring cuts a
/// string minimum; nullopt when `s` is not valid UTF-8.
std::optional<std::string> TruncateMinString(std::string_view s, int prefix_length);

/// Delta's truncateMaxStringAgg: `s` itself when it has at most `prefix_length` UTF-16 code
/// units; else the shortest cut of at least that many units (never inside a character), with
/// U+10FFFF characters after it kept, followed by U+007F when the next character is below it or
/// U+10FFFF otherwise, so that the result is at least every string `s` bounds; nullopt when the
/// cut would pass 2 * prefix_length units, when prefix_length <= 0 (and `s` is not empty), or
/// when `s` is not valid UTF-8.
std::optional<std::string> TruncateMaxString(std::string_view s, int prefix_length);

}  // namespace sluice::table::internal
