// Reading a Delta table's rows (PROTOCOL.md "Action Reconciliation", "Column Mapping",
// "Deletion Vectors", "Type Widening", "Partition Value Serialization"): the live files of one
// snapshot, read in path order, each row turned into the table's logical form.
//
// A row is one JSON object with the table's logical column names in schema order, partition
// columns at their schema positions (typed from the add action's partitionValues), values in
// the form sluice's records take (parquet/value_text.h), maps as objects keyed by the key's
// text: the form `sluice validate` reads, so what a scan prints can be appended to a table
// again. Per file:
//   - column mapping: name mode finds a column by its physical name, id mode by its Parquet
//     field id (a file without any field ids by physical name); at every level of nesting;
//   - a table column (or struct field) the file lacks reads as null; a file column the table
//     lacks (dropped, or a partition column the writer also kept in the file) is not returned;
//   - rows whose index (0-based position in the file) is in the file's deletion vector are
//     never returned;
//   - a column written before a type widening reads in the table's current type: integers as
//     wider integers, decimals or doubles, floats as doubles (the float's exact value, as Spark
//     widens it: 3.4f reads 3.4000000953674316), decimals at a larger scale, dates as
//     timestamp_ntz at midnight.
//
// Pruning with `where`: the predicate is split at its top-level ANDs. A file is skipped, unread,
// when some conjunct cannot be TRUE for any of its rows:
//   - a conjunct that reads only partition columns is evaluated on the file's partition values
//     (every row of the file has them), and the file is skipped unless it is TRUE;
//   - a conjunct `column <op> literal` (op one of = < <= > >=, either side), `column BETWEEN a
//     AND b`, `column IN (literals)`, `column IS NULL` or `column IS NOT NULL`, on a top-level
//     or struct-nested column of an integer, decimal, string, date, timestamp or timestamp_ntz
//     type, is held against the file's add.stats: skipped when the literal lies outside
//     [minValues, maxValues] as the operator requires, when nullCount is numRecords (every
//     value null: a comparison is NULL) or, for IS NULL, when nullCount is 0. Timestamp maxima
//     are read as one millisecond higher (stats keep milliseconds, floored); float and double
//     columns, boolean and binary ones, and literals that need a cast (a string against a
//     number) are never used. Anything absent or unreadable in the stats skips nothing.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "sluice/base/file_system.h"
#include "sluice/base/result.h"
#include "sluice/table/alter.h"
#include "sluice/table/snapshot.h"

namespace sluice::table {

struct ScanOptions {
  /// The version to read (by number or by time); the latest by default.
  SnapshotOptions at;
  /// Columns to return, as logical field paths through structs (`a`, `a.b`, `` `x.y`.z ``),
  /// a name after an array naming a field of its struct elements (`items.sku`); names match
  /// ignoring case when no exact match exists. Selected fields keep their schema order.
  /// Empty: every column.
  std::vector<std::string> columns;
  /// A Spark SQL boolean predicate over the logical row (expression.h); only rows for which it
  /// is TRUE are returned.
  std::optional<std::string> where;
  /// Stop after this many rows; -1: no limit.
  int64_t limit = -1;
  /// The zone of timestamp partition values written without one (`2021-09-08 11:11:11`, as old
  /// Delta writers did, in their session zone): a fixed offset (`-07:00`, `+05:30`), `UTC` or
  /// `Z`. Values with a zone are read as they say.
  std::string partition_timezone = "UTC";
  /// Threads that decode a file's columns; 0: one per core.
  unsigned threads = 1;
};

struct ScanStats {
  /// The version read.
  int64_t version = -1;
  /// Data files opened.
  uint64_t files_read = 0;
  /// Files skipped without being opened because `where` cannot hold for them (the partition
  /// values or the stats show it); files_pruned_by_stats of them by stats.
  uint64_t files_pruned = 0;
  uint64_t files_pruned_by_stats = 0;
  uint64_t rows_returned = 0;
  /// Rows of the files read that deletion vectors removed.
  uint64_t rows_deleted = 0;
  /// Rows read for which `where` was not TRUE.
  uint64_t rows_filtered = 0;
};

/// Call `each` with every live row of the table at `root` (a folder on `fs`) as JSON text
/// (valid during the call), in the order of the snapshot's files (sorted by path) and of the
/// rows within each file. An error `each` returns stops the scan and is returned as it is.
/// Errors: those of LoadSnapshot; kUnimplemented naming the feature for a reader feature sluice
/// does not implement; kInvalidArgument for a column or predicate that does not resolve, a
/// partition timezone that is not a fixed offset, and (naming the file) a data file whose
/// column cannot be read as the table's type or whose partition values or deletion vector do
/// not hold; the file system's errors naming the file.
Result<ScanStats> ScanTable(std::shared_ptr<FileSystem> fs, const std::string& root,
                            const ScanOptions& options,
                            const std::function<Status(std::string_view json_row)>& each);

/// The rows of the latest version of the table at `root`, each parsed into a JsonValue: what
/// AlterTable checks a new constraint against.
RowSource TableRows(std::shared_ptr<FileSystem> fs, std::string root);

}  // namespace sluice::table
