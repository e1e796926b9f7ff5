// The file system interface every module reads and writes through, as LevelDB passes its Env:
// library entry points take a FileSystem, so tests run in memory and an object store is one
// more implementation.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "sluice/base/result.h"

namespace sluice {

/// Where bytes go, in order: a file being written, a buffer, a network stream.
class ByteSink {
 public:
  virtual ~ByteSink() = default;
  virtual Status Write(std::string_view bytes) = 0;
};

/// A sink that keeps nothing.
class DiscardSink final : public ByteSink {
 public:
  Status Write(std::string_view) override { return Ok(); }
};

enum class FileKind : uint8_t {
  kFile,
  kDirectory,
  kOther,  // a device, pipe or socket
};

/// What a listing or Stat says about one entry.
struct FileInfo {
  /// The entry's name in its directory (ListFiles), or the path asked about (Stat).
  std::string name;
  FileKind kind = FileKind::kFile;
  uint64_t size = 0;
  /// Last modification, in milliseconds since the Unix epoch.
  int64_t modified_ms = 0;
};

/// A file read from start to end. Not thread-safe.
class SequentialFile {
 public:
  virtual ~SequentialFile() = default;
  /// Read up to `n` bytes into `buf`; 0 only at the end of the file.
  virtual Result<size_t> Read(char* buf, size_t n) = 0;
  /// The file's size when known before reading it (a regular file), else nullopt.
  virtual std::optional<uint64_t> size() const = 0;
};

/// A file read at any offset. Safe to read from several threads at once.
class RandomAccessFile {
 public:
  virtual ~RandomAccessFile() = default;
  virtual uint64_t size() const = 0;
  /// Read up to `n` bytes at `offset` into `buf`; fewer only at the end of the file.
  virtual Result<size_t> ReadAt(uint64_t offset, size_t n, char* buf) const = 0;
  /// The whole file as one view, when the implementation holds it in memory or has mapped it
  /// (local files are mmap'ed); nullopt otherwise. Valid while this object lives.
  virtual std::optional<std::string_view> Mapped() const { return std::nullopt; }
};

/// A file being written. Nothing appears under its name until Commit; destroying it without a
/// Commit discards what was written.
class WritableFile : public ByteSink {
 public:
  /// Flush, and move the file into place: readers see the old content or the new, never a part.
  virtual Status Commit() = 0;
};

struct WriteOptions {
  /// Flush the data to stable storage before the file takes its name (fsync). Off for outputs
  /// that can be recomputed; on for logs and commits.
  bool sync = true;
};

/// Paths are '/'-separated. Implementations are safe to call from several threads.
class FileSystem {
 public:
  virtual ~FileSystem() = default;

  /// Read a whole file. kNotFound if absent; kInvalidArgument if larger than `max_bytes` or a
  /// directory.
  virtual Result<std::string> ReadFile(std::string_view path,
                                       size_t max_bytes = kDefaultMaxRead) = 0;
  /// Replace `path` with `data` atomically: readers see the old or the new content, never a part.
  /// A local device or pipe (/dev/null, /dev/stdout) is written directly, never replaced.
  virtual Status WriteFile(std::string_view path, std::string_view data) = 0;
  /// Create `path` with `data` only if it does not exist; kAlreadyExists otherwise. This is the
  /// commit primitive of table logs: of two writers racing for one name, exactly one wins.
  virtual Status CreateFileExclusive(std::string_view path, std::string_view data) = 0;

  /// Open a file to read from start to end. kNotFound if absent, kInvalidArgument for a folder.
  virtual Result<std::unique_ptr<SequentialFile>> OpenSequential(std::string_view path) = 0;
  /// Open a file to read at any offset (mapped where the implementation can).
  virtual Result<std::unique_ptr<RandomAccessFile>> OpenRandomAccess(std::string_view path) = 0;
  /// Start writing `path`; it is replaced atomically at Commit (as WriteFile).
  virtual Result<std::unique_ptr<WritableFile>> OpenWritable(std::string_view path,
                                                             const WriteOptions& options = {}) = 0;

  virtual Result<bool> Exists(std::string_view path) = 0;
  /// What `path` is. kNotFound if absent.
  virtual Result<FileInfo> Stat(std::string_view path) = 0;
  /// Names (not paths) of the entries of a directory, sorted.
  virtual Result<std::vector<std::string>> ListDir(std::string_view path) = 0;
  /// The entries of a directory with kinds, sizes and modification times, sorted by name.
  virtual Result<std::vector<FileInfo>> ListFiles(std::string_view path) = 0;
  /// Create a directory and its parents; succeed if it exists.
  virtual Status CreateDirs(std::string_view path) = 0;
  virtual Status RemoveFile(std::string_view path) = 0;
  /// Move a file to a new name, replacing what was there.
  virtual Status Rename(std::string_view from, std::string_view to) = 0;
  /// Cut `path` to its first `offset` bytes, then write `data` after them, synced before it
  /// returns; a missing file is created (offset must then be 0). Repeating a call that was cut
  /// short leaves the same file, which is what a log appended to exactly once needs.
  /// kInvalidArgument when the file is shorter than `offset`.
  virtual Status AppendAt(std::string_view path, uint64_t offset, std::string_view data) = 0;

  static constexpr size_t kDefaultMaxRead = size_t{1} << 30;
};

/// The machine's own file system.
std::unique_ptr<FileSystem> NewLocalFileSystem();

/// One local file system shared by the whole process: the default of every option that takes a
/// file system.
const std::shared_ptr<FileSystem>& LocalFileSystem();

/// A file system held in memory, for tests. Directories exist implicitly.
class MemoryFileSystem final : public FileSystem {
 public:
  Result<std::string> ReadFile(std::string_view path, size_t max_bytes = kDefaultMaxRead) override;
  Status WriteFile(std::string_view path, std::string_view data) override;
  Status CreateFileExclusive(std::string_view path, std::string_view data) override;
  Result<std::unique_ptr<SequentialFile>> OpenSequential(std::string_view path) override;
  Result<std::unique_ptr<RandomAccessFile>> OpenRandomAccess(std::string_view path) override;
  Result<std::unique_ptr<WritableFile>> OpenWritable(std::string_view path,
                                                     const WriteOptions& options = {}) override;
  Result<bool> Exists(std::string_view path) override;
  Result<FileInfo> Stat(std::string_view path) override;
  Result<std::vector<std::string>> ListDir(std::string_view path) override;
  Result<std::vector<FileInfo>> ListFiles(std::string_view path) override;
  Status CreateDirs(std::string_view path) override;
  Status RemoveFile(std::string_view path) override;
  Status Rename(std::string_view from, std::string_view to) override;
  Status AppendAt(std::string_view path, uint64_t offset, std::string_view data) override;

  /// Set a file's modification time (tests of discovery by time). kNotFound if absent.
  Status SetModifiedTime(std::string_view path, int64_t modified_ms);

 private:
  struct Entry {
    std::shared_ptr<const std::string> data;
    int64_t modified_ms = 0;
  };
  Status Put(std::string path, std::string data, bool exclusive);

  std::mutex mu_;
  std::map<std::string, Entry, std::less<>> files_;
};

}  // namespace sluice
