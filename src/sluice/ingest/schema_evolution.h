// What a batch's records do to the schema an ingest reads with, by Auto Loader's rules: a
// column the schema lacks is added at the end of its struct (nested ones inside their struct,
// array element or map value; where the schema holds a map and the batch a struct, as JSON
// objects infer, the struct's fields are the map's entries, folded into its value type),
// existing columns keep their types unless widening is asked for, and then only along Auto
// Loader's widening table. Everything else (a string where a number was, a struct where a
// string was) stays as it is: such values are rescued when the records are read.
#pragma once

#include <string>
#include <vector>

#include "sluice/base/result.h"
#include "sluice/schema/schema.h"

namespace sluice::ingest {

struct SchemaEvolution {
  schema::SchemaPtr schema;
  /// Paths (FieldPath text) of the columns added and of those whose type widened.
  std::vector<std::string> added;
  std::vector<std::string> widened;
  bool changed() const { return !added.empty() || !widened.empty(); }
};

struct EvolveOptions {
  /// Widen types (addNewColumnsWithTypeWidening).
  bool widen = false;
  /// Match names exactly; by default ASCII case is ignored, as Auto Loader does.
  bool case_sensitive = false;
  /// Never added from the batch (the rescued-data column the inference appends).
  std::string rescued_column = "_rescued_data";
  /// Two atomic types that neither widens to become a string (Spark's compatibleType default):
  /// merging the schemas inferred from several files, not evolving a schema.
  bool conflicts_become_string = false;
};

/// Auto Loader's widening table: byte -> short, int, long, decimal, double; short -> int, long,
/// decimal, double; int -> long, decimal, double; long -> decimal; float -> double; decimal ->
/// decimal with at least as many integer and fraction digits; date -> timestamp_ntz. A widening
/// to a decimal keeps every integer digit (int needs decimal(10+s, s), long decimal(20+s, s)).
bool CanWiden(const schema::Type& from, const schema::Type& to);

/// `current` evolved by `incoming` (the batch's inferred schema). New fields are nullable.
Result<SchemaEvolution> EvolveSchema(const schema::Schema& current, const schema::Schema& incoming,
                                     const EvolveOptions& options);

}  // namespace sluice::ingest
