// Z85 (ZeroMQ RFC 32), the base-85 text Delta stores inline deletion vectors and the uuids of
// deletion vector file names in: four bytes, read big-endian, become five characters.
#pragma once

#include <string>
#include <string_view>

#include "sluice/base/result.h"

namespace sluice::table {

/// Return the Z85 text of `bytes`. As Delta does, a length that is no multiple of 4 is padded
/// with zero bytes first; the reader drops the padding by the size it knows (`sizeInBytes`).
std::string Z85Encode(std::string_view bytes);

/// Decode Z85 `text` (a length that is a multiple of 5). kInvalidArgument naming the character
/// offset for another length, a character outside the alphabet, or a group past 2^32 - 1.
Result<std::string> Z85Decode(std::string_view text);

}  // namespace sluice::table
