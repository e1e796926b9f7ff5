// The rules of one commit, for check.cc; not for use outside src/sluice/table.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "sluice/schema/schema.h"
#include "sluice/table/actions.h"
#include "sluice/table/check.h"

namespace sluice::table::internal {

/// Findings of one check, each naming the version and file it is about.
class Findings {
 public:
  explicit Findings(std::vector<TableFinding>& out) : out_(out) {}
  void Add(std::string_view rule, FindingSeverity severity, std::optional<int64_t> version,
           std::string file, std::string message) {
    out_.push_back({std::string(rule), severity, version, std::move(file), std::move(message)});
  }
  void Error(std::string_view rule, std::optional<int64_t> version, std::string file,
             std::string message) {
    Add(rule, FindingSeverity::kError, version, std::move(file), std::move(message));
  }
  void Warning(std::string_view rule, std::optional<int64_t> version, std::string file,
               std::string message) {
    Add(rule, FindingSeverity::kWarning, version, std::move(file), std::move(message));
  }

 private:
  std::vector<TableFinding>& out_;
};

/// The metaData in force while commits are checked in order (its partition columns decide the
/// keys of every add's partitionValues); unknown where the log no longer holds it.
struct LogState {
  std::optional<Metadata> metadata;
  /// The partitionValues keys an add must have (physical names under column mapping); nullopt
  /// when the metaData is unknown or its schema does not parse.
  std::optional<std::vector<std::string>> partition_keys;
};

/// The partitionValues keys `metadata` asks for; nullopt when its schema does not parse.
std::optional<std::vector<std::string>> PartitionKeys(const Metadata& metadata,
                                                      const schema::Schema* schema);

/// Check commit `version` (its text, at `file` relative to the root): one JSON action per
/// line, each well formed, at most one metaData and protocol, add paths unique, partition
/// values and stats; version 0 holds a protocol and a metaData. `state` moves past the commit.
void CheckCommit(std::string_view text, int64_t version, const std::string& file, LogState& state,
                 Findings& findings);

/// The rules of a protocol action: versions in range, features listed iff the versions say so,
/// reader features also writer features.
void CheckProtocol(const Protocol& protocol, int64_t version, const std::string& file,
                   Findings& findings);

}  // namespace sluice::table::internal
