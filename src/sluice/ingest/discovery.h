// Finding the files an ingest has not read yet: every file below the source folder (recursive,
// Hive partition folders included), names starting with '_' or '.' left out as Spark leaves
// them out (so a writer that writes `.name.tmp` and renames it is never read half-written),
// an optional glob, and an optional minimum age for writers that write in place.
#pragma once

#include <cstdint>
#include <set>
#include <string>
#include <vector>

#include "sluice/base/file_system.h"
#include "sluice/base/result.h"
#include "sluice/ingest/checkpoint.h"

namespace sluice::ingest {

struct DiscoveryOptions {
  /// A glob over file names (Auto Loader's pathGlobFilter); a pattern with '/' is matched
  /// against the path below the folder instead.
  std::string pattern;
  /// Files modified less than this long ago are left for a later pass (still being written).
  int64_t min_file_age_ms = 0;
  /// Paths never read, with whatever is below them: the ingest's own checkpoint, table,
  /// schema location, quarantine and report when they sit inside the source folder.
  std::vector<std::string> exclude;
};

/// The files below `dir` not in `known`, oldest first (modification time, then path), as
/// Auto Loader lists them. kNotFound when `dir` does not exist.
Result<std::vector<BatchFile>> DiscoverFiles(FileSystem& fs, const std::string& dir,
                                             const DiscoveryOptions& options,
                                             const std::set<std::string>& known, int64_t now_ms);

}  // namespace sluice::ingest
