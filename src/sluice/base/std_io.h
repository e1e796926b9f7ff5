// Standard input and output as files, and the command-line convention that "-" names them:
// every command that reads or writes a path accepts "-" through these helpers.
#pragma once

#include <memory>
#include <string>
#include <string_view>

#include "sluice/base/file_system.h"

namespace sluice {

/// Standard input as a file read once from start to end.
std::unique_ptr<SequentialFile> NewStandardInput();

/// Standard output (fd 1) or standard error (fd 2) as a file; Commit flushes.
std::unique_ptr<WritableFile> NewStandardOutput(int fd = 1);

/// True if `path` names a standard stream: "-" (or, for outputs, the empty path).
inline bool IsStandardStream(std::string_view path) { return path.empty() || path == "-"; }

/// Open `path` through `fs`, or standard input for "-".
Result<std::unique_ptr<SequentialFile>> OpenInput(FileSystem& fs, std::string_view path);

/// Read all of `path` through `fs`, or standard input for "-". kInvalidArgument past `max_bytes`.
Result<std::string> ReadInput(FileSystem& fs, std::string_view path, size_t max_bytes);

/// Read up to `n` bytes from the start of `path` (to detect its format); what is there if the
/// file is shorter, and an empty string if it cannot be read (the real read reports why).
std::string PeekFile(FileSystem& fs, std::string_view path, size_t n);

/// Start writing `path` through `fs` (replaced atomically at Commit, devices written in
/// place), or the standard stream `std_fd` for "" and "-".
Result<std::unique_ptr<WritableFile>> OpenOutput(FileSystem& fs, std::string_view path,
                                                 int std_fd = 1, const WriteOptions& options = {});

/// Write `text` to `path` through `fs` atomically, or to standard output for "" and "-".
Status WriteOutput(FileSystem& fs, std::string_view path, std::string_view text);

}  // namespace sluice
