// Row screening: judging each row against a model struct type while it is assembled, so that a
// caller who would otherwise parse every row's JSON text back (record validation) only has to
// look again at the rows the screen did not pass.
//
// A screen applies to a file whose fields are exactly the screen type's, at every level (names
// equal, any order; types equal; no maps; the leaf types listed below), plus at most one extra
// top-level string field that must always be null (the rescued-data column a validating writer
// left empty). A row passes when nothing in it could make a reader of its JSON text see other
// than what the file holds in the screen's type:
// - no null where the screen type says not null (a field, an array element);
// - int8/int16: within the type's range (an annotated INT32 may hold more);
// - float32: written without an exponent (its largest values, printed shortest, read back past
//   its range);
// - decimal(p,s): at most p digits (the text has exactly s after the point);
// - date, timestamp, timestamp_ntz: a four-digit year;
// - boolean, int32, int64, float64 (NaN and the infinities print as the strings a reader
//   takes), string (invalid UTF-8 is already replaced): every value.
// The screen is an optimisation with no meaning of its own: a row that fails is not wrong, only
// not vouched for.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "sluice/parquet/assembly_plan.h"
#include "sluice/schema/type.h"

namespace sluice::parquet {

struct RowScreen {
  /// The struct type rows are judged against.
  schema::TypePtr type;
  /// A top-level string field the file may hold beyond `type`'s, last, which must be null.
  std::string null_only;
};

struct ScreenedPlan {
  /// Every column of the file, with the screen's checks set on its nodes.
  AssemblyPlan plan;
  /// Whether the file holds RowScreen::null_only.
  bool holds_null_only = false;
};

/// The plan for reading every column of `schema` with `screen`'s checks; nullopt when the
/// screen does not apply to the file (see above).
std::optional<ScreenedPlan> PlanRowScreen(const ReadSchema& schema, const RowScreen& screen);

/// Whether a value's text passes `check` (with `arg`, the digits of kDigits).
bool PassesScreen(ScreenCheck check, uint8_t arg, const char* text, size_t size);

/// Whether a value of a leaf printed by `format` passes `screen`, judged on the value itself
/// rather than its text (reads that need no text). Never more lenient than the text's check:
/// what this passes, the text passes too; what the type cannot be sure of (a wide decimal, an
/// INT96 timestamp) fails and is left to the text.
bool PassesScreen(const ValueFormat& format, const ValueScreen& screen, bool v);
bool PassesScreen(const ValueFormat& format, const ValueScreen& screen, int32_t v);
bool PassesScreen(const ValueFormat& format, const ValueScreen& screen, int64_t v);
bool PassesScreen(const ValueFormat& format, const ValueScreen& screen, const Int96& v);
bool PassesScreen(const ValueFormat& format, const ValueScreen& screen, float v);
bool PassesScreen(const ValueFormat& format, const ValueScreen& screen, double v);
bool PassesScreen(const ValueFormat& format, const ValueScreen& screen, std::string_view v);

}  // namespace sluice::parquet
