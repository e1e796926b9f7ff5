// Which files a list of input paths names, as Spark reads a path: a file is itself, a folder is
// the files below it.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "sluice/base/file_system.h"
#include "sluice/base/result.h"

namespace sluice::data {

/// The record files `paths` name, in order: a file is itself, and so is "-" (standard input); a
/// folder is every file below it, sorted by name at each level, descending into subfolders
/// (partition folders such as `date=2026-08-15/`), leaving out names that start with '_' or '.' as
/// Spark does
/// (`_SUCCESS`, `_delta_log/`, `.part-0.crc`). `pattern`, when not empty, is a glob over the
/// names of files found in folders (Spark's pathGlobFilter); files named directly are always
/// read. kNotFound for a path that does not exist, kInvalidArgument for a folder with no files
/// left to read.
Result<std::vector<std::string>> ListInputFiles(FileSystem& fs,
                                                const std::vector<std::string>& paths,
                                                std::string_view pattern = {});

/// Whether `name` matches the glob `pattern`: `*` any run of characters, `?` one character,
/// `[abc]`, `[a-z]` and `[!abc]` one of (or none of) a set, `{csv,tsv}` one of the
/// alternatives, `\` escapes the next character. kInvalidArgument for an unclosed `[` or `{`.
Result<bool> GlobMatch(std::string_view pattern, std::string_view name);

}  // namespace sluice::data
