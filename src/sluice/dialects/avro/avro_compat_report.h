// The compatibility check's findings as it records them, and the words it writes for the ones it
// reports: Java's messages, sluice's type descriptions and fix hints. Not for other modules.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "sluice/dialects/avro/avro_compatibility.h"
#include "sluice/dialects/avro/avro_schema.h"

namespace sluice::dialects::avro::internal {

// An incompatibility as the walk records it: no strings, since most of those found while trying
// union branches are dropped; the message and location are written only for reported ones.
struct RawIncompatibility {
  AvroIncompatibilityKind kind = AvroIncompatibilityKind::kTypeMismatch;
  const AvroNode* reader = nullptr;
  const AvroNode* writer = nullptr;
  // MISSING_UNION_BRANCH of two unions: the writer branch no reader branch reads (its type is in
  // Java's message). READER_FIELD_MISSING_DEFAULT_VALUE, and the TYPE_MISMATCH of Java's enum
  // default exception: the reader field that has no writer field.
  const AvroNode* writer_branch = nullptr;
  const AvroField* reader_field = nullptr;
  // The location stack, a slice of the checker's token pool.
  uint32_t location_begin = 0;
  uint32_t location_size = 0;
  // From the layouts, so that the common messages are written without reading the nodes: the
  // types of reader, writer and writer_branch, and the reader field's name.
  AvroType reader_type = AvroType::kNull;
  AvroType writer_type = AvroType::kNull;
  AvroType branch_type = AvroType::kNull;
  std::string_view field_name;
};

/// Java's getMessage() of the incompatibility.
std::string Message(const RawIncompatibility& inc);
/// What to change, in plain words.
std::string Hint(const RawIncompatibility& inc);
/// A short description of a node: "int", "record com.acme.User", "union [null, string]".
std::string Describe(const AvroNode& node, int depth = 0);
/// The writer's enum symbols the reader lacks, in the writer's order, stopping at the first when
/// `first_only`.
std::vector<std::string_view> WriterSymbolsNotInReader(const AvroNode& r, const AvroNode& w,
                                                       bool first_only);

}  // namespace sluice::dialects::avro::internal
