// Usage errors in sluice's words: which command or option is unknown, and the nearest one.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "sluice/base/error.h"

namespace CLI {
class App;
class ParseError;
}  // namespace CLI

namespace sluice::cli {

/// The error to print for a command line that CLI11 refused: an unknown command or option by
/// name ("unknown command 'frobnicate'; did you mean ...?"), else CLI11's reason with the
/// command it is about and where to read more.
Error DescribeUsageError(const CLI::App& app, int argc, char** argv, const CLI::ParseError& e);

/// The candidate nearest to `word` by edit distance, if close enough to be a slip (at most 2
/// edits, or a third of the word's length), or a word that starts with `word`; "" if none.
std::string NearestWord(std::string_view word, const std::vector<std::string>& candidates);

}  // namespace sluice::cli
