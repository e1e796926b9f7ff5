#include "sluice/base/file_system.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <algorithm>
#include <random>

#include <fmt/format.h>

namespace sluice {

namespace {

Unexpected<Error> ErrnoError(std::string_view what, std::string_view path, int err) {
  ErrorCode code = err == ENOENT ? ErrorCode::kNotFound
                   : err == EEXIST ? ErrorCode::kAlreadyExists
                                   : ErrorCode::kIoError;
  return Fail(code, fmt::format("{}: {}: {}", path, what, std::strerror(err)));
}

Status WriteAll(int fd, std::string_view data, std::string_view path) {
  size_t done = 0;
  while (done < data.size()) {
    ssize_t n = ::write(fd, data.data() + done, data.size() - done);
    if (n < 0) {
      if (errno == EINTR) continue;
      return ErrnoError("write failed", path, errno);
    }
    done += static_cast<size_t>(n);
  }
  return Ok();
}

std::string TempNameFor(std::string_view path) {
  static thread_local std::mt19937_64 rng(std::random_device{}());
  return fmt::format("{}.tmp-{:016x}", path, rng());
}

// Write `data` to a fresh temporary file beside `path` and flush it to disk.
Result<std::string> WriteTemp(std::string_view path, std::string_view data) {
  std::string tmp = TempNameFor(path);
  int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  if (fd < 0) return ErrnoError("cannot create", tmp, errno);
  Status st = WriteAll(fd, data, tmp);
  if (st.has_value() && ::fsync(fd) != 0) st = ErrnoError("fsync failed", tmp, errno);
  ::close(fd);
  if (!st.has_value()) {
    ::unlink(tmp.c_str());
    return Fail(std::move(st).error());
  }
  return tmp;
}

class LocalFileSystem final : public FileSystem {
 public:
  Result<std::string> ReadFile(std::string_view path, size_t max_bytes) override {
    std::string p(path);
    int fd = ::open(p.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) return ErrnoError("cannot open", path, errno);
    struct stat st {};
    if (::fstat(fd, &st) != 0) {
      int err = errno;
      ::close(fd);
      return ErrnoError("cannot stat", path, err);
    }
    if (S_ISDIR(st.st_mode)) {
      ::close(fd);
      return Fail(ErrorCode::kInvalidArgument, fmt::format("{}: is a directory", path));
    }
    std::string out;
    if (st.st_size > 0) out.reserve(static_cast<size_t>(st.st_size));
    char buf[1 << 16];
    while (true) {
      ssize_t n = ::read(fd, buf, sizeof buf);
      if (n < 0) {
        if (errno == EINTR) continue;
        int err = errno;
        ::close(fd);
        return ErrnoError("read failed", path, err);
      }
      if (n == 0) break;
      if (out.size() + static_cast<size_t>(n) > max_bytes) {
        ::close(fd);
        return Fail(ErrorCode::kInvalidArgument,
                    fmt::format("{}: larger than the limit of {} bytes", path, max_bytes));
      }
      out.append(buf, static_cast<size_t>(n));
    }
    ::close(fd);
    return out;
  }

  Status WriteFile(std::string_view path, std::string_view data) override {
    SLUICE_ASSIGN_OR_RETURN(std::string tmp, WriteTemp(path, data));
    std::string p(path);
    if (::rename(tmp.c_str(), p.c_str()) != 0) {
      int err = errno;
      ::unlink(tmp.c_str());
      return ErrnoError("cannot rename into place", path, err);
    }
    return Ok();
  }

  Status CreateFileExclusive(std::string_view path, std::string_view data) override {
    // link() fails with EEXIST where rename() would silently replace: create-if-absent.
    SLUICE_ASSIGN_OR_RETURN(std::string tmp, WriteTemp(path, data));
    std::string p(path);
    int rc = ::link(tmp.c_str(), p.c_str());
    int err = errno;
    ::unlink(tmp.c_str());
    if (rc != 0) return ErrnoError("cannot create", path, err);
    return Ok();
  }

  Result<bool> Exists(std::string_view path) override {
    std::string p(path);
    struct stat st {};
    if (::stat(p.c_str(), &st) == 0) return true;
    if (errno == ENOENT || errno == ENOTDIR) return false;
    return ErrnoError("cannot stat", path, errno);
  }

  Result<std::vector<std::string>> ListDir(std::string_view path) override {
    std::error_code ec;
    std::vector<std::string> names;
    for (auto it = std::filesystem::directory_iterator(std::string(path), ec);
         !ec && it != std::filesystem::directory_iterator(); it.increment(ec)) {
      names.push_back(it->path().filename().string());
    }
    if (ec) {
      return Fail(ec == std::errc::no_such_file_or_directory ? ErrorCode::kNotFound
                                                             : ErrorCode::kIoError,
                  fmt::format("{}: cannot list: {}", path, ec.message()));
    }
    std::sort(names.begin(), names.end());
    return names;
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
};

}  // namespace

std::unique_ptr<FileSystem> NewLocalFileSystem() { return std::make_unique<LocalFileSystem>(); }

Result<std::string> MemoryFileSystem::ReadFile(std::string_view path, size_t max_bytes) {
  std::lock_guard lock(mu_);
  auto it = files_.find(path);
  if (it == files_.end()) return NotFound(fmt::format("{}: no such file", path));
  if (it->second.size() > max_bytes) {
    return InvalidArgument(fmt::format("{}: larger than the limit of {} bytes", path, max_bytes));
  }
  return it->second;
}

Status MemoryFileSystem::WriteFile(std::string_view path, std::string_view data) {
  std::lock_guard lock(mu_);
  files_.insert_or_assign(std::string(path), std::string(data));
  return Ok();
}

Status MemoryFileSystem::CreateFileExclusive(std::string_view path, std::string_view data) {
  std::lock_guard lock(mu_);
  auto [it, inserted] = files_.try_emplace(std::string(path), std::string(data));
  if (!inserted) return AlreadyExists(fmt::format("{}: already exists", path));
  return Ok();
}

Result<bool> MemoryFileSystem::Exists(std::string_view path) {
  std::lock_guard lock(mu_);
  if (files_.count(path) > 0) return true;
  std::string prefix = std::string(path) + "/";
  auto it = files_.lower_bound(prefix);
  return it != files_.end() && it->first.compare(0, prefix.size(), prefix) == 0;
}

Result<std::vector<std::string>> MemoryFileSystem::ListDir(std::string_view path) {
  std::lock_guard lock(mu_);
  std::string prefix = std::string(path);
  if (!prefix.empty() && prefix.back() != '/') prefix += '/';
  std::vector<std::string> names;
  for (auto it = files_.lower_bound(prefix);
       it != files_.end() && it->first.compare(0, prefix.size(), prefix) == 0; ++it) {
    std::string rest = it->first.substr(prefix.size());
    std::string name = rest.substr(0, rest.find('/'));
    if (names.empty() || names.back() != name) names.push_back(name);
  }
  if (names.empty()) return NotFound(fmt::format("{}: no such directory", path));
  return names;
}

Status MemoryFileSystem::CreateDirs(std::string_view) { return Ok(); }

Status MemoryFileSystem::RemoveFile(std::string_view path) {
  std::lock_guard lock(mu_);
  auto it = files_.find(path);
  if (it == files_.end()) return NotFound(fmt::format("{}: no such file", path));
  files_.erase(it);
  return Ok();
}

}  // namespace sluice
