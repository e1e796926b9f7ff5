// Where a partitioned table's files go: Hive-style directories (`col=value/col2=value2/`, values
// escaped as Hive's FileUtils.escapePathName does), and the URI-encoded form of a relative path
// that an add action's `path` holds (PROTOCOL.md: "a URI as specified by RFC 2396"). A value with
// a ':' thus appears twice-encoded in the log: `ts=2021-09-08 11%3A11` on disk is
// `ts=2021-09-08%2011%253A11` in `path`. Readers decode `path` once and find the file.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "sluice/base/json.h"
#include "sluice/base/result.h"

namespace sluice::table {

/// The directory name Hive and Spark give a null (or empty) partition value.
inline constexpr std::string_view kHiveDefaultPartition = "__HIVE_DEFAULT_PARTITION__";

/// Hive's escapePathName: each byte 0x00-0x1F and 0x7F, and each of `"#%'*/:=?\[]^{`, becomes
/// %XX (upper-case hex); every other byte, non-ASCII UTF-8 included, stays.
std::string EscapePartitionPathName(std::string_view text);

/// Hive's unescapePathName: each %XX (two hex digits, either case) becomes its byte; a '%' not
/// followed by two hex digits stays as it is.
std::string UnescapePartitionPathName(std::string_view text);

/// `column=value`, both escaped; a null or empty value gives `column=__HIVE_DEFAULT_PARTITION__`.
std::string PartitionDirectoryName(std::string_view column, std::optional<std::string_view> value);

/// The directory `a=1/b=x/` of a file whose add action's `partitionValues` object is
/// `partition_values`, in the order of `columns` (the table's partitionColumns); "" for none.
/// kInvalidArgument naming the column when it is missing or holds neither a string nor null.
Result<std::string> PartitionDirectory(const std::vector<std::string>& columns,
                                       const JsonValue& partition_values);

/// The (column, value) pairs of a Hive-style directory path `a=1/b=%3A/` (a trailing '/' is
/// optional), unescaped; the default partition gives nullopt. kInvalidArgument naming the
/// segment for one without '=' or with an empty column name.
Result<std::vector<std::pair<std::string, std::optional<std::string>>>> ParsePartitionDirectory(
    std::string_view directory);

/// The `path` of an add action for the file at `relative_path`, URI-encoded as Delta writes it
/// (java.net.URI's quoting): ASCII letters and digits, `-_.!~*'()`, `,;$&+=`, `/`, `@` and ':'
/// (outside the first segment, where it would read as a scheme) stay, and so do non-ASCII
/// characters other than controls and spaces; every other byte becomes %XX.
std::string EncodeAddPath(std::string_view relative_path);

/// The offset of the first character of `path` that a URI must encode (java.net.URI refuses it
/// unquoted, or reads it as the start of a query or fragment): an ASCII byte EncodeAddPath
/// would quote other than '%' and ':' (a scheme's), a control or space character, an invalid
/// UTF-8 byte; nullopt when there is none.
std::optional<size_t> FindUnencodedCharacter(std::string_view path);

/// Decode a URI-encoded `path` (of an add, remove or cdc action, or a DV's absolute path) once:
/// each %XX becomes its byte. kInvalidArgument naming the offset for a '%' without two hex
/// digits or an encoded NUL byte.
Result<std::string> DecodeAddPath(std::string_view path);

}  // namespace sluice::table
