// The rule Auto Loader merges the schemas of files that carry their types (Avro writer
// schemas, Parquet footers) with: where two files disagree on a column's atomic type, the
// widest of the two. MergeAvroSchemas always merges by it; MergeParquetSchemas when asked
// (ParquetSchemaMerge::kAutoLoader), as ingest's inference does.
#pragma once

#include "sluice/schema/type.h"

namespace sluice::data::internal {

/// Return the narrowest type both atomic types read as, or null when there is none. Integers
/// widen to wider integers, integers of up to 32 bits and float32 to float64, and integers and
/// decimals to the decimal holding both (Spark's DecimalPrecision.widerDecimalType: the larger
/// scale and the larger count of integer digits, the precision capped at 38); date to
/// timestamp and timestamp_ntz; a timestamp or time to the finer unit. Null gives way to any.
schema::TypePtr WiderAtomicType(const schema::TypePtr& a, const schema::TypePtr& b);

}  // namespace sluice::data::internal
