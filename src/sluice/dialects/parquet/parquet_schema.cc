#include "sluice/dialects/parquet/parquet_schema.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstring>

#include "sluice/base/json.h"
#include "sluice/base/strings.h"
#include "sluice/parquet/metadata.h"
#include "sluice/parquet/schema_map.h"
#include "sluice/parquet/schema_text.h"

namespace sluice::dialects::parquet {

namespace pq = sluice::parquet;

namespace {
constexpr std::string_view kMagic = "PAR1";
constexpr std::string_view kEncryptedMagic = "PARE";
}  // namespace

bool LooksLikeParquet(std::string_view content) {
  if (content.size() >= kTailBytes && content.substr(content.size() - 4) == kMagic) return true;
  // `message <name> {`: a DDL column named `message` is followed by a type, not a brace.
  std::string_view body = TrimWhitespace(content);
  if (!StartsWith(body, "message")) return false;
  body.remove_prefix(7);
  const size_t name = body.find_first_not_of(" \t\r\n");
  if (name == 0 || name == std::string_view::npos) return false;
  body.remove_prefix(name);
  const size_t after = body.find_first_of(" \t\r\n{");
  if (after == 0 || after == std::string_view::npos) return false;
  body.remove_prefix(after);
  return StartsWith(TrimWhitespace(body), "{");
}

Result<size_t> FooterLength(std::string_view tail, uint64_t offset) {
  const uint64_t last = offset + tail.size() - std::min<size_t>(tail.size(), 4);
  if (tail.size() >= 4 && tail.substr(tail.size() - 4) == kEncryptedMagic) {
    return Fail(ErrorCode::kUnimplemented,
                fmt::format("byte {}: an encrypted Parquet file (\"PARE\"); encrypted files are "
                            "not supported",
                            last));
  }
  if (tail.size() < kTailBytes || tail.substr(tail.size() - 4) != kMagic) {
    return InvalidArgument(
        fmt::format("byte {}: not a Parquet file (no \"PAR1\" at the end; truncated?)", last));
  }
  uint32_t length = 0;
  std::memcpy(&length, tail.data() + tail.size() - kTailBytes, 4);  // little-endian hosts
  return static_cast<size_t>(length);
}

Result<schema::Converted<schema::SchemaPtr>> ReadSchema(std::string_view content, uint64_t offset) {
  std::vector<pq::SchemaElement> elements;
  const bool binary =
      StartsWith(content, kMagic) ||
      (content.size() >= 4 && (content.substr(content.size() - 4) == kMagic ||
                               content.substr(content.size() - 4) == kEncryptedMagic));
  if (content.empty()) return InvalidArgument("an empty file: neither Parquet nor a message type");
  if (binary) {
    SLUICE_ASSIGN_OR_RETURN(size_t length, FooterLength(content, offset));
    if (length > content.size() - kTailBytes) {
      return InvalidArgument(
          fmt::format("byte {}: the footer's length ({} bytes) runs past the start of the file",
                      offset + content.size() - kTailBytes, length));
    }
    const size_t start = content.size() - kTailBytes - length;
    auto meta = pq::ReadFileMetaData(content.substr(start, length));
    if (!meta.has_value()) {
      return Fail(meta.error().WithContext(fmt::format("footer at byte {}", offset + start)));
    }
    elements = std::move(meta->schema);
  } else {
    SLUICE_ASSIGN_OR_RETURN(elements, pq::ParseMessageType(content));
  }
  SLUICE_ASSIGN_OR_RETURN(schema::Converted<pq::ParquetSchema> read,
                          pq::ParquetSchema::FromElements(std::move(elements)));
  return schema::Converted<schema::SchemaPtr>{read.value.model(), std::move(read.notes)};
}

namespace {

// What a message type has no place for: field docs, defaults and metadata other than the
// field id, at any depth.
void NoteDropped(const schema::Type& type, const schema::FieldPath& path, schema::NoteSink& notes) {
  if (type.is_struct()) {
    for (const schema::Field& f : type.fields()) {
      const schema::FieldPath at = path.Child(f.name());
      if (f.doc().has_value()) notes.Add(at, "a Parquet schema has no place for docs: dropped");
      if (f.default_value().has_value()) {
        notes.Add(at, "a Parquet schema has no place for defaults: dropped");
      }
      for (const JsonMember& m : f.metadata().members()) {
        if (m.key != pq::kParquetFieldIdKey && m.key != pq::kColumnMappingIdKey) {
          notes.Add(at, "field metadata '" + m.key + "' has no place in a Parquet schema");
        }
      }
      NoteDropped(*f.type(), at, notes);
    }
  } else if (type.is_array()) {
    NoteDropped(*type.element_type(), path.Element(), notes);
  } else if (type.is_map()) {
    NoteDropped(*type.key_type(), path.Key(), notes);
    NoteDropped(*type.value_type(), path.Value(), notes);
  }
}

}  // namespace

Result<schema::Converted<std::string>> WriteSchema(const schema::Schema& schema) {
  SLUICE_ASSIGN_OR_RETURN(schema::SchemaPtr copy,
                          schema::Schema::FromStruct(schema.struct_type(), schema.info()));
  SLUICE_ASSIGN_OR_RETURN(schema::Converted<pq::ParquetSchema> written,
                          pq::ParquetSchema::FromModel(std::move(copy)));
  schema::NoteSink notes;
  notes.notes() = std::move(written.notes);
  NoteDropped(*schema.struct_type(), schema::FieldPath(), notes);
  return schema::Converted<std::string>{pq::MessageTypeText(written.value.elements()),
                                        notes.Take()};
}

}  // namespace sluice::dialects::parquet
