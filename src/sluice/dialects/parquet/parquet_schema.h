// Parquet as a schema language: reading the schema of a Parquet file (from its footer) or of a
// message type (`message spark_schema { ... }`, parquet-mr's text form), and writing a model
// schema as the message type sluice's writer would give it. The mapping itself is
// parquet/schema_map.h; docs/formats/parquet.md says which types map to which.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "sluice/base/result.h"
#include "sluice/schema/conversion.h"
#include "sluice/schema/schema.h"

namespace sluice::dialects::parquet {

/// Bytes a footer read needs from the end of a file: the footer's length and the magic.
inline constexpr size_t kTailBytes = 8;

/// Whether `content` looks like Parquet: the end of a file (its last bytes are "PAR1"), or a
/// message type (its first word is `message`).
bool LooksLikeParquet(std::string_view content);

/// The schema of `content`: a whole Parquet file, or any tail of one that holds its footer
/// (`offset`: where the tail starts in the file, for the byte offsets errors name), or a
/// message type. kUnimplemented for an encrypted file ("PARE"); kInvalidArgument naming the
/// byte offset for an empty or truncated file, a footer that does not parse, or the text.
Result<schema::Converted<schema::SchemaPtr>> ReadSchema(std::string_view content,
                                                        uint64_t offset = 0);

/// The footer's length, from a file's last kTailBytes bytes (`offset`: where they start in the
/// file); kUnimplemented when they end with "PARE" (encrypted), kInvalidArgument when they do
/// not end with "PAR1".
Result<size_t> FooterLength(std::string_view tail, uint64_t offset = 0);

/// `schema` as the message type sluice writes for it.
Result<schema::Converted<std::string>> WriteSchema(const schema::Schema& schema);

}  // namespace sluice::dialects::parquet
