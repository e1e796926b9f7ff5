#include "sluice/base/std_io.h"

#include <fmt/format.h>
#include <unistd.h>

#include <cstdio>
#include <optional>

#include "sluice/base/file_system_internal.h"

namespace sluice {

namespace {

class StandardInput final : public SequentialFile {
 public:
  Result<size_t> Read(char* buf, size_t n) override {
    return internal::ReadFromFd(STDIN_FILENO, buf, n, "standard input");
  }
  std::optional<uint64_t> size() const override { return std::nullopt; }
};

class StandardOutput final : public WritableFile {
 public:
  explicit StandardOutput(int fd)
      : writer_(fd, fd == STDERR_FILENO ? "standard error" : "standard output") {
    // What the process printed through stdio before must come out first.
    std::fflush(nullptr);
  }
  ~StandardOutput() override {
    // Unlike a file, what was written to a stream cannot be taken back: flush it.
    (void)writer_.Flush();
  }
  Status Write(std::string_view bytes) override { return writer_.Write(bytes); }
  Status Commit() override { return writer_.Flush(); }

 private:
  internal::BufferedFdWriter writer_;
};

}  // namespace

std::unique_ptr<SequentialFile> NewStandardInput() { return std::make_unique<StandardInput>(); }

std::unique_ptr<WritableFile> NewStandardOutput(int fd) {
  return std::make_unique<StandardOutput>(fd);
}

Result<std::unique_ptr<SequentialFile>> OpenInput(FileSystem& fs, std::string_view path) {
  if (path == "-") return NewStandardInput();
  return fs.OpenSequential(path);
}

Result<std::string> ReadInput(FileSystem& fs, std::string_view path, size_t max_bytes) {
  if (path != "-") return fs.ReadFile(path, max_bytes);
  std::string data;
  char buf[1 << 16];
  auto in = NewStandardInput();
  while (true) {
    SLUICE_ASSIGN_OR_RETURN(size_t n, in->Read(buf, sizeof buf));
    if (n == 0) break;
    data.append(buf, n);
    if (data.size() > max_bytes) {
      return InvalidArgument(
          fmt::format("standard input is larger than the limit of {} bytes", max_bytes));
    }
  }
  return data;
}

std::string PeekFile(FileSystem& fs, std::string_view path, size_t n) {
  auto file = fs.OpenSequential(path);
  if (!file.has_value()) return {};
  std::string head(n, '\0');
  size_t have = 0;
  while (have < n) {
    auto got = (*file)->Read(head.data() + have, n - have);
    if (!got.has_value() || *got == 0) break;
    have += *got;
  }
  head.resize(have);
  return head;
}

Result<std::unique_ptr<WritableFile>> OpenOutput(FileSystem& fs, std::string_view path, int std_fd,
                                                 const WriteOptions& options) {
  if (IsStandardStream(path)) return NewStandardOutput(std_fd);
  return fs.OpenWritable(path, options);
}

Status WriteOutput(FileSystem& fs, std::string_view path, std::string_view text) {
  if (!IsStandardStream(path)) return fs.WriteFile(path, text);
  auto out = NewStandardOutput(STDOUT_FILENO);
  SLUICE_TRY(out->Write(text));
  return out->Commit();
}

}  // namespace sluice
