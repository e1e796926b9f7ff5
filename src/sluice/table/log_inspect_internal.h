// Helpers that history.cc and check.cc share; not for use outside src/sluice/table.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "sluice/base/result.h"

namespace sluice::table::internal {

/// The numRecords of an add's stats JSON: nullopt when the stats have none;
/// kInvalidArgument when the text is not a JSON object or numRecords is not a non-negative
/// integer.
Result<std::optional<int64_t>> StatsNumRecords(std::string_view stats);

/// An add path URI-decoded once (`%20` is a space, `%253A` is `%3A`, as the file is named on
/// disk); nullopt for a '%' not followed by two hex digits.
std::optional<std::string> UriDecode(std::string_view path);

/// Where the data file an add's (URI-encoded) path names: a relative path under `root`, an
/// absolute path or a `file:` URI as its path, decoded once; nullopt for a URI of another scheme
/// (a file on another file system). kInvalidArgument for a malformed escape.
Result<std::optional<std::string>> DataFilePath(std::string_view root, std::string_view path);

}  // namespace sluice::table::internal
