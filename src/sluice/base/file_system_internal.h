// POSIX helpers shared by the local file system and the standard streams; not for other modules.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include "sluice/base/result.h"

namespace sluice::internal {

/// An Error for a failed system call: kNotFound for ENOENT/ENOTDIR, kAlreadyExists for EEXIST,
/// kInvalidArgument for EISDIR, kIoError otherwise; "<path>: <what>: <strerror>".
Unexpected<Error> ErrnoError(std::string_view what, std::string_view path, int err);

/// Write all of `data` to `fd`, retrying short writes and EINTR.
Status WriteAllToFd(int fd, std::string_view data, std::string_view name);

/// One read(2) of up to `n` bytes, retrying EINTR; 0 at the end.
Result<size_t> ReadFromFd(int fd, char* buf, size_t n, std::string_view name);

/// Gathers small writes into large ones; writes of a block or more go straight through. Does
/// not own the descriptor.
class BufferedFdWriter {
 public:
  BufferedFdWriter(int fd, std::string name) : fd_(fd), name_(std::move(name)) {}
  ~BufferedFdWriter();
  Status Write(std::string_view bytes);
  Status Flush();

 private:
  static constexpr size_t kDirectWriteBytes = size_t{64} << 10;
  static constexpr size_t kBufferBytes = size_t{1} << 20;
  int fd_;
  std::string name_;
  std::string buffer_;
};

}  // namespace sluice::internal
