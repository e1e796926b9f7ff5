// The file system interface every module reads and writes through, so tests can run in memory.
#pragma once

#include <cstddef>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "sluice/base/result.h"

namespace sluice {

/// Paths are '/'-separated. Implementations are safe to call from several threads.
class FileSystem {
 public:
  virtual ~FileSystem() = default;

  /// Read a whole file. kNotFound if absent; kInvalidArgument if larger than `max_bytes`.
  virtual Result<std::string> ReadFile(std::string_view path,
                                       size_t max_bytes = kDefaultMaxRead) = 0;
  /// Replace `path` with `data` atomically: readers see the old or the new content, never a part.
  virtual Status WriteFile(std::string_view path, std::string_view data) = 0;
  /// Create `path` with `data` only if it does not exist; kAlreadyExists otherwise.
  virtual Status CreateFileExclusive(std::string_view path, std::string_view data) = 0;
  virtual Result<bool> Exists(std::string_view path) = 0;
  /// Names (not paths) of the entries of a directory, sorted.
  virtual Result<std::vector<std::string>> ListDir(std::string_view path) = 0;
  /// Create a directory and its parents; succeed if it exists.
  virtual Status CreateDirs(std::string_view path) = 0;
  virtual Status RemoveFile(std::string_view path) = 0;

  static constexpr size_t kDefaultMaxRead = size_t{1} << 30;
};

/// The machine's own file system.
std::unique_ptr<FileSystem> NewLocalFileSystem();

/// A file system held in memory, for tests. Directories exist implicitly.
class MemoryFileSystem final : public FileSystem {
 public:
  Result<std::string> ReadFile(std::string_view path, size_t max_bytes) override;
  using FileSystem::ReadFile;
  Status WriteFile(std::string_view path, std::string_view data) override;
  Status CreateFileExclusive(std::string_view path, std::string_view data) override;
  Result<bool> Exists(std::string_view path) override;
  Result<std::vector<std::string>> ListDir(std::string_view path) override;
  Status CreateDirs(std::string_view path) override;
  Status RemoveFile(std::string_view path) override;

 private:
  std::mutex mu_;
  std::map<std::string, std::string, std::less<>> files_;
};

}  // namespace sluice
