#include "sluice/data/input_files.h"

#include <fmt/format.h>

#include <algorithm>

#include "sluice/base/strings.h"

namespace sluice::data {

namespace {

// Braces nest at most this deep and expand to at most this many patterns, so a hostile pattern
// cannot blow up.
constexpr int kMaxBraceDepth = 8;
constexpr size_t kMaxAlternatives = 256;

// Expand the first top-level {a,b} group of `pattern` (recursively), appending every
// brace-free pattern to `out`.
Status ExpandBraces(std::string_view pattern, int depth, std::vector<std::string>& out) {
  if (depth > kMaxBraceDepth) return InvalidArgument("braces nested too deep in --pattern");
  size_t open = std::string_view::npos;
  for (size_t i = 0; i < pattern.size(); ++i) {
    if (pattern[i] == '\\') {
      ++i;
    } else if (pattern[i] == '[') {
      // A '{' inside a set is a plain character.
      size_t close = pattern.find(']', i + 2);
      if (close == std::string_view::npos) break;
      i = close;
    } else if (pattern[i] == '{') {
      open = i;
      break;
    }
  }
  if (open == std::string_view::npos) {
    if (out.size() >= kMaxAlternatives) {
      return InvalidArgument("--pattern expands to too many alternatives");
    }
    out.emplace_back(pattern);
    return Ok();
  }
  std::vector<std::string_view> parts;
  int level = 0;
  size_t start = open + 1;
  size_t close = std::string_view::npos;
  for (size_t i = open + 1; i < pattern.size() && close == std::string_view::npos; ++i) {
    char c = pattern[i];
    if (c == '\\') {
      ++i;
    } else if (c == '{') {
      ++level;
    } else if (c == '}' && level > 0) {
      --level;
    } else if (c == '}') {
      parts.push_back(pattern.substr(start, i - start));
      close = i;
    } else if (c == ',' && level == 0) {
      parts.push_back(pattern.substr(start, i - start));
      start = i + 1;
    }
  }
  if (close == std::string_view::npos) return InvalidArgument("unclosed '{' in --pattern");
  std::string_view head = pattern.substr(0, open);
  std::string_view tail = pattern.substr(close + 1);
  for (std::string_view part : parts) {
    std::string next;
    next.append(head).append(part).append(tail);
    SLUICE_TRY(ExpandBraces(next, depth + 1, out));
  }
  return Ok();
}

// Match one character against the set starting after '[' at pattern[i]; on return i is past ']'.
Result<bool> MatchSet(std::string_view pattern, size_t& i, char c) {
  bool negate = i < pattern.size() && (pattern[i] == '!' || pattern[i] == '^');
  if (negate) ++i;
  bool found = false;
  bool first = true;
  while (i < pattern.size() && (first || pattern[i] != ']')) {
    first = false;
    char lo = pattern[i];
    if (lo == '\\' && i + 1 < pattern.size()) lo = pattern[++i];
    char hi = lo;
    if (i + 2 < pattern.size() && pattern[i + 1] == '-' && pattern[i + 2] != ']') {
      hi = pattern[i + 2];
      i += 2;
    }
    if (lo <= c && c <= hi) found = true;
    ++i;
  }
  if (i >= pattern.size()) return InvalidArgument("unclosed '[' in --pattern");
  ++i;  // past ']'
  return found != negate;
}

// Match a brace-free pattern: the classic two-pointer walk that remembers the last '*', linear
// in practice and O(n*m) at worst, never exponential.
Result<bool> MatchOne(std::string_view p, std::string_view s) {
  size_t pi = 0;
  size_t si = 0;
  size_t star_p = std::string_view::npos;
  size_t star_s = 0;
  while (si < s.size()) {
    if (pi < p.size() && p[pi] == '*') {
      star_p = ++pi;
      star_s = si;
      continue;
    }
    if (pi < p.size()) {
      size_t next = pi;
      bool ok = false;
      if (p[pi] == '?') {
        ok = true;
        next = pi + 1;
      } else if (p[pi] == '[') {
        next = pi + 1;
        SLUICE_ASSIGN_OR_RETURN(ok, MatchSet(p, next, s[si]));
      } else if (p[pi] == '\\' && pi + 1 < p.size()) {
        ok = p[pi + 1] == s[si];
        next = pi + 2;
      } else {
        ok = p[pi] == s[si];
        next = pi + 1;
      }
      if (ok) {
        pi = next;
        ++si;
        continue;
      }
    }
    if (star_p == std::string_view::npos) return false;
    pi = star_p;
    si = ++star_s;
  }
  while (pi < p.size() && p[pi] == '*') ++pi;
  return pi == p.size();
}

bool Hidden(std::string_view name) { return name.starts_with('_') || name.starts_with('.'); }

// Every file below `dir`, depth first, sorted by path.
Status Walk(FileSystem& fs, const std::string& dir, const std::vector<std::string>& patterns,
            std::vector<std::string>& out) {
  SLUICE_ASSIGN_OR_RETURN(std::vector<FileInfo> entries, fs.ListFiles(dir));
  for (const FileInfo& e : entries) {
    if (Hidden(e.name)) continue;
    std::string path = dir.ends_with('/') ? dir + e.name : dir + "/" + e.name;
    if (e.kind == FileKind::kDirectory) {
      SLUICE_TRY(Walk(fs, path, patterns, out));
      continue;
    }
    bool keep = patterns.empty();
    for (const std::string& p : patterns) {
      SLUICE_ASSIGN_OR_RETURN(bool m, MatchOne(p, e.name));
      if (m) {
        keep = true;
        break;
      }
    }
    if (keep) out.push_back(std::move(path));
  }
  return Ok();
}

}  // namespace

Result<bool> GlobMatch(std::string_view pattern, std::string_view name) {
  std::vector<std::string> patterns;
  SLUICE_TRY(ExpandBraces(pattern, 0, patterns));
  for (const std::string& p : patterns) {
    SLUICE_ASSIGN_OR_RETURN(bool m, MatchOne(p, name));
    if (m) return true;
  }
  return false;
}

Result<std::vector<std::string>> ListInputFiles(FileSystem& fs,
                                                const std::vector<std::string>& paths,
                                                std::string_view pattern) {
  std::vector<std::string> patterns;
  if (!pattern.empty()) SLUICE_TRY(ExpandBraces(pattern, 0, patterns));
  std::vector<std::string> out;
  for (const std::string& path : paths) {
    if (path == "-") {
      out.push_back(path);
      continue;
    }
    SLUICE_ASSIGN_OR_RETURN(FileInfo info, fs.Stat(path));
    if (info.kind != FileKind::kDirectory) {
      out.push_back(path);
      continue;
    }
    size_t before = out.size();
    SLUICE_TRY(Walk(fs, path, patterns, out));
    if (out.size() == before) {
      return InvalidArgument(
          pattern.empty()
              ? fmt::format("{}: the folder holds no files to read", path)
              : fmt::format("{}: no file in the folder matches --pattern {}", path, pattern));
    }
  }
  return out;
}

}  // namespace sluice::data
