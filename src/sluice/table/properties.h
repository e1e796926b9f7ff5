// Table properties as Delta's DeltaConfigs check them before a table stores them: the delta.*
// keys Delta knows, the form each value must have, and the protocol versions asked for as
// properties (delta.minReaderVersion, delta.minWriterVersion), which Delta keeps in the
// protocol action rather than in the configuration. One check for every command that sets
// properties: create, a write that creates a table, overwrite and alter --set.
#pragma once

#include <string_view>

#include "sluice/base/result.h"
#include "sluice/table/actions.h"

namespace sluice::table {

/// Properties as a table takes them.
struct TableProperties {
  /// What the metaData's configuration stores.
  StringMap configuration;
  /// The protocol versions asked for (0: not asked): the protocol is raised to them, never
  /// lowered (RaiseProtocol).
  int min_reader_version = 0;
  int min_writer_version = 0;
};

/// Check one property as Delta does. kInvalidArgument naming the key: "[DELTA_UNKNOWN_
/// CONFIGURATION] ..." for a delta.* key Delta does not know; Delta's help text ("delta.appendOnly
/// needs to be a boolean.") for a value of the wrong form. Other keys are the user's own.
Status CheckTableProperty(std::string_view key, std::string_view value);

/// Check every property (CheckTableProperty) and split off the protocol versions.
Result<TableProperties> SplitTableProperties(const StringMap& given);

}  // namespace sluice::table
