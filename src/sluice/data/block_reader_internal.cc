#include "sluice/data/block_reader_internal.h"

#include <algorithm>
#include <cstring>

#include "sluice/base/std_io.h"
#include "sluice/data/avro_container.h"

namespace sluice::data::internal {

Status BlockReader::Open(const std::string& path, RecordFormat format,
                         const parquet::RowScreen* screen, bool text_free, unsigned threads) {
  path_ = path;
  carry_.clear();
  offset_ = 0;
  eof_ = false;
  first_ = true;
  screened_ = nullptr;
  if (format == RecordFormat::kParquet && screen != nullptr) {
    SLUICE_ASSIGN_OR_RETURN(file_, OpenParquetRows(fs_, path, *screen, &screened_, text_free,
                                                   static_cast<int>(threads)));
  } else if (format == RecordFormat::kParquet) {
    SLUICE_ASSIGN_OR_RETURN(file_, OpenParquetRows(fs_, path));
  } else if (format == RecordFormat::kAvro) {
    SLUICE_ASSIGN_OR_RETURN(file_, OpenAvroRows(fs_, path));
  } else {
    SLUICE_ASSIGN_OR_RETURN(file_, OpenInput(fs_, path));
  }
  size_hint_ = file_->size().value_or(0);
  return Ok();
}

Result<bool> BlockReader::Next(Block& b, size_t block_bytes, bool whole) {
  if (eof_ && carry_.empty()) return false;
  b.file_start = first_;
  b.base_offset = offset_;
  b.skip = 0;
  b.skip_lines = 0;
  b.screened = screened_;
  size_t have = carry_.size();
  size_t want = std::max(block_bytes, have + block_bytes / 2);
  if (whole && size_hint_ > offset_) want = std::max<size_t>(want, size_hint_ - offset_ + 1);
  b.buf.Reserve(want + kPad);
  std::memcpy(b.buf.data(), carry_.data(), have);
  carry_.clear();
  size_t cut = std::string::npos;
  size_t scan_from = 0;
  while (true) {
    while (!eof_ && have < want) {
      SLUICE_ASSIGN_OR_RETURN(size_t n, file_->Read(b.buf.data() + have, want - have));
      if (n == 0) {
        eof_ = true;
        break;
      }
      have += n;
    }
    if (eof_) break;
    if (!whole) {
      const void* nl = memrchr(b.buf.data() + scan_from, '\n', have - scan_from);
      if (nl != nullptr) {
        cut = static_cast<size_t>(static_cast<const char*>(nl) - b.buf.data()) + 1;
        break;
      }
    }
    // A line longer than the block (or a file longer than its size said): read on a block at a
    // time, so that the read stops within a block of the line's end, into a buffer that grows
    // by half its size, so that growing stays linear.
    scan_from = have;
    want = have + block_bytes;
    if (want + kPad > b.buf.capacity()) {
      b.buf.Reserve(std::max(want + kPad, b.buf.capacity() + b.buf.capacity() / 2));
    }
  }
  if (cut == std::string::npos) cut = have;
  carry_.assign(b.buf.data() + cut, have - cut);
  b.size = cut;
  std::memset(b.buf.data() + cut, 0, kPad);
  offset_ += cut;
  first_ = false;
  if (cut == 0 && eof_) return false;
  return true;
}

}  // namespace sluice::data::internal
