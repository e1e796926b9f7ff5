// Partition values (PROTOCOL.md "Partition Value Serialization"): the strings an add action's
// `partitionValues` holds, from and to the JSON form of records (what the validator writes and
// what rows read from Parquet carry), per type:
//
//   type            partitionValues text (written)        record value (read)
//   string          as it is                              "text"
//   int8..int64     decimal digits                        42
//   float, double   as Java prints them: "1.0", "1.0E10"  1, 1e+10 ("NaN" as a string)
//   decimal(p, s)   exactly s digits after the point      0.00004
//   date            yyyy-MM-dd                            "2021-09-08"
//   timestamp       ISO-8601 in UTC with microseconds,    "2021-09-08T11:11:11Z"
//                   "2021-09-08T11:11:11.000000Z" (Delta 3 and 4 write this form)
//   timestamp_ntz   "2021-09-08 11:11:11[.ffffff]"        "2021-09-08T11:11:11"
//   boolean         true / false                          true
//   binary          the bytes, which must be UTF-8        base64 "AQI="
//   null            JSON null                             null
//
// Reading accepts both timestamp forms Delta has written: ISO-8601 with a zone, and the older
// `yyyy-MM-dd HH:mm:ss[.f]`, whose zone was the writer's session zone and is read as UTC here.
// An empty string reads as null for every type.
#pragma once

#include <optional>
#include <string_view>

#include "sluice/base/json.h"
#include "sluice/base/result.h"
#include "sluice/schema/type.h"

namespace sluice::table {

/// The `partitionValues` entry for `value` (a record's value of partition column `column`, of
/// `type`): a JSON string, or JSON null for null and for an empty string or binary (which Delta
/// reads as null). kInvalidArgument naming the column and value when the value does not fit the
/// type, or the type cannot partition a Delta table (struct, array, map, time, uuid).
Result<JsonValue> SerializePartitionValue(std::string_view column, const schema::Type& type,
                                          const JsonValue& value);

/// The typed record value of partition column `column` from its `partitionValues` text (nullopt
/// or "" for null). kInvalidArgument naming the column and text when the text is no value of
/// `type`.
Result<JsonValue> ParsePartitionValue(std::string_view column, const schema::Type& type,
                                      std::optional<std::string_view> text);

/// The same for a `partitionValues` member as the log holds it: a string or null.
Result<JsonValue> ParsePartitionValue(std::string_view column, const schema::Type& type,
                                      const JsonValue& entry);

}  // namespace sluice::table
