#include "sluice/alert/watch_config.h"

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include <charconv>
#include <set>

#include "sluice/base/strings.h"

namespace sluice::alert {

namespace {

constexpr size_t kMaxConfigBytes = size_t{1} << 20;
constexpr size_t kMaxSources = 10000;

std::string Resolve(const std::string& base_dir, const std::string& path) {
  if (path.empty() || base_dir.empty() || path.front() == '/' ||
      path.find("://") != std::string::npos) {
    return path;
  }
  return base_dir + "/" + path;
}

// A source is a registry subject, a path, or a Delta table with @vN: paths are resolved, the
// rest kept.
std::string ResolveSource(const std::string& base_dir, const std::string& source) {
  if (StartsWith(source, "registry://")) return source;
  return Resolve(base_dir, source);
}

Result<std::string> Scalar(const YAML::Node& node, const std::string& where) {
  if (!node.IsScalar()) return ParseError(where + ": expected a single value");
  return node.Scalar();
}

Result<bool> Flag(const YAML::Node& node, const std::string& where) {
  SLUICE_ASSIGN_OR_RETURN(std::string text, Scalar(node, where));
  std::string lower = AsciiLower(text);
  if (lower == "true" || lower == "yes" || lower == "on") return true;
  if (lower == "false" || lower == "no" || lower == "off") return false;
  return ParseError(where + ": expected true or false, not '" + text + "'");
}

Result<std::vector<std::string>> List(const YAML::Node& node, const std::string& where) {
  std::vector<std::string> out;
  if (node.IsScalar()) {
    out.push_back(node.Scalar());
    return out;
  }
  if (!node.IsSequence()) return ParseError(where + ": expected a list");
  for (size_t i = 0; i < node.size(); ++i) {
    SLUICE_ASSIGN_OR_RETURN(std::string item,
                            Scalar(node[i], where + "[" + std::to_string(i) + "]"));
    out.push_back(std::move(item));
  }
  return out;
}

// One key of a source (or of `defaults`) into `s`.
Status ApplyKey(const std::string& key, const YAML::Node& value, const std::string& where,
                const std::string& base_dir, WatchSource& s) {
  const std::string at = where + "." + key;
  if (key == "notify") {
    SLUICE_ASSIGN_OR_RETURN(s.notify, List(value, at));
    // A log file named relative to the config lives beside it, like every other path here.
    for (std::string& spec : s.notify) {
      if (spec.starts_with("file:") && !spec.starts_with("file:env:")) {
        spec = "file:" + Resolve(base_dir, spec.substr(5));
      }
    }
    return Ok();
  }
  if (key == "accept") {
    SLUICE_ASSIGN_OR_RETURN(s.accept, Flag(value, at));
    return Ok();
  }
  SLUICE_ASSIGN_OR_RETURN(std::string text, Scalar(value, at));
  if (key == "name") {
    s.name = text;
  } else if (key == "source") {
    s.source = ResolveSource(base_dir, text);
  } else if (key == "baseline") {
    s.baseline = StartsWith(text, "registry://") ? text : Resolve(base_dir, text);
  } else if (key == "mode") {
    if (text != "spark" && text != "autoloader") {
      return ParseError(at + ": spark or autoloader, not '" + text + "'");
    }
    s.mode = text;
  } else if (key == "contract") {
    s.contract = Resolve(base_dir, text);
  } else if (key == "format") {
    s.format = text;
  } else if (key == "interval") {
    auto ms = ParseInterval(text);
    if (!ms.has_value()) return Fail(ms.error().WithContext(at));
    s.interval_ms = *ms;
  } else if (key == "link") {
    s.link = text;
  } else if (key == "webhook_secret_env") {
    s.webhook_secret_env = text;
  } else if (key == "webhook_secret_file") {
    s.webhook_secret_file = Resolve(base_dir, text);
  } else {
    return ParseError(at +
                      ": unknown key (name, source, baseline, mode, contract, format, "
                      "interval, notify, accept, link, webhook_secret_env, webhook_secret_file)");
  }
  return Ok();
}

Status ApplyMap(const YAML::Node& map, const std::string& where, const std::string& base_dir,
                WatchSource& s) {
  if (!map.IsMap()) return ParseError(where + ": expected a mapping");
  for (const auto& kv : map) {
    if (!kv.first.IsScalar()) return ParseError(where + ": keys are names");
    SLUICE_TRY(ApplyKey(kv.first.Scalar(), kv.second, where, base_dir, s));
  }
  return Ok();
}

Result<WatchConfig> Build(const YAML::Node& root, const std::string& base_dir) {
  if (!root.IsMap()) return ParseError("a watch config is a mapping with a `sources` list");
  WatchConfig config;
  WatchSource defaults;
  for (const auto& kv : root) {
    const std::string key = kv.first.IsScalar() ? kv.first.Scalar() : std::string();
    if (key == "outbox") {
      SLUICE_ASSIGN_OR_RETURN(std::string text, Scalar(kv.second, "outbox"));
      config.outbox = Resolve(base_dir, text);
    } else if (key == "defaults") {
      SLUICE_TRY(ApplyMap(kv.second, "defaults", base_dir, defaults));
    } else if (key != "sources") {
      return ParseError("unknown top-level key '" + key + "' (outbox, defaults, sources)");
    }
  }
  const YAML::Node sources = root["sources"];
  if (!sources || !sources.IsSequence() || sources.size() == 0) {
    return ParseError("sources: expected a non-empty list");
  }
  if (sources.size() > kMaxSources) return ParseError("sources: more than 10000 entries");
  std::set<std::string> names;
  for (size_t i = 0; i < sources.size(); ++i) {
    const std::string where = "sources[" + std::to_string(i) + "]";
    WatchSource s = defaults;
    SLUICE_TRY(ApplyMap(sources[i], where, base_dir, s));
    if (s.source.empty()) return ParseError(where + ": `source` is required");
    if (s.baseline.empty()) return ParseError(where + ": `baseline` is required");
    if (s.name.empty()) s.name = s.source;
    if (!names.insert(s.name).second) {
      return ParseError(where + ": the name '" + s.name + "' is used twice");
    }
    config.sources.push_back(std::move(s));
  }
  if (config.outbox.empty()) config.outbox = Resolve(base_dir, ".sluice-alerts.db");
  return config;
}

}  // namespace

Result<int64_t> ParseInterval(std::string_view text) {
  std::string_view t = TrimWhitespace(text);
  int64_t value = 0;
  auto [end, ec] = std::from_chars(t.data(), t.data() + t.size(), value);
  if (ec != std::errc() || value <= 0 || value > 1000000000) {
    return InvalidArgument("an interval is a positive number with s, m, h or ms: '" +
                           std::string(text) + "'");
  }
  std::string_view unit(end, t.data() + t.size() - end);
  int64_t ms = 0;
  if (unit.empty() || unit == "s") {
    ms = value * 1000;
  } else if (unit == "ms") {
    ms = value;
  } else if (unit == "m") {
    ms = value * 60000;
  } else if (unit == "h") {
    ms = value * 3600000;
  } else {
    return InvalidArgument("unknown interval unit '" + std::string(unit) + "' (ms, s, m, h)");
  }
  if (ms < 1000) return InvalidArgument("an interval is at least 1s");
  return ms;
}

Result<WatchConfig> ParseWatchConfig(std::string_view yaml, const std::string& base_dir) {
  if (yaml.size() > kMaxConfigBytes) return ParseError("a watch config is at most 1 MiB");
  try {
    YAML::Node root = YAML::Load(std::string(yaml));
    return Build(root, base_dir);
  } catch (const YAML::Exception& e) {
    return ParseError(
        fmt::format("YAML at line {}, column {}: {}", e.mark.line + 1, e.mark.column + 1, e.msg));
  }
}

}  // namespace sluice::alert
