#include "sluice/parquet/schema_map.h"

#include "sluice/parquet/schema_map_internal.h"

namespace sluice::parquet {

Result<schema::Converted<ParquetSchema>> ParquetSchema::FromModel(
    schema::SchemaPtr model, const WriteSchemaOptions& options) {
  schema::NoteSink notes;
  SLUICE_ASSIGN_OR_RETURN(internal::SchemaParts parts,
                          internal::BuildFromModel(std::move(model), options, notes));
  return schema::Converted<ParquetSchema>{
      ParquetSchema(std::move(parts.elements), std::move(parts.model), std::move(parts.nodes),
                    std::move(parts.leaves)),
      notes.Take()};
}

Result<schema::Converted<ParquetSchema>> ParquetSchema::FromElements(
    std::vector<SchemaElement> elements) {
  schema::NoteSink notes;
  SLUICE_ASSIGN_OR_RETURN(internal::SchemaParts parts,
                          internal::BuildFromElements(std::move(elements), notes));
  return schema::Converted<ParquetSchema>{
      ParquetSchema(std::move(parts.elements), std::move(parts.model), std::move(parts.nodes),
                    std::move(parts.leaves)),
      notes.Take()};
}

}  // namespace sluice::parquet
