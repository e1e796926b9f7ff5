// Per-file statistics of a Delta table (`add.stats`, PROTOCOL.md "Per-file Statistics"), computed
// from the footer of a Parquet data file the way Delta Spark's StatisticsCollection computes them
// from the rows:
//
//   {"numRecords":N,"minValues":{...},"maxValues":{...},"nullCount":{...},"tightBounds":true}
//
// - Keys are the names of the file's Parquet elements, which are the physical names under column
//   mapping; objects nest as structs nest. Nothing is collected inside arrays and maps.
// - Columns: those named by `delta.dataSkippingStatsColumns`, else the first
//   `delta.dataSkippingNumIndexedCols` (default 32, -1 for all) leaf fields in schema order, where
//   every field that is not a struct (arrays and maps included) takes one slot.
// - minValues / maxValues for numbers, decimals (JSON numbers with their scale), strings, dates
//   ("2024-09-09"), timestamps (milliseconds, floored: "2024-09-09T12:34:56.123Z") and
//   timestamp_ntz (the same without "Z"). None for booleans, binary, time, uuid. Strings: the
//   minimum is cut to `delta.dataSkippingStringPrefixLength` characters (default 32); a longer
//   maximum is cut and then given a last character that keeps it above every value (Delta's
//   truncateMaxStringAgg), or left out when no such cut exists within twice the prefix.
// - nullCount for every selected field; for an array or map it counts the rows where the array
//   or map itself is null.
//
// Where a footer cannot give Spark's exact value the entry is left out, never guessed: a column
// chunk without statistics leaves out the column's min, max and nullCount; the nullCount of an
// array or map is written only when it is provably 0 (a null array writes a null to every leaf
// below it); infinite float bounds are left out; and FLOAT / DOUBLE maxima are always left out,
// because Parquet's bounds leave NaN out while Spark orders NaN above every number (a file
// holding NaN has the maximum NaN in Spark's stats, and a footer cannot say whether it does).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "sluice/base/json.h"
#include "sluice/base/result.h"
#include "sluice/parquet/metadata.h"
#include "sluice/parquet/schema_map.h"

namespace sluice::table {

inline constexpr std::string_view kNumIndexedColsKey = "delta.dataSkippingNumIndexedCols";
inline constexpr std::string_view kStatsColumnsKey = "delta.dataSkippingStatsColumns";
inline constexpr std::string_view kStringPrefixLengthKey = "delta.dataSkippingStringPrefixLength";

/// Which columns get statistics, and how strings are cut.
struct StatsOptions {
  /// The first this many leaf fields (-1: all). Ignored when stats_columns is set.
  int num_indexed_cols = 32;
  /// Column paths as Spark writes them in `delta.dataSkippingStatsColumns`: dot-separated
  /// logical names, a part in backquotes when it holds a dot or other special characters
  /// ("a.b", "`x.y`.z"), matched ignoring ASCII case; a struct selects all of its fields; a path
  /// through an array or map selects nothing. Set but empty: no column at all.
  std::optional<std::vector<std::string>> stats_columns;
  /// Characters kept of a string bound (>= 0).
  int string_prefix_length = 32;
  /// Write "tightBounds":true. Delta Spark writes it on tables that support deletion vectors.
  bool tight_bounds = true;

  /// Read the three delta.dataSkipping* keys of a table's metaData.configuration; absent keys
  /// keep the defaults. kInvalidArgument naming the key and its value for a number that is not
  /// a whole decimal integer in range (num_indexed_cols >= -1, string_prefix_length >= 0) or a
  /// column list that does not parse.
  static Result<StatsOptions> FromConfiguration(
      const std::map<std::string, std::string>& table_configuration);
};

/// Split a `delta.dataSkippingStatsColumns` value into its column paths (each kept as written,
/// trimmed); "" gives no paths. kInvalidArgument for unbalanced backquotes or an empty entry.
Result<std::vector<std::string>> SplitStatsColumns(std::string_view text);
/// The parts of one column path ("`a.b`.c" -> {"a.b", "c"}). kInvalidArgument for an empty
/// part or unbalanced backquotes.
Result<std::vector<std::string>> ParseColumnPath(std::string_view path);

/// The `add.stats` string of one data file from its footer (the row groups' num_rows and column
/// chunk Statistics: min_value/max_value, or the deprecated min/max for columns whose signed
/// order makes them valid) and the schema it was written with (for files sluice writes, the
/// ParquetSchema the writer used; for other files, ParquetSchema::FromElements of the footer).
/// kInvalidArgument when the footer does not match the schema (column count or paths), for
/// statistics bytes that do not fit the column's type (naming the column and row group), and
/// for a malformed stats_columns entry.
Result<std::string> FileStatsJson(const parquet::FileMetaData& footer,
                                  const parquet::ParquetSchema& file_schema,
                                  const StatsOptions& options = {});

/// A stats string read back.
struct ParsedStats {
  /// numRecords; nullopt when absent.
  std::optional<int64_t> num_records;
  /// The objects as written (empty objects when absent); leaves are JSON numbers or strings.
  JsonValue min_values = JsonValue::Object();
  JsonValue max_values = JsonValue::Object();
  JsonValue null_count = JsonValue::Object();
  /// tightBounds; nullopt when absent.
  std::optional<bool> tight_bounds;
};

/// Parse an `add.stats` string. Unknown keys are ignored. kParseError with the line, column and
/// offset for text that is not JSON, or a member of the wrong shape: numRecords not a
/// non-negative integer, minValues / maxValues / nullCount not objects, a nullCount leaf not a
/// non-negative integer, tightBounds not a boolean.
Result<ParsedStats> ParseStats(std::string_view stats_json);

}  // namespace sluice::table
