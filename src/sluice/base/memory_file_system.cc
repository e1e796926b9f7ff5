// The in-memory file system of tests: a sorted map from path to shared, immutable contents, so
// readers keep the bytes they opened while writers replace them.
#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cstring>

#include "sluice/base/file_system.h"

namespace sluice {

namespace {

int64_t NowMs() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

std::string DirPrefix(std::string_view path) {
  std::string prefix(path);
  if (!prefix.empty() && prefix.back() != '/') prefix += '/';
  return prefix;
}

class MemorySequentialFile final : public SequentialFile {
 public:
  explicit MemorySequentialFile(std::shared_ptr<const std::string> data) : data_(std::move(data)) {}
  Result<size_t> Read(char* buf, size_t n) override {
    n = std::min(n, data_->size() - pos_);
    std::memcpy(buf, data_->data() + pos_, n);
    pos_ += n;
    return n;
  }
  std::optional<uint64_t> size() const override { return data_->size(); }

 private:
  std::shared_ptr<const std::string> data_;
  size_t pos_ = 0;
};

class MemoryRandomAccessFile final : public RandomAccessFile {
 public:
  explicit MemoryRandomAccessFile(std::shared_ptr<const std::string> data)
      : data_(std::move(data)) {}
  uint64_t size() const override { return data_->size(); }
  Result<size_t> ReadAt(uint64_t offset, size_t n, char* buf) const override {
    if (offset >= data_->size()) return size_t{0};
    n = std::min<size_t>(n, data_->size() - static_cast<size_t>(offset));
    std::memcpy(buf, data_->data() + offset, n);
    return n;
  }
  std::optional<std::string_view> Mapped() const override { return std::string_view(*data_); }

 private:
  std::shared_ptr<const std::string> data_;
};

class MemoryWritableFile final : public WritableFile {
 public:
  MemoryWritableFile(MemoryFileSystem& fs, std::string path) : fs_(fs), path_(std::move(path)) {}
  Status Write(std::string_view bytes) override {
    data_.append(bytes);
    return Ok();
  }
  Status Commit() override { return fs_.WriteFile(path_, data_); }

 private:
  MemoryFileSystem& fs_;
  std::string path_;
  std::string data_;
};

}  // namespace

Result<std::string> MemoryFileSystem::ReadFile(std::string_view path, size_t max_bytes) {
  std::lock_guard lock(mu_);
  auto it = files_.find(path);
  if (it == files_.end()) return NotFound(fmt::format("{}: no such file", path));
  if (it->second.data->size() > max_bytes) {
    return InvalidArgument(fmt::format("{}: larger than the limit of {} bytes", path, max_bytes));
  }
  return *it->second.data;
}

Status MemoryFileSystem::Put(std::string path, std::string data, bool exclusive) {
  std::lock_guard lock(mu_);
  Entry e{std::make_shared<const std::string>(std::move(data)), NowMs()};
  if (exclusive) {
    auto [it, inserted] = files_.try_emplace(std::move(path), std::move(e));
    if (!inserted) return AlreadyExists(fmt::format("{}: already exists", it->first));
    return Ok();
  }
  files_.insert_or_assign(std::move(path), std::move(e));
  return Ok();
}

Status MemoryFileSystem::WriteFile(std::string_view path, std::string_view data) {
  return Put(std::string(path), std::string(data), /*exclusive=*/false);
}

Status MemoryFileSystem::CreateFileExclusive(std::string_view path, std::string_view data) {
  return Put(std::string(path), std::string(data), /*exclusive=*/true);
}

Result<std::unique_ptr<SequentialFile>> MemoryFileSystem::OpenSequential(std::string_view path) {
  std::lock_guard lock(mu_);
  auto it = files_.find(path);
  if (it == files_.end()) return NotFound(fmt::format("{}: no such file", path));
  return std::unique_ptr<SequentialFile>(std::make_unique<MemorySequentialFile>(it->second.data));
}

Result<std::unique_ptr<RandomAccessFile>> MemoryFileSystem::OpenRandomAccess(
    std::string_view path) {
  std::lock_guard lock(mu_);
  auto it = files_.find(path);
  if (it == files_.end()) return NotFound(fmt::format("{}: no such file", path));
  return std::unique_ptr<RandomAccessFile>(
      std::make_unique<MemoryRandomAccessFile>(it->second.data));
}

Result<std::unique_ptr<WritableFile>> MemoryFileSystem::OpenWritable(std::string_view path,
                                                                     const WriteOptions&) {
  return std::unique_ptr<WritableFile>(
      std::make_unique<MemoryWritableFile>(*this, std::string(path)));
}

Result<bool> MemoryFileSystem::Exists(std::string_view path) {
  auto info = Stat(path);
  if (info.has_value()) return true;
  if (info.error().code() == ErrorCode::kNotFound) return false;
  return Fail(std::move(info).error());
}

Result<FileInfo> MemoryFileSystem::Stat(std::string_view path) {
  std::lock_guard lock(mu_);
  if (auto it = files_.find(path); it != files_.end()) {
    return FileInfo{std::string(path), FileKind::kFile, it->second.data->size(),
                    it->second.modified_ms};
  }
  std::string prefix = DirPrefix(path);
  auto it = files_.lower_bound(prefix);
  if (it != files_.end() && it->first.starts_with(prefix)) {
    return FileInfo{std::string(path), FileKind::kDirectory, 0, 0};
  }
  return NotFound(fmt::format("{}: no such file or directory", path));
}

Result<std::vector<std::string>> MemoryFileSystem::ListDir(std::string_view path) {
  SLUICE_ASSIGN_OR_RETURN(std::vector<FileInfo> entries, ListFiles(path));
  std::vector<std::string> names;
  names.reserve(entries.size());
  for (FileInfo& e : entries) names.push_back(std::move(e.name));
  return names;
}

Result<std::vector<FileInfo>> MemoryFileSystem::ListFiles(std::string_view path) {
  std::lock_guard lock(mu_);
  std::string prefix = DirPrefix(path);
  std::vector<FileInfo> out;
  for (auto it = files_.lower_bound(prefix); it != files_.end() && it->first.starts_with(prefix);
       ++it) {
    std::string_view rest = std::string_view(it->first).substr(prefix.size());
    size_t slash = rest.find('/');
    std::string name(rest.substr(0, slash));
    if (!out.empty() && out.back().name == name) continue;
    if (slash == std::string_view::npos) {
      out.push_back(
          FileInfo{name, FileKind::kFile, it->second.data->size(), it->second.modified_ms});
    } else {
      out.push_back(FileInfo{name, FileKind::kDirectory, 0, 0});
    }
  }
  if (out.empty()) return NotFound(fmt::format("{}: no such directory", path));
  return out;
}

Status MemoryFileSystem::CreateDirs(std::string_view) { return Ok(); }

Status MemoryFileSystem::RemoveFile(std::string_view path) {
  std::lock_guard lock(mu_);
  auto it = files_.find(path);
  if (it == files_.end()) return NotFound(fmt::format("{}: no such file", path));
  files_.erase(it);
  return Ok();
}

Status MemoryFileSystem::Rename(std::string_view from, std::string_view to) {
  std::lock_guard lock(mu_);
  auto it = files_.find(from);
  if (it == files_.end()) return NotFound(fmt::format("{}: no such file", from));
  Entry e = std::move(it->second);
  files_.erase(it);
  files_.insert_or_assign(std::string(to), std::move(e));
  return Ok();
}

Status MemoryFileSystem::AppendAt(std::string_view path, uint64_t offset, std::string_view data) {
  std::lock_guard lock(mu_);
  auto it = files_.find(path);
  const std::string empty;
  const std::string& old = it == files_.end() ? empty : *it->second.data;
  if (old.size() < offset) {
    return InvalidArgument(
        fmt::format("{}: {} bytes, shorter than the offset {}", path, old.size(), offset));
  }
  std::string next = old.substr(0, offset);
  next.append(data);
  Entry e{std::make_shared<const std::string>(std::move(next)), NowMs()};
  files_.insert_or_assign(std::string(path), std::move(e));
  return Ok();
}

Status MemoryFileSystem::SetModifiedTime(std::string_view path, int64_t modified_ms) {
  std::lock_guard lock(mu_);
  auto it = files_.find(path);
  if (it == files_.end()) return NotFound(fmt::format("{}: no such file", path));
  it->second.modified_ms = modified_ms;
  return Ok();
}

}  // namespace sluice
