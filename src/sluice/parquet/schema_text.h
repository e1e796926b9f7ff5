// The text form of a Parquet schema, as parquet-mr's MessageType.toString writes it and its
// MessageTypeParser reads it:
//
//   message spark_schema {
//     required int64 id = 1;
//     optional binary name (STRING);
//     optional int32 small (INTEGER(8,true));
//     optional fixed_len_byte_array(9) amount (DECIMAL(20,2));
//     optional int64 at (TIMESTAMP(MICROS,true));
//     optional group tags (LIST) {
//       repeated group list {
//         optional binary element (STRING);
//       }
//     }
//   }
//
// An element is `<repetition> <type> <name> [(<annotation>)] [= <field id>]`, then `;` for a
// primitive or a `{ ... }` block for a group. The annotation is the LogicalType when there is
// one ("DECIMAL(10,2)", "TIME(MILLIS,false)"), else the ConvertedType's name ("UTF8",
// "TIMESTAMP_MILLIS", "MAP_KEY_VALUE"). Beyond parquet-mr, names that a bare word cannot
// carry (spaces, `{}();=,`, a leading `//`) are written in backquotes with backquotes
// doubled, and `//` starts a comment to the end of the line.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "sluice/base/result.h"
#include "sluice/parquet/metadata.h"

namespace sluice::parquet {

/// Write the text form of a schema's elements (empty for no elements). A tree that is not
/// well formed is written as far as it is; a tree nested beyond the depth ParquetSchema
/// accepts is cut off with a `...` line.
std::string MessageTypeText(const std::vector<SchemaElement>& elements);

/// Parse the text form. A LogicalType annotation gets the ConvertedType sluice writes beside
/// it (none for local timestamps); a ConvertedType name alone gives that ConvertedType alone.
/// So ParseMessageType(MessageTypeText(e)) == e for the elements sluice writes, and for any
/// elements whose annotations are a LogicalType with that ConvertedType (and, for decimals,
/// scale and precision) or a ConvertedType without a LogicalType of the same name. The tree
/// is not checked beyond its syntax (ParquetSchema::FromElements does that). Errors are
/// kInvalidArgument with the byte offset, line and column; nesting is bounded.
Result<std::vector<SchemaElement>> ParseMessageType(std::string_view text);

}  // namespace sluice::parquet
