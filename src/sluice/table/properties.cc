#include "sluice/table/properties.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <span>
#include <string>
#include <vector>

#include "sluice/base/strings.h"

namespace sluice::table {
namespace {

// The form a value must have; the help texts are Delta's (DeltaConfigs).
enum class ValueForm : uint8_t {
  kAny,
  kBoolean,
  kPositiveInteger,
  kIntegerFromMinusOne,
  kNonNegativeInteger,
  kReaderVersion,
  kWriterVersion,
  kInterval,
  kColumnMappingMode,
  kIsolationLevel,
  kCheckpointPolicy,
};

struct KnownProperty {
  std::string_view key;  // Delta's spelling, which the configuration stores
  ValueForm form;
};

// The table properties Delta knows; an unknown delta.* key is refused, as Delta does.
constexpr KnownProperty kKnown[] = {
    {"delta.appendOnly", ValueForm::kBoolean},
    {"delta.autoOptimize.autoCompact", ValueForm::kAny},
    {"delta.autoOptimize.optimizeWrite", ValueForm::kBoolean},
    {"delta.checkpoint.writeStatsAsJson", ValueForm::kBoolean},
    {"delta.checkpoint.writeStatsAsStruct", ValueForm::kBoolean},
    {"delta.checkpointInterval", ValueForm::kPositiveInteger},
    {"delta.checkpointPolicy", ValueForm::kCheckpointPolicy},
    {"delta.columnMapping.mode", ValueForm::kColumnMappingMode},
    {"delta.dataSkippingNumIndexedCols", ValueForm::kIntegerFromMinusOne},
    {"delta.dataSkippingStatsColumns", ValueForm::kAny},
    {"delta.dataSkippingStringPrefixLength", ValueForm::kNonNegativeInteger},
    {"delta.deletedFileRetentionDuration", ValueForm::kInterval},
    {"delta.enableChangeDataFeed", ValueForm::kBoolean},
    {"delta.enableDeletionVectors", ValueForm::kBoolean},
    {"delta.enableIcebergCompatV1", ValueForm::kBoolean},
    {"delta.enableIcebergCompatV2", ValueForm::kBoolean},
    {"delta.enableInCommitTimestamps", ValueForm::kBoolean},
    {"delta.enableRowTracking", ValueForm::kBoolean},
    {"delta.enableTypeWidening", ValueForm::kBoolean},
    {"delta.isolationLevel", ValueForm::kIsolationLevel},
    {"delta.logRetentionDuration", ValueForm::kInterval},
    {"delta.minReaderVersion", ValueForm::kReaderVersion},
    {"delta.minWriterVersion", ValueForm::kWriterVersion},
    {"delta.parquet.compression.codec", ValueForm::kAny},
    {"delta.randomizeFilePrefixes", ValueForm::kBoolean},
    {"delta.setTransactionRetentionDuration", ValueForm::kInterval},
    {"delta.targetFileSize", ValueForm::kAny},
    {"delta.tuneFileSizesForRewrites", ValueForm::kBoolean},
    {"delta.universalFormat.enabledFormats", ValueForm::kAny},
};

const KnownProperty* Find(std::string_view key) {
  const std::string lower = AsciiLower(key);
  for (const KnownProperty& p : kKnown) {
    if (AsciiLower(p.key) == lower) return &p;
  }
  return nullptr;
}

std::optional<int64_t> Integer(std::string_view text) {
  int64_t v = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec != std::errc() || end != text.data() + text.size() || text.empty()) return std::nullopt;
  return v;
}

std::vector<std::string> Words(std::string_view text) {
  std::vector<std::string> out;
  size_t i = 0;
  while (i < text.size()) {
    while (i < text.size() && std::isspace(static_cast<unsigned char>(text[i]))) ++i;
    size_t start = i;
    while (i < text.size() && !std::isspace(static_cast<unsigned char>(text[i]))) ++i;
    if (i > start) out.push_back(AsciiLower(text.substr(start, i - start)));
  }
  return out;
}

// A calendar interval as Delta takes it for retention durations: "[interval] N unit [N unit]...",
// days and smaller units (weeks too), never months or years, not negative.
bool IsRetentionInterval(std::string_view text) {
  std::vector<std::string> words = Words(text);
  std::span<const std::string> rest(words);
  if (!rest.empty() && rest.front() == "interval") rest = rest.subspan(1);
  if (rest.empty() || rest.size() % 2 != 0) return false;
  static constexpr std::string_view kUnits[] = {"microsecond", "millisecond", "second", "minute",
                                                "hour",        "day",         "week"};
  for (size_t i = 0; i < rest.size(); i += 2) {
    std::optional<int64_t> n = Integer(rest[i]);
    if (!n || *n < 0) return false;
    std::string_view unit = rest[i + 1];
    if (unit.ends_with('s')) unit.remove_suffix(1);
    if (std::find(std::begin(kUnits), std::end(kUnits), unit) == std::end(kUnits)) return false;
  }
  return true;
}

// Delta's help text for a value of the wrong form, or "" when the value fits.
std::string_view Misfit(ValueForm form, std::string_view value) {
  const std::string lower = AsciiLower(value);
  const std::optional<int64_t> n = Integer(value);
  switch (form) {
    case ValueForm::kAny:
      return "";
    case ValueForm::kBoolean:
      return lower == "true" || lower == "false" ? "" : "needs to be a boolean.";
    case ValueForm::kPositiveInteger:
      return n && *n > 0 ? "" : "needs to be a positive integer.";
    case ValueForm::kIntegerFromMinusOne:
      return n && *n >= -1 ? "" : "needs to be larger than or equal to -1.";
    case ValueForm::kNonNegativeInteger:
      return n && *n >= 0 ? "" : "needs to be greater than or equal to 0.";
    case ValueForm::kReaderVersion:
      return n && *n >= 1 && *n <= 3 ? "" : "needs to be one of 1, 2, 3.";
    case ValueForm::kWriterVersion:
      return n && *n >= 1 && *n <= 7 ? "" : "needs to be one of 1, 2, 3, 4, 5, 6, 7.";
    case ValueForm::kInterval:
      return IsRetentionInterval(value)
                 ? ""
                 : "needs to be provided as a calendar interval such as '2 weeks'. Months and "
                   "years are not accepted. You may specify '365 days' for a year instead.";
    case ValueForm::kColumnMappingMode:
      return value == "none" || value == "name" || value == "id"
                 ? ""
                 : "needs to be one of none, name, id.";
    case ValueForm::kIsolationLevel:
      return value == "Serializable" ? "" : "must be Serializable";
    case ValueForm::kCheckpointPolicy:
      return value == "classic" || value == "v2" ? "" : "needs to be one of 'classic' or 'v2'.";
  }
  return "";
}

}  // namespace

Status CheckTableProperty(std::string_view key, std::string_view value) {
  const std::string lower = AsciiLower(key);
  if (!lower.starts_with("delta.") || lower.starts_with("delta.constraints.")) return Ok();
  if (lower.starts_with("delta.feature.")) {
    return Unimplemented(
        fmt::format("{}: sluice does not add table features by property; the protocol follows the "
                    "table's properties and schema (docs/formats/delta.md, Protocol)",
                    key));
  }
  const KnownProperty* known = Find(key);
  if (known == nullptr) {
    return InvalidArgument(
        fmt::format("[DELTA_UNKNOWN_CONFIGURATION] unknown configuration was specified: {}", key));
  }
  if (std::string_view why = Misfit(known->form, value); !why.empty()) {
    return InvalidArgument(fmt::format("{} {} (given: '{}')", known->key, why, value));
  }
  return Ok();
}

Result<TableProperties> SplitTableProperties(const StringMap& given) {
  TableProperties out;
  for (const auto& [key, value] : given) {
    SLUICE_TRY(CheckTableProperty(key, value));
    const KnownProperty* known = Find(key);
    if (known == nullptr) {
      out.configuration[key] = value;
    } else if (known->form == ValueForm::kReaderVersion) {
      out.min_reader_version = static_cast<int>(*Integer(value));
    } else if (known->form == ValueForm::kWriterVersion) {
      out.min_writer_version = static_cast<int>(*Integer(value));
    } else {
      // Stored under Delta's spelling, as Delta normalizes the keys it knows.
      out.configuration[std::string(known->key)] = value;
    }
  }
  return out;
}

}  // namespace sluice::table
