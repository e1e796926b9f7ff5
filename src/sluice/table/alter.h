// In-place changes to a Delta table (ALTER TABLE): add, rename and drop columns, widen a
// column's type, set and unset properties, add and drop CHECK constraints. Each is one commit
// of new metadata (and protocol, when the change needs a feature); no data file is rewritten.
// Rename and drop need column mapping: sluice turns name mode on first, as a user of Delta
// would with `delta.columnMapping.mode = name`, keeping every existing column's name as its
// physical name.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "sluice/base/file_system.h"
#include "sluice/base/result.h"
#include "sluice/table/transaction.h"

namespace sluice::table {

struct AlterChange {
  enum class Kind : uint8_t {
    kAddColumn,       // text: "a.b TYPE [NOT NULL] [COMMENT 'c'] [FIRST | AFTER x]"
    kRenameColumn,    // path -> new_name
    kDropColumn,      // path
    kWiden,           // text: "a.b TYPE"
    kSetProperty,     // key = value
    kUnsetProperty,   // key
    kAddConstraint,   // name, expression
    kDropConstraint,  // name
  };
  Kind kind;
  std::string a;  // the text, path, key or name
  std::string b;  // the new name, value or expression
};

struct AlterResult {
  int64_t version = -1;
  /// What the change did, one line each ("turned on column mapping (name mode)", ...).
  std::vector<std::string> notes;
};

/// Rows of the table at its current version, for checking a new constraint against them:
/// calls `each` with every row (JSON, logical names). Provided by the reader (scan.h) so that
/// this file does not depend on it.
using RowSource = std::function<Status(const std::function<Status(const JsonValue&)>& each)>;

/// Apply `change` to the table at `root` in one commit. kInvalidArgument (with Delta's error
/// class where Delta has one) for a change Delta refuses: a column that does not exist or
/// already does, a NOT NULL column added, a rename or drop of a partition column, a type change
/// that is not a supported widening, an unknown delta.* property, a constraint whose name is
/// taken or that existing rows break (checked through `rows`).
Result<AlterResult> AlterTable(std::shared_ptr<FileSystem> fs, const std::string& root,
                               const AlterChange& change, const RowSource& rows = {});

}  // namespace sluice::table
