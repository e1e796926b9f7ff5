#include "cli/ui_flags.h"

#include <filesystem>
#include <set>

namespace sluice::cli {
namespace {

Result<std::vector<ui::NamedPath>> Parse(const std::vector<std::string>& values,
                                         std::string_view what) {
  std::vector<ui::NamedPath> out;
  std::set<std::string> names;
  for (const std::string& v : values) {
    auto named = ui::ParseNamedPath(v);
    if (!named.has_value()) return Fail(named.error().WithContext(std::string(what)));
    std::error_code ec;
    auto absolute = std::filesystem::absolute(named->path, ec);
    if (!ec) named->path = absolute.lexically_normal().string();
    while (named->path.size() > 1 && named->path.back() == '/') named->path.pop_back();
    if (!names.insert(named->name).second) {
      return InvalidArgument(std::string(what) + ": the name " + named->name +
                             " is given twice; name them NAME=PATH");
    }
    out.push_back(std::move(*named));
  }
  return out;
}

}  // namespace

void AddUiFlags(CLI::App* cmd, UiFlags& flags, const std::string& prefix) {
  cmd->add_option(prefix + "table", flags.tables,
                  "A Delta table to show, NAME=PATH or PATH (named by its folder); repeatable");
  cmd->add_option(prefix + "ingest", flags.ingest,
                  "An ingest checkpoint folder to show, NAME=CKPT or CKPT; repeatable");
  cmd->add_option(prefix + "alerts", flags.alerts,
                  "A drift alert outbox to show, NAME=OUTBOX or OUTBOX; repeatable");
}

Result<ui::UiOptions> UiOptionsFromFlags(const UiFlags& flags) {
  ui::UiOptions o;
  SLUICE_ASSIGN_OR_RETURN(o.tables, Parse(flags.tables, "table"));
  SLUICE_ASSIGN_OR_RETURN(o.ingest, Parse(flags.ingest, "ingest"));
  SLUICE_ASSIGN_OR_RETURN(o.alerts, Parse(flags.alerts, "alerts"));
  return o;
}

}  // namespace sluice::cli
