#include "sluice/ingest/discovery.h"

#include <algorithm>

#include "sluice/data/input_files.h"

namespace sluice::ingest {
namespace {

Status Walk(FileSystem& fs, const std::string& dir, const std::string& relative,
            const DiscoveryOptions& options, const std::set<std::string>& known, int64_t now_ms,
            std::vector<BatchFile>& out) {
  SLUICE_ASSIGN_OR_RETURN(std::vector<FileInfo> entries, fs.ListFiles(dir));
  for (const FileInfo& e : entries) {
    if (e.name.empty() || e.name[0] == '_' || e.name[0] == '.') continue;
    const std::string path = dir + "/" + e.name;
    if (std::find(options.exclude.begin(), options.exclude.end(), path) != options.exclude.end()) {
      continue;
    }
    const std::string rel = relative.empty() ? e.name : relative + "/" + e.name;
    if (e.kind == FileKind::kDirectory) {
      SLUICE_TRY(Walk(fs, path, rel, options, known, now_ms, out));
      continue;
    }
    if (e.kind != FileKind::kFile) continue;
    if (!options.pattern.empty()) {
      const bool on_path = options.pattern.find('/') != std::string::npos;
      SLUICE_ASSIGN_OR_RETURN(bool match, data::GlobMatch(options.pattern, on_path ? rel : e.name));
      if (!match) continue;
    }
    if (options.min_file_age_ms > 0 && now_ms - e.modified_ms < options.min_file_age_ms) continue;
    if (known.contains(path)) continue;
    out.push_back({path, e.size, e.modified_ms});
  }
  return Ok();
}

}  // namespace

Result<std::vector<BatchFile>> DiscoverFiles(FileSystem& fs, const std::string& dir,
                                             const DiscoveryOptions& options,
                                             const std::set<std::string>& known, int64_t now_ms) {
  SLUICE_ASSIGN_OR_RETURN(FileInfo info, fs.Stat(dir));
  if (info.kind != FileKind::kDirectory) {
    return InvalidArgument(dir + ": not a folder (ingest reads the files below a folder)");
  }
  std::vector<BatchFile> out;
  SLUICE_TRY(Walk(fs, dir, "", options, known, now_ms, out));
  std::stable_sort(out.begin(), out.end(), [](const BatchFile& a, const BatchFile& b) {
    return a.modified_ms != b.modified_ms ? a.modified_ms < b.modified_ms : a.path < b.path;
  });
  return out;
}

}  // namespace sluice::ingest
