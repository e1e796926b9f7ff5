// The machine's file system through POSIX calls: atomic replacement by temp file and rename,
// create-if-absent by link(2), reads mapped with mmap where asked for.
#include <dirent.h>
#include <fcntl.h>
#include <fmt/format.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <random>

#include "sluice/base/file_system.h"
#include "sluice/base/file_system_internal.h"

namespace sluice {

namespace internal {

Unexpected<Error> ErrnoError(std::string_view what, std::string_view path, int err) {
  ErrorCode code = err == ENOENT || err == ENOTDIR ? ErrorCode::kNotFound
                   : err == EEXIST                 ? ErrorCode::kAlreadyExists
                   : err == EISDIR                 ? ErrorCode::kInvalidArgument
                                                   : ErrorCode::kIoError;
  return Fail(code, fmt::format("{}: {}: {}", path, what, std::strerror(err)));
}

Status WriteAllToFd(int fd, std::string_view data, std::string_view name) {
  size_t done = 0;
  while (done < data.size()) {
    ssize_t n = ::write(fd, data.data() + done, data.size() - done);
    if (n < 0) {
      if (errno == EINTR) continue;
      return ErrnoError("write failed", name, errno);
    }
    done += static_cast<size_t>(n);
  }
  return Ok();
}

Result<size_t> ReadFromFd(int fd, char* buf, size_t n, std::string_view name) {
  while (true) {
    ssize_t got = ::read(fd, buf, n);
    if (got >= 0) return static_cast<size_t>(got);
    if (errno != EINTR) return ErrnoError("read failed", name, errno);
  }
}

BufferedFdWriter::~BufferedFdWriter() = default;

Status BufferedFdWriter::Write(std::string_view bytes) {
  // Whole blocks go straight to the file; small writes are gathered first.
  if (bytes.size() >= kDirectWriteBytes) {
    SLUICE_TRY(Flush());
    return WriteAllToFd(fd_, bytes, name_);
  }
  buffer_.append(bytes);
  if (buffer_.size() >= kBufferBytes) return Flush();
  return Ok();
}

Status BufferedFdWriter::Flush() {
  SLUICE_TRY(WriteAllToFd(fd_, buffer_, name_));
  buffer_.clear();
  return Ok();
}

}  // namespace internal

namespace {

using internal::ErrnoError;
using internal::WriteAllToFd;

int64_t ModifiedMs(const struct stat& st) {
  return static_cast<int64_t>(st.st_mtim.tv_sec) * 1000 + st.st_mtim.tv_nsec / 1000000;
}

FileKind KindOf(const struct stat& st) {
  if (S_ISREG(st.st_mode)) return FileKind::kFile;
  if (S_ISDIR(st.st_mode)) return FileKind::kDirectory;
  return FileKind::kOther;
}

// Where a write to `path` goes. A device, a pipe or a descriptor is written in place:
// renaming over /dev/null would replace the device, and /dev/stdout, /dev/fd/N and
// /proc/self/fd/N are links to a descriptor of this process (whatever file that descriptor
// is). Any other file is replaced by a temporary file renamed over it; when `path` is a
// symbolic link, over the file the link names, so the link stays a link.
struct WriteTarget {
  std::string path;
  bool in_place = false;
};

WriteTarget TargetOf(std::string_view path) {
  WriteTarget t{std::string(path), false};
  // Follow the links one at a time (at most 40, as the kernel does) to see whether one goes
  // through /proc: a descriptor link must not be resolved to the file behind it.
  for (int hops = 0; hops < 40; ++hops) {
    struct stat lst {};
    if (::lstat(t.path.c_str(), &lst) != 0 || !S_ISLNK(lst.st_mode)) break;
    std::string target(static_cast<size_t>(std::max<off_t>(lst.st_size, 0)) + 256, '\0');
    const ssize_t n = ::readlink(t.path.c_str(), target.data(), target.size());
    if (n < 0 || static_cast<size_t>(n) >= target.size()) {
      t.in_place = true;  // a link that cannot be read: write through it
      return t;
    }
    target.resize(static_cast<size_t>(n));
    if (!target.empty() && target.front() != '/') {
      const size_t slash = t.path.rfind('/');
      target = (slash == std::string::npos ? std::string() : t.path.substr(0, slash + 1)) + target;
    }
    t.path = std::move(target);
    if (t.path.rfind("/proc/", 0) == 0) {
      t.in_place = true;
      return t;
    }
  }
  struct stat st {};
  if (::stat(t.path.c_str(), &st) == 0 && KindOf(st) == FileKind::kOther) t.in_place = true;
  return t;
}

std::string TempNameFor(std::string_view path) {
  static thread_local std::mt19937_64 rng(std::random_device{}());
  return fmt::format("{}.tmp-{:016x}", path, rng());
}

class Fd {
 public:
  explicit Fd(int fd = -1) : fd_(fd) {}
  Fd(Fd&& o) noexcept : fd_(std::exchange(o.fd_, -1)) {}
  Fd& operator=(Fd&& o) noexcept {
    Reset();
    fd_ = std::exchange(o.fd_, -1);
    return *this;
  }
  ~Fd() { Reset(); }
  int get() const { return fd_; }
  void Reset() {
    if (fd_ >= 0) ::close(fd_);
    fd_ = -1;
  }
  // Close and report a failed close (NFS reports write errors there).
  Status Close(std::string_view name) {
    int fd = std::exchange(fd_, -1);
    if (fd >= 0 && ::close(fd) != 0) return ErrnoError("close failed", name, errno);
    return Ok();
  }

 private:
  int fd_;
};

// Open `path` for reading; a folder is kInvalidArgument.
Result<std::pair<Fd, struct stat>> OpenForRead(std::string_view path) {
  std::string p(path);
  Fd fd(::open(p.c_str(), O_RDONLY | O_CLOEXEC));
  if (fd.get() < 0) return ErrnoError("cannot open", path, errno);
  struct stat st {};
  if (::fstat(fd.get(), &st) != 0) return ErrnoError("cannot stat", path, errno);
  if (S_ISDIR(st.st_mode)) {
    return Fail(ErrorCode::kInvalidArgument, fmt::format("{}: is a directory", path));
  }
  return std::pair<Fd, struct stat>(std::move(fd), st);
}

// Write `data` to a fresh temporary file beside `path`, flushed to disk when `sync`.
Result<std::string> WriteTemp(std::string_view path, std::string_view data, bool sync) {
  std::string tmp = TempNameFor(path);
  Fd fd(::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644));
  // The error names the file asked for, not the temporary name beside it.
  if (fd.get() < 0) return ErrnoError("cannot write", path, errno);
  Status st = WriteAllToFd(fd.get(), data, tmp);
  if (st.has_value() && sync && ::fsync(fd.get()) != 0) st = ErrnoError("fsync failed", tmp, errno);
  if (st.has_value()) st = fd.Close(tmp);
  if (!st.has_value()) {
    ::unlink(tmp.c_str());
    return Fail(std::move(st).error());
  }
  return tmp;
}

class LocalSequentialFile final : public SequentialFile {
 public:
  LocalSequentialFile(std::string path, Fd fd, std::optional<uint64_t> size)
      : path_(std::move(path)), fd_(std::move(fd)), size_(size) {}
  Result<size_t> Read(char* buf, size_t n) override {
    return internal::ReadFromFd(fd_.get(), buf, n, path_);
  }
  std::optional<uint64_t> size() const override { return size_; }

 private:
  std::string path_;
  Fd fd_;
  std::optional<uint64_t> size_;
};

class LocalRandomAccessFile final : public RandomAccessFile {
 public:
  LocalRandomAccessFile(std::string path, Fd fd, uint64_t size)
      : path_(std::move(path)), fd_(std::move(fd)), size_(size) {
    if (size_ > 0) {
      void* p = ::mmap(nullptr, size_, PROT_READ, MAP_SHARED, fd_.get(), 0);
      if (p != MAP_FAILED) map_ = static_cast<const char*>(p);
    }
  }
  ~LocalRandomAccessFile() override {
    if (map_ != nullptr) ::munmap(const_cast<char*>(map_), size_);
  }
  uint64_t size() const override { return size_; }
  Result<size_t> ReadAt(uint64_t offset, size_t n, char* buf) const override {
    if (offset >= size_) return size_t{0};
    n = static_cast<size_t>(std::min<uint64_t>(n, size_ - offset));
    if (map_ != nullptr) {
      std::memcpy(buf, map_ + offset, n);
      return n;
    }
    size_t done = 0;
    while (done < n) {
      ssize_t got = ::pread(fd_.get(), buf + done, n - done, static_cast<off_t>(offset + done));
      if (got < 0) {
        if (errno == EINTR) continue;
        return ErrnoError("read failed", path_, errno);
      }
      if (got == 0) break;
      done += static_cast<size_t>(got);
    }
    return done;
  }
  std::optional<std::string_view> Mapped() const override {
    if (size_ == 0) return std::string_view();
    if (map_ == nullptr) return std::nullopt;
    return std::string_view(map_, size_);
  }

 private:
  std::string path_;
  Fd fd_;
  uint64_t size_;
  const char* map_ = nullptr;
};

// Written to a temporary file beside its name and renamed into place at Commit; a device or
// pipe is written directly.
class LocalWritableFile final : public WritableFile {
 public:
  static Result<std::unique_ptr<WritableFile>> Open(std::string_view path,
                                                    const WriteOptions& options) {
    const WriteTarget target = TargetOf(path);
    auto f = std::unique_ptr<LocalWritableFile>(new LocalWritableFile(path, options));
    if (target.in_place) {
      f->fd_ = Fd(::open(target.path.c_str(), O_WRONLY | O_APPEND | O_CLOEXEC));
      if (f->fd_.get() < 0) return ErrnoError("cannot write", path, errno);
    } else {
      f->target_ = target.path;
      f->tmp_ = TempNameFor(target.path);
      f->fd_ = Fd(::open(f->tmp_.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644));
      if (f->fd_.get() < 0) {
        int err = errno;
        f->tmp_.clear();
        return ErrnoError("cannot write", path, err);
      }
    }
    f->writer_.emplace(f->fd_.get(), f->path_);
    return std::unique_ptr<WritableFile>(std::move(f));
  }
  ~LocalWritableFile() override {
    fd_.Reset();
    if (!tmp_.empty()) ::unlink(tmp_.c_str());
  }
  Status Write(std::string_view bytes) override { return writer_->Write(bytes); }
  Status Commit() override {
    SLUICE_TRY(writer_->Flush());
    if (sync_ && !tmp_.empty() && ::fsync(fd_.get()) != 0) {
      return ErrnoError("fsync failed", path_, errno);
    }
    SLUICE_TRY(fd_.Close(path_));
    if (!tmp_.empty()) {
      if (::rename(tmp_.c_str(), target_.c_str()) != 0) {
        return ErrnoError("cannot move into place", path_, errno);
      }
      tmp_.clear();
    }
    return Ok();
  }

 private:
  LocalWritableFile(std::string_view path, const WriteOptions& options)
      : path_(path), sync_(options.sync) {}
  std::string path_;
  std::string target_;  // the file renamed over: path_, or the file its links name
  std::string tmp_;
  bool sync_;
  Fd fd_;
  std::optional<internal::BufferedFdWriter> writer_;
};

class LocalFileSystemImpl final : public FileSystem {
 public:
  Result<std::string> ReadFile(std::string_view path, size_t max_bytes) override {
    SLUICE_ASSIGN_OR_RETURN(auto opened, OpenForRead(path));
    auto& [fd, st] = opened;
    std::string out;
    if (S_ISREG(st.st_mode)) {
      if (static_cast<uint64_t>(st.st_size) > max_bytes) return TooLarge(path, max_bytes);
      out.reserve(static_cast<size_t>(st.st_size));
    }
    char buf[1 << 16];
    while (true) {
      SLUICE_ASSIGN_OR_RETURN(size_t n, internal::ReadFromFd(fd.get(), buf, sizeof buf, path));
      if (n == 0) break;
      if (out.size() + n > max_bytes) return TooLarge(path, max_bytes);
      out.append(buf, n);
    }
    return out;
  }

  Status WriteFile(std::string_view path, std::string_view data) override {
    const WriteTarget target = TargetOf(path);
    if (target.in_place) {
      Fd fd(::open(target.path.c_str(), O_WRONLY | O_APPEND | O_CLOEXEC));
      if (fd.get() < 0) return ErrnoError("cannot write", path, errno);
      SLUICE_TRY(WriteAllToFd(fd.get(), data, path));
      return fd.Close(path);
    }
    SLUICE_ASSIGN_OR_RETURN(std::string tmp, WriteTemp(target.path, data, /*sync=*/true));
    if (::rename(tmp.c_str(), target.path.c_str()) != 0) {
      int err = errno;
      ::unlink(tmp.c_str());
      return ErrnoError("cannot rename into place", path, err);
    }
    return Ok();
  }

  Status CreateFileExclusive(std::string_view path, std::string_view data) override {
    // link() fails with EEXIST where rename() would silently replace: create-if-absent.
    SLUICE_ASSIGN_OR_RETURN(std::string tmp, WriteTemp(path, data, /*sync=*/true));
    std::string p(path);
    int rc = ::link(tmp.c_str(), p.c_str());
    int err = errno;
    ::unlink(tmp.c_str());
    if (rc != 0) return ErrnoError("cannot create", path, err);
    return Ok();
  }

  Status AppendAt(std::string_view path, uint64_t offset, std::string_view data) override {
    std::string p(path);
    Fd fd(::open(p.c_str(), O_WRONLY | O_CREAT | O_CLOEXEC, 0644));
    if (fd.get() < 0) return ErrnoError("cannot open", path, errno);
    struct stat st {};
    if (::fstat(fd.get(), &st) != 0) return ErrnoError("cannot stat", path, errno);
    if (static_cast<uint64_t>(st.st_size) < offset) {
      return InvalidArgument(
          fmt::format("{}: {} bytes, shorter than the offset {}", path, st.st_size, offset));
    }
    if (::ftruncate(fd.get(), static_cast<off_t>(offset)) != 0) {
      return ErrnoError("cannot truncate", path, errno);
    }
    uint64_t at = offset;
    while (!data.empty()) {
      ssize_t n = ::pwrite(fd.get(), data.data(), data.size(), static_cast<off_t>(at));
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) return ErrnoError("write failed", path, errno);
      data.remove_prefix(static_cast<size_t>(n));
      at += static_cast<uint64_t>(n);
    }
    if (::fsync(fd.get()) != 0) return ErrnoError("fsync failed", path, errno);
    return fd.Close(path);
  }

  Result<std::unique_ptr<SequentialFile>> OpenSequential(std::string_view path) override {
    SLUICE_ASSIGN_OR_RETURN(auto opened, OpenForRead(path));
    auto& [fd, st] = opened;
    std::optional<uint64_t> size;
    if (S_ISREG(st.st_mode)) size = static_cast<uint64_t>(st.st_size);
    return std::unique_ptr<SequentialFile>(
        std::make_unique<LocalSequentialFile>(std::string(path), std::move(fd), size));
  }

  Result<std::unique_ptr<RandomAccessFile>> OpenRandomAccess(std::string_view path) override {
    SLUICE_ASSIGN_OR_RETURN(auto opened, OpenForRead(path));
    auto& [fd, st] = opened;
    if (!S_ISREG(st.st_mode)) {
      return InvalidArgument(fmt::format("{}: not a regular file", path));
    }
    return std::unique_ptr<RandomAccessFile>(std::make_unique<LocalRandomAccessFile>(
        std::string(path), std::move(fd), static_cast<uint64_t>(st.st_size)));
  }

  Result<std::unique_ptr<WritableFile>> OpenWritable(std::string_view path,
                                                     const WriteOptions& options) override {
    return LocalWritableFile::Open(path, options);
  }

  Result<bool> Exists(std::string_view path) override {
    std::string p(path);
    struct stat st {};
    if (::stat(p.c_str(), &st) == 0) return true;
    if (errno == ENOENT || errno == ENOTDIR) return false;
    return ErrnoError("cannot stat", path, errno);
  }

  Result<FileInfo> Stat(std::string_view path) override {
    std::string p(path);
    struct stat st {};
    if (::stat(p.c_str(), &st) != 0) return ErrnoError("cannot stat", path, errno);
    return FileInfo{p, KindOf(st), static_cast<uint64_t>(st.st_size), ModifiedMs(st)};
  }

  // Names only: no stat per entry, so a folder of many files (a table's log) lists fast.
  Result<std::vector<std::string>> ListDir(std::string_view path) override {
    std::string dir(path);
    DIR* d = ::opendir(dir.c_str());
    if (d == nullptr) return ErrnoError("cannot list", path, errno);
    std::vector<std::string> names;
    errno = 0;
    while (struct dirent* e = ::readdir(d)) {
      std::string_view name = e->d_name;
      if (name != "." && name != "..") names.emplace_back(name);
      errno = 0;
    }
    int err = errno;
    ::closedir(d);
    if (err != 0) return ErrnoError("cannot list", path, err);
    std::sort(names.begin(), names.end());
    return names;
  }

  Result<std::vector<FileInfo>> ListFiles(std::string_view path) override {
    std::string dir(path);
    DIR* d = ::opendir(dir.c_str());
    if (d == nullptr) return ErrnoError("cannot list", path, errno);
    std::vector<FileInfo> out;
    int dfd = ::dirfd(d);
    errno = 0;
    while (struct dirent* e = ::readdir(d)) {
      std::string_view name = e->d_name;
      if (name == "." || name == "..") continue;
      struct stat st {};
      // An entry removed between readdir and fstatat is skipped, not an error.
      // errno is reset after each entry: readdir reports its own errors only through errno,
      // and a skipped entry's ENOENT must not look like one.
      bool gone = ::fstatat(dfd, e->d_name, &st, 0) != 0;
      errno = 0;
      if (gone) continue;
      out.push_back(FileInfo{std::string(name), KindOf(st), static_cast<uint64_t>(st.st_size),
                             ModifiedMs(st)});
    }
    int err = errno;
    ::closedir(d);
    if (err != 0) return ErrnoError("cannot list", path, err);
    std::sort(out.begin(), out.end(),
              [](const FileInfo& a, const FileInfo& b) { return a.name < b.name; });
    return out;
  }

  Status CreateDirs(std::string_view path) override {
    std::error_code ec;
    std::filesystem::create_directories(std::string(path), ec);
    if (ec) return IoError(fmt::format("{}: cannot create directory: {}", path, ec.message()));
    return Ok();
  }

  Status RemoveFile(std::string_view path) override {
    std::string p(path);
    if (::unlink(p.c_str()) != 0) return ErrnoError("cannot remove", path, errno);
    return Ok();
  }

  Status Rename(std::string_view from, std::string_view to) override {
    std::string f(from);
    std::string t(to);
    if (::rename(f.c_str(), t.c_str()) != 0) {
      return ErrnoError(fmt::format("cannot rename to {}", to), from, errno);
    }
    return Ok();
  }

 private:
  static Unexpected<Error> TooLarge(std::string_view path, size_t max_bytes) {
    return InvalidArgument(fmt::format("{}: larger than the limit of {} bytes", path, max_bytes));
  }
};

}  // namespace

std::unique_ptr<FileSystem> NewLocalFileSystem() { return std::make_unique<LocalFileSystemImpl>(); }

const std::shared_ptr<FileSystem>& LocalFileSystem() {
  static const std::shared_ptr<FileSystem> fs = NewLocalFileSystem();
  return fs;
}

}  // namespace sluice
