// Reading record files in blocks cut after a line break, the unit the data plane's workers take
// (file_runs.cc).
#pragma once

#include <simdjson.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <new>
#include <string>
#include <string_view>

#include "sluice/base/file_system.h"
#include "sluice/base/result.h"
#include "sluice/data/file_runs.h"
#include "sluice/data/parquet_source.h"

namespace sluice::data::internal {

/// Zero bytes after every block: simdjson reads up to this far past a record.
constexpr size_t kPad = simdjson::SIMDJSON_PADDING;

/// A block's bytes. Grown with realloc, which moves a large buffer's pages rather than copying
/// them, and never written ahead of what is read into it (a std::string would zero every byte it
/// grows by): the memory a block holds is what was read, even when a long line grows it to
/// hundreds of megabytes.
class ReadBuffer {
 public:
  ReadBuffer() = default;
  ReadBuffer(const ReadBuffer&) = delete;
  ReadBuffer& operator=(const ReadBuffer&) = delete;
  ~ReadBuffer() { std::free(data_); }

  char* data() { return data_; }
  const char* data() const { return data_; }
  size_t capacity() const { return capacity_; }
  char operator[](size_t i) const { return data_[i]; }

  /// Room for at least `n` bytes; the bytes held are kept.
  void Reserve(size_t n) {
    if (n <= capacity_) return;
    void* p = std::realloc(data_, n);
    if (p == nullptr) throw std::bad_alloc();
    data_ = static_cast<char*>(p);
    capacity_ = n;
  }
  /// Give the memory back.
  void Release() {
    std::free(data_);
    data_ = nullptr;
    capacity_ = 0;
  }

 private:
  char* data_ = nullptr;
  size_t capacity_ = 0;
};

struct Block {
  uint32_t file = 0;
  // buf holds `size` bytes of the file followed by at least kPad bytes.
  ReadBuffer buf;
  size_t size = 0;
  // Absolute offset of buf[0] in its file.
  uint64_t base_offset = 0;
  bool file_start = false;
  // Bytes at the start of the block that are not records (a BOM, a CSV header), and the line
  // breaks inside them.
  size_t skip = 0;
  uint64_t skip_lines = 0;
  // A Parquet file read with a row screen: which of its lines were not vouched for.
  std::shared_ptr<const ScreenedLines> screened;
  std::string_view text() const { return {buf.data(), size}; }
};

class BlockReader {
 public:
  explicit BlockReader(FileSystem& fs) : fs_(fs) {}

  /// Parquet and Avro container files: their rows are read as JSON lines, a Parquet file's
  /// judged against `screen` when one is given.
  Status Open(const std::string& path, RecordFormat format,
              const parquet::RowScreen* screen = nullptr, bool text_free = false,
              unsigned threads = 1);
  void Close() { file_.reset(); }

  /// Fill `b` with the next block: whole lines, or the rest of the file. `whole` reads the file
  /// in one block. False at the end of the file.
  Result<bool> Next(Block& b, size_t block_bytes, bool whole);

 private:
  FileSystem& fs_;
  std::unique_ptr<SequentialFile> file_;
  std::shared_ptr<const ScreenedLines> screened_;
  std::string path_;
  uint64_t size_hint_ = 0;
  uint64_t offset_ = 0;
  std::string carry_;
  bool eof_ = false;
  bool first_ = true;
};

}  // namespace sluice::data::internal
