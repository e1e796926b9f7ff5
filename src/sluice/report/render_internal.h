// Helpers the renderers share; not for use outside src/sluice/report.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "sluice/base/json_writer.h"
#include "sluice/evolution/diff.h"

namespace sluice::report::internal {

/// Escape text for a GitHub Actions workflow command: `GithubData` for the message (%, CR,
/// LF), `GithubProperty` for a property value such as `file=` or `title=` (also ':' and ',').
std::string GithubData(std::string_view s);
std::string GithubProperty(std::string_view s);

/// What a word in a text report says, and so its colour: red for what breaks, yellow for what
/// warns, green for what holds.
enum class Tone : uint8_t { kBad, kWarn, kGood };

/// `text` in the tone's ANSI colour when `color`, else as it is.
std::string Paint(std::string_view text, Tone tone, bool color);

/// `s` with every byte that is not part of valid UTF-8 replaced by U+FFFD, so JSON built from
/// names read from files stays valid JSON.
std::string ValidUtf8(std::string_view s);

/// A writer for a JSON report: indented by two spaces, as every JSON report is.
JsonWriter ReportWriter();

/// The finished document with the newline that ends every JSON report.
std::string Finish(JsonWriter& w);

/// A string, or null when absent.
void OptionalString(JsonWriter& w, const std::optional<std::string>& s);

/// The members "changes", "hints" and "summary" of a diff report (docs/formats/diff-report.md),
/// written into the object `w` is in; defined in diff_render.cc.
void WriteDiffMembers(JsonWriter& w, const evolution::SchemaDiff& diff);

}  // namespace sluice::report::internal
