// For tests: a ByteSink that keeps what it is given in a string, and can fail as a full disk
// would.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "sluice/base/file_system.h"

namespace sluice::testing {

/// A sink that keeps what it is given in `text`. With `fail_after` set, a write that would take
/// it past that many bytes fails as a full disk would, keeping nothing of that write (for tests of
/// write errors).
class StringSink final : public ByteSink {
 public:
  Status Write(std::string_view bytes) override {
    if (fail_after >= 0 && static_cast<int64_t>(text.size() + bytes.size()) > fail_after) {
      return IoError("disk full");
    }
    text.append(bytes);
    return Ok();
  }
  std::string text;
  int64_t fail_after = -1;
};

}  // namespace sluice::testing
