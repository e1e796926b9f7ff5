#include "cli/usage_errors.h"

#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <algorithm>

namespace sluice::cli {

namespace {

size_t EditDistance(std::string_view a, std::string_view b) {
  std::vector<size_t> row(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    size_t diag = row[0];
    row[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      size_t up = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diag + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diag = up;
    }
  }
  return row[b.size()];
}

std::vector<std::string> SubcommandNames(const CLI::App& cmd) {
  std::vector<std::string> names;
  for (const CLI::App* sub : cmd.get_subcommands([](const CLI::App*) { return true; })) {
    if (!sub->get_name().empty()) names.push_back(sub->get_name());
  }
  return names;
}

const CLI::App* FindSubcommand(const CLI::App& cmd, std::string_view name) {
  for (const CLI::App* sub : cmd.get_subcommands([](const CLI::App*) { return true; })) {
    if (sub->get_name() == name) return sub;
  }
  return nullptr;
}

std::vector<std::string> OptionNames(const CLI::App& cmd) {
  std::vector<std::string> names;
  for (const CLI::Option* o : cmd.get_options()) {
    for (const std::string& l : o->get_lnames()) names.push_back("--" + l);
    for (const std::string& s : o->get_snames()) names.push_back("-" + s);
  }
  return names;
}

std::string Suggestion(std::string_view word, const std::vector<std::string>& candidates) {
  std::string near = NearestWord(word, candidates);
  return near.empty() ? "" : fmt::format("; did you mean '{}'?", near);
}

}  // namespace

std::string NearestWord(std::string_view word, const std::vector<std::string>& candidates) {
  std::string best;
  size_t best_distance = std::max<size_t>(2, word.size() / 3) + 1;
  for (const std::string& c : candidates) {
    size_t d = EditDistance(word, c);
    if (d < best_distance) {
      best = c;
      best_distance = d;
    }
  }
  if (!best.empty()) return best;
  for (const std::string& c : candidates) {
    if (word.size() >= 2 && c.starts_with(word)) return c;
  }
  return "";
}

Error DescribeUsageError(const CLI::App& app, int argc, char** argv, const CLI::ParseError& e) {
  // Walk the words as CLI11 did, following subcommands, to find the first one it cannot place.
  const CLI::App* cmd = &app;
  std::string where = "sluice";
  for (int i = 1; i < argc; ++i) {
    std::string_view word = argv[i];
    if (word == "--") break;
    if (word.size() > 1 && word[0] == '-') {
      std::string name(word.substr(0, word.find('=')));
      if (name.size() > 2 && name[1] != '-') name = name.substr(0, 2);  // -qo: bundled flags
      const CLI::Option* opt = cmd->get_option_no_throw(name);
      if (opt == nullptr) {
        return Error(ErrorCode::kInvalidArgument,
                     fmt::format("unknown option '{}' for '{}'{}", name, where,
                                 Suggestion(name, OptionNames(*cmd))));
      }
      // An option's value is the next word unless given with '='.
      if (opt->get_expected_min() > 0 && word.find('=') == std::string_view::npos &&
          name.size() == word.size()) {
        ++i;
      }
      continue;
    }
    if (const CLI::App* sub = FindSubcommand(*cmd, word)) {
      cmd = sub;
      where += " " + std::string(word);
      continue;
    }
    if (cmd->get_require_subcommand_min() > 0) {
      return Error(
          ErrorCode::kInvalidArgument,
          fmt::format("unknown command '{}'{}{}", word, cmd == &app ? "" : " for '" + where + "'",
                      Suggestion(word, SubcommandNames(*cmd))));
    }
  }
  std::string what = e.what();
  if (what == "A subcommand is required") {
    std::vector<std::string> names = SubcommandNames(*cmd);
    std::string list;
    for (const std::string& n : names) list += (list.empty() ? "" : ", ") + n;
    what = fmt::format("'{}' needs a command: {}", where, list);
  }
  return Error(ErrorCode::kInvalidArgument, fmt::format("{} (see '{} --help')", what, where));
}

}  // namespace sluice::cli
