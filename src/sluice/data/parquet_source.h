// Parquet files as record input: a file's rows read as JSON lines, one row group at a time, so
// that validation runs over them exactly as over JSON lines (maps as JSON objects keyed by the
// key's text, the form the validator reads); and the schemas of several files merged as
// Spark's mergeSchema for Parquet merges them.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "sluice/base/file_system.h"
#include "sluice/base/result.h"
#include "sluice/schema/conversion.h"
#include "sluice/schema/schema.h"

namespace sluice::data {

/// Whether `path` names a Parquet file: its name ends in .parquet, or `head` (its first bytes)
/// is Parquet's magic "PAR1".
bool IsParquetFile(const std::string& path, std::string_view head);

/// `path`'s rows as JSON lines, one per row, each ended by '\n'. Errors of the file (it is not
/// Parquet, a page does not decode) name the file and byte offset; they surface from Open or
/// from a Read.
Result<std::unique_ptr<SequentialFile>> OpenParquetRows(FileSystem& fs, const std::string& path);

/// The schema of each file's footer, merged in order as Spark's StructType.merge does for
/// Parquet's mergeSchema: fields matched by name, a field only some files have added at the
/// end (nullable), nullable where any file has it nullable, structs merged member by member,
/// array elements and map keys and values merged; any other difference of type is an error
/// naming the field and both files. `rows`, when given, gets the files' rows summed.
Result<schema::Converted<schema::SchemaPtr>> MergeParquetSchemas(
    FileSystem& fs, const std::vector<std::string>& files, uint64_t* rows = nullptr);

}  // namespace sluice::data
