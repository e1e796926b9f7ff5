#include "sluice/parquet/file_reader.h"

#include <fmt/format.h>

#include <cstdint>
#include <cstring>

#include "sluice/parquet/record_assembler.h"

namespace sluice::parquet {
namespace {

constexpr std::string_view kMagic = "PAR1";
constexpr std::string_view kEncryptedMagic = "PARE";
// "PAR1", then at the end the footer length and "PAR1" again.
constexpr uint64_t kFrameSize = 12;

std::string PathText(const std::vector<std::string>& path) {
  std::string s;
  for (const std::string& p : path) {
    if (!s.empty()) s.push_back('.');
    s += p;
  }
  return s;
}

}  // namespace

FileReader::~FileReader() = default;

int64_t FileReader::num_rows() const {
  // Open checked each count is not negative; a hostile footer's sum may still pass int64.
  int64_t n = 0;
  for (const RowGroup& rg : meta_.row_groups) {
    if (__builtin_add_overflow(n, rg.num_rows, &n)) return INT64_MAX;
  }
  return n;
}

Result<std::string_view> FileReader::Bytes(uint64_t offset, uint64_t size,
                                           std::string& buffer) const {
  if (mapped_) return mapped_->substr(offset, size);
  buffer.resize(size);
  uint64_t done = 0;
  while (done < size) {
    SLUICE_ASSIGN_OR_RETURN(size_t n,
                            file_->ReadAt(offset + done, size - done, buffer.data() + done));
    if (n == 0) {
      return InvalidArgument(fmt::format("{}: byte {}: the file ended while reading {} bytes",
                                         path_, offset + done, size));
    }
    done += n;
  }
  return std::string_view(buffer);
}

Status FileReader::ReadFrame() {
  if (file_size_ < kFrameSize) {
    return InvalidArgument(
        fmt::format("{}: not a Parquet file: {} bytes, a Parquet file has at "
                    "least {}",
                    path_, file_size_, kFrameSize));
  }
  std::string head_buf, tail_buf;
  SLUICE_ASSIGN_OR_RETURN(std::string_view head, Bytes(0, 4, head_buf));
  if (head != kMagic) {
    return InvalidArgument(
        fmt::format("{}: byte 0: not a Parquet file (no \"PAR1\" at the start)", path_));
  }
  SLUICE_ASSIGN_OR_RETURN(std::string_view tail, Bytes(file_size_ - 8, 8, tail_buf));
  if (tail.substr(4) == kEncryptedMagic) {
    return Unimplemented(
        fmt::format("{}: byte {}: an encrypted Parquet file (\"PARE\"); "
                    "encrypted files are not supported",
                    path_, file_size_ - 4));
  }
  if (tail.substr(4) != kMagic) {
    return InvalidArgument(
        fmt::format("{}: byte {}: not a Parquet file (no \"PAR1\" at the end; "
                    "truncated?)",
                    path_, file_size_ - 4));
  }
  uint32_t footer_len;
  std::memcpy(&footer_len, tail.data(), 4);
  if (footer_len > file_size_ - kFrameSize) {
    return InvalidArgument(
        fmt::format("{}: byte {}: a footer of {} bytes runs past the start "
                    "of a {}-byte file",
                    path_, file_size_ - 8, footer_len, file_size_));
  }
  footer_start_ = file_size_ - 8 - footer_len;
  std::string footer_buf;
  SLUICE_ASSIGN_OR_RETURN(std::string_view footer, Bytes(footer_start_, footer_len, footer_buf));
  auto meta = ReadFileMetaData(footer, options_.metadata);
  if (!meta) {
    return Fail(meta.error().WithContext(
        fmt::format("{}: the footer at byte {} ({} bytes)", path_, footer_start_, footer_len)));
  }
  meta_ = std::move(*meta);
  return Ok();
}

Status FileReader::CheckRowGroups() {
  const size_t columns = schema_.leaves.size();
  chunks_.resize(meta_.row_groups.size());
  for (size_t g = 0; g < meta_.row_groups.size(); ++g) {
    const RowGroup& rg = meta_.row_groups[g];
    if (rg.num_rows < 0) {
      return InvalidArgument(fmt::format("{}: row group {} has {} rows", path_, g, rg.num_rows));
    }
    if (rg.columns.size() != columns) {
      return InvalidArgument(
          fmt::format("{}: row group {} has {} column chunks, the schema {} "
                      "columns",
                      path_, g, rg.columns.size(), columns));
    }
    for (size_t c = 0; c < columns; ++c) {
      const ColumnChunk& chunk = rg.columns[c];
      const LeafColumn& leaf = schema_.leaves[c];
      const std::string where = fmt::format("{}: row group {}: column {}", path_, g, leaf.path);
      if (chunk.file_path) {
        return Unimplemented(
            fmt::format("{}: the chunk is in another file ('{}'), which is not "
                        "supported",
                        where, *chunk.file_path));
      }
      if (!chunk.meta_data) {
        return Unimplemented(
            fmt::format("{}: the chunk has no metadata (encrypted columns are "
                        "not supported)",
                        where));
      }
      const ColumnMetaData& m = *chunk.meta_data;
      if (PathText(m.path_in_schema) != leaf.path) {
        return InvalidArgument(
            fmt::format("{}: the chunk is for column '{}'", where, PathText(m.path_in_schema)));
      }
      if (m.type != leaf.type) {
        return InvalidArgument(fmt::format("{}: the chunk holds {}, the schema says {}", where,
                                           PhysicalTypeName(m.type), PhysicalTypeName(leaf.type)));
      }
      int64_t start = m.data_page_offset;
      // A dictionary page comes first; some writers store 0 for "none".
      if (m.dictionary_page_offset && *m.dictionary_page_offset > 0 &&
          *m.dictionary_page_offset < start) {
        start = *m.dictionary_page_offset;
      }
      if (start < static_cast<int64_t>(kMagic.size()) || m.total_compressed_size < 0) {
        return InvalidArgument(fmt::format("{}: a chunk at byte {} of {} bytes", where, start,
                                           m.total_compressed_size));
      }
      const auto offset = static_cast<uint64_t>(start);
      const auto size = static_cast<uint64_t>(m.total_compressed_size);
      if (offset > file_size_ || size > file_size_ - offset) {
        return InvalidArgument(
            fmt::format("{}: the chunk at byte {} of {} bytes runs past the "
                        "end of the {}-byte file",
                        where, offset, size, file_size_));
      }
      if (offset + size > footer_start_) {
        return InvalidArgument(
            fmt::format("{}: the chunk at byte {} of {} bytes overlaps the "
                        "footer at byte {}",
                        where, offset, size, footer_start_));
      }
      chunks_[g].push_back(
          {static_cast<uint64_t>(start), static_cast<uint64_t>(m.total_compressed_size)});
    }
  }
  return Ok();
}

Result<std::unique_ptr<FileReader>> FileReader::Open(std::shared_ptr<FileSystem> fs,
                                                     const std::string& path,
                                                     ReaderOptions options) {
  std::unique_ptr<FileReader> r(new FileReader());
  r->fs_ = std::move(fs);
  r->path_ = path;
  r->options_ = options;
  SLUICE_ASSIGN_OR_RETURN(r->file_, r->fs_->OpenRandomAccess(path));
  r->file_size_ = r->file_->size();
  r->mapped_ = r->file_->Mapped();
  if (r->mapped_ && r->mapped_->size() != r->file_size_) r->mapped_.reset();
  SLUICE_TRY(r->ReadFrame());
  auto schema = BuildReadSchema(r->meta_.schema);
  if (!schema) return Fail(schema.error().WithContext(fmt::format("{}: schema", path)));
  r->schema_ = std::move(*schema);
  if (r->schema_.leaves.empty()) {
    return InvalidArgument(fmt::format("{}: the schema has no columns", path));
  }
  SLUICE_TRY(r->CheckRowGroups());
  r->buffers_.resize(r->schema_.leaves.size());
  return r;
}

namespace {

// A batch callback that does not look at the screen.
ScreenedBatchCallback Unscreened(const RowBatchCallback& each) {
  return [&each](std::string_view rows, size_t count, const std::vector<uint32_t>&) {
    return each(rows, count);
  };
}

// Each row of a batch on its own: the rows end in '\n' and hold no other.
RowBatchCallback PerRow(const RowCallback& each) {
  return [&each](std::string_view rows, size_t) -> Status {
    while (!rows.empty()) {
      const size_t end = rows.find('\n');
      SLUICE_TRY(each(rows.substr(0, end)));
      rows.remove_prefix(end + 1);
    }
    return Ok();
  };
}

}  // namespace

Status FileReader::ReadRows(int row_group, const Projection& projection, const RowCallback& each) {
  return ReadRowBatches(row_group, projection, PerRow(each));
}

Status FileReader::ReadAllRows(const Projection& projection, const RowCallback& each) {
  return ReadAllRowBatches(projection, PerRow(each));
}

Status FileReader::ReadRowBatches(int row_group, const Projection& projection,
                                  const RowBatchCallback& each) {
  if (row_group < 0 || row_group >= num_row_groups()) {
    return InvalidArgument(
        fmt::format("{}: row group {} (the file has {})", path_, row_group, num_row_groups()));
  }
  SLUICE_ASSIGN_OR_RETURN(AssemblyPlan plan, ProjectPlan(schema_, projection));
  return ReadRowGroup(row_group, plan, Unscreened(each));
}

Status FileReader::ReadScreenedRowBatches(int row_group, const AssemblyPlan& plan,
                                          const ScreenedBatchCallback& each, bool text_free) {
  if (row_group < 0 || row_group >= num_row_groups()) {
    return InvalidArgument(
        fmt::format("{}: row group {} (the file has {})", path_, row_group, num_row_groups()));
  }
  return ReadRowGroup(row_group, plan, each, text_free);
}

Status FileReader::ReadAllRowBatches(const Projection& projection, const RowBatchCallback& each) {
  SLUICE_ASSIGN_OR_RETURN(AssemblyPlan plan, ProjectPlan(schema_, projection));
  const ScreenedBatchCallback unscreened = Unscreened(each);
  for (int g = 0; g < num_row_groups(); ++g) SLUICE_TRY(ReadRowGroup(g, plan, unscreened));
  return Ok();
}

Status FileReader::ReadRowGroup(int row_group, const AssemblyPlan& plan,
                                const ScreenedBatchCallback& each, bool text_free) {
  SLUICE_TRY(ValidatePlan(plan));
  const auto g = static_cast<size_t>(row_group);
  const RowGroup& rg = meta_.row_groups[g];
  const std::string context = fmt::format("{}: row group {}", path_, row_group);
  const size_t n = plan.leaf_columns.size();
  // Unmapped files read each selected chunk whole: one row group's chunks at a time.
  std::vector<std::string> buffers(n);
  std::vector<std::unique_ptr<ColumnChunkReader>> readers;
  std::vector<ColumnChunkReader*> raw;
  readers.reserve(n);
  // Without text, each leaf's values are screened by its node's check as they are decoded.
  std::vector<const ValueScreen*> screens(n, nullptr);
  if (text_free) {
    for (const AssemblyNode& node : plan.nodes) {
      if (node.kind == AssemblyNode::Kind::kLeaf) screens[node.leaf_begin] = &node.screen;
    }
  }
  for (size_t l = 0; l < n; ++l) {
    const size_t c = plan.leaf_columns[l];
    const ChunkRange& range = chunks_[g][c];
    SLUICE_ASSIGN_OR_RETURN(std::string_view bytes, Bytes(range.offset, range.size, buffers[l]));
    SLUICE_ASSIGN_OR_RETURN(
        auto reader, ColumnChunkReader::Make(schema_.leaves[c], *rg.columns[c].meta_data, bytes,
                                             range.offset, context, options_, nullptr, screens[l]));
    raw.push_back(reader.get());
    readers.push_back(std::move(reader));
  }
  RecordAssembler assembler(plan, std::move(raw), context, options_.threads);
  assembler.set_maps_as_objects(options_.maps_as_objects);
  assembler.set_text_free(text_free);
  return assembler.Run(rg.num_rows, each);
}

}  // namespace sluice::parquet
