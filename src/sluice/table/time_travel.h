// The instants of time travel and history as text: what `--timestamp` accepts and how a commit's
// time is written. Every instant is milliseconds since the Unix epoch, UTC.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "sluice/base/result.h"

namespace sluice::table {

/// Read an instant: milliseconds since the epoch (`1603724024783`), a date (`2020-10-26`, its
/// midnight UTC), or a date and time (`2020-10-26T14:53:44`, a space may stand for the `T`)
/// with optional seconds, a fraction of up to nine digits (kept to the millisecond) and a zone
/// (`Z`, `+02:00`, `-0700`); a time without a zone is UTC. kInvalidArgument naming the text
/// otherwise.
Result<int64_t> ParseTimestampMs(std::string_view text);

/// `2020-10-26T14:53:44.783Z`: the fraction only when `millis`, `separator` between the date
/// and the time (a space reads better in text reports).
std::string FormatTimestampMs(int64_t ms, bool millis = true, char separator = 'T');

}  // namespace sluice::table
