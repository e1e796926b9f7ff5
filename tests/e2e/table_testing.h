// What the end-to-end tests of `sluice table` share: fresh folders, small files, and the
// independent Delta checker's verdict on a table.
#pragma once

#include <string>

namespace sluice::e2e {

bool Contains(const std::string& haystack, const std::string& needle);

/// An empty folder under the temporary directory, named after `name`.
std::string FreshFolder(const std::string& name);

/// Write `text` to `dir/name`; return the path.
std::string WriteText(const std::string& dir, const std::string& name, const std::string& text);

/// A whole file's bytes ("" when it cannot be read).
std::string ReadText(const std::string& path);

/// A table's commit `version`, as text.
std::string CommitText(const std::string& table, int version);

/// The findings of tests/table/delta_check.mjs (its own log replay, DuckDB reading every data
/// file) on `table`: "" when the table is clean, or when node or DuckDB are not installed.
std::string CheckTableIndependently(const std::string& table);

}  // namespace sluice::e2e
