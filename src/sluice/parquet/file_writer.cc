#include "sluice/parquet/file_writer.h"

#include <algorithm>
#include <condition_variable>
#include <deque>
#include <limits>
#include <mutex>
#include <optional>
#include <thread>

#include "sluice/parquet/compression.h"

#ifndef SLUICE_VERSION
#define SLUICE_VERSION "unknown"
#endif

namespace sluice::parquet {

std::string_view DefaultCreatedBy() { return "sluice version " SLUICE_VERSION; }

void AppendFooter(const FileMetaData& meta, std::string& out) {
  const std::string encoded = WriteFileMetaData(meta);
  out += encoded;
  const uint32_t n = static_cast<uint32_t>(encoded.size());
  for (int i = 0; i < 4; ++i) out += static_cast<char>((n >> (8 * i)) & 0xFF);
  out += "PAR1";
}

namespace {

// A cut row group on its way to the file: its buffered columns, then their encoded chunks.
struct RowGroupJob {
  std::vector<ColumnWriter> columns;
  std::vector<EncodedColumnChunk> chunks;
  int64_t num_rows = 0;
  size_t next_task = 0;  // the next column to encode
  size_t done = 0;       // columns encoded (or failed)
  std::optional<Error> error;
  bool finished() const { return done == columns.size(); }
};

}  // namespace

struct FileWriter::Impl {
  FileSchema schema;
  WriterOptions options;
  ByteSink* sink = nullptr;
  std::unique_ptr<WritableFile> owned;
  std::vector<ColumnWriter> current;
  // Per column, the emptied writer of an encoded row group, whose buffers the next row group
  // takes over (guarded by `mu`).
  std::vector<std::optional<ColumnWriter>> spare;
  int64_t rows_in_group = 0;
  int64_t next_size_check = 1;
  int64_t total_rows = 0;
  int64_t offset = 0;
  FileMetaData meta;
  std::optional<Error> failed;
  bool closed = false;
  std::vector<schema::LossyNote> notes;

  // Encoding: jobs in file order, shared with the workers.
  std::mutex mu;
  std::condition_variable work_cv;  // a task was queued, or stop
  std::condition_variable done_cv;  // a task finished
  std::deque<std::unique_ptr<RowGroupJob>> jobs;
  bool stop = false;
  std::vector<std::thread> workers;

  ~Impl() {
    {
      std::lock_guard lock(mu);
      stop = true;
    }
    work_cv.notify_all();
    for (std::thread& t : workers) t.join();
  }

  // Start a row group on the buffers of an encoded one where there are some; else
  // `previous` (the one just cut, if any) sizes new ones.
  void NewRowGroup(const std::vector<ColumnWriter>* previous = nullptr) {
    current.clear();
    current.reserve(schema.columns.size());
    std::lock_guard lock(mu);
    spare.resize(schema.columns.size());
    for (size_t i = 0; i < schema.columns.size(); ++i) {
      if (spare[i].has_value()) {
        current.push_back(std::move(*spare[i]));
        spare[i].reset();
        continue;
      }
      current.emplace_back(schema.columns[i]);
      if (previous != nullptr) current.back().ReserveLike((*previous)[i]);
    }
    rows_in_group = 0;
    next_size_check = 1;
  }

  Status Write(std::string_view bytes) {
    if (bytes.empty()) return Ok();
    SLUICE_TRY(sink->Write(bytes));
    offset += static_cast<int64_t>(bytes.size());
    return Ok();
  }

  // Take the next column to encode, oldest row group first; false when none is waiting.
  // Called with `mu` held.
  bool TakeTask(RowGroupJob** job, size_t* column) {
    for (auto& j : jobs) {
      if (j->next_task < j->columns.size()) {
        *job = j.get();
        *column = j->next_task++;
        return true;
      }
    }
    return false;
  }

  // Encode one column of a job (without `mu`), then record it (with `mu`).
  void RunTask(RowGroupJob* job, size_t column, std::unique_lock<std::mutex>& lock) {
    lock.unlock();
    Result<EncodedColumnChunk> chunk = EncodeColumnChunk(job->columns[column], options.columns);
    job->columns[column].Clear();
    lock.lock();
    // The buffers go to the next row group, or are freed when one is already waiting there.
    if (column < spare.size() && !spare[column].has_value()) {
      spare[column] = std::move(job->columns[column]);
    }
    job->columns[column] = ColumnWriter(schema.columns[column]);
    if (chunk) {
      job->chunks[column] = std::move(*chunk);
    } else if (!job->error) {
      job->error = std::move(chunk.error());
    }
    ++job->done;
    done_cv.notify_all();
  }

  void WorkerLoop() {
    std::unique_lock lock(mu);
    while (true) {
      RowGroupJob* job = nullptr;
      size_t column = 0;
      work_cv.wait(lock, [&] { return stop || TakeTask(&job, &column); });
      if (job == nullptr) return;  // stop, and nothing taken
      RunTask(job, column, lock);
    }
  }

  // Write the oldest job's chunks (it must be finished) and add its RowGroup to the footer.
  Status WriteRowGroup(RowGroupJob& job) {
    if (job.error) return Fail(*job.error);
    RowGroup group;
    group.num_rows = job.num_rows;
    group.file_offset = offset;
    int64_t compressed = 0;
    for (size_t i = 0; i < job.chunks.size(); ++i) {
      EncodedColumnChunk& chunk = job.chunks[i];
      ColumnChunk cc;
      cc.file_offset = offset;
      ColumnMetaData meta = std::move(chunk.meta);
      meta.data_page_offset += offset;
      if (meta.dictionary_page_offset) *meta.dictionary_page_offset += offset;
      SLUICE_TRY(Write(chunk.dictionary_page));
      SLUICE_TRY(Write(chunk.data_pages));
      group.total_byte_size += meta.total_uncompressed_size;
      compressed += meta.total_compressed_size;
      cc.meta_data = std::move(meta);
      group.columns.push_back(std::move(cc));
      chunk = EncodedColumnChunk();  // written: free it
    }
    group.total_compressed_size = compressed;
    if (meta.row_groups.size() <= static_cast<size_t>(std::numeric_limits<int16_t>::max())) {
      group.ordinal = static_cast<int16_t>(meta.row_groups.size());
    }
    meta.num_rows += job.num_rows;
    meta.row_groups.push_back(std::move(group));
    return Ok();
  }

  // Write finished jobs from the front; with `keep` > 0, first help encode (or wait) until at
  // most `keep` jobs are left in flight.
  Status Drain(size_t keep) {
    std::unique_lock lock(mu);
    while (!jobs.empty()) {
      RowGroupJob& front = *jobs.front();
      if (!front.finished()) {
        if (jobs.size() <= keep) break;
        RowGroupJob* job = nullptr;
        size_t column = 0;
        if (TakeTask(&job, &column)) {
          RunTask(job, column, lock);
        } else {
          done_cv.wait(lock);
        }
        continue;
      }
      std::unique_ptr<RowGroupJob> job = std::move(jobs.front());
      jobs.pop_front();
      lock.unlock();
      SLUICE_TRY(WriteRowGroup(*job));
      lock.lock();
    }
    return Ok();
  }

  Status Cut() {
    if (rows_in_group == 0) return Ok();
    auto job = std::make_unique<RowGroupJob>();
    job->columns = std::move(current);
    job->chunks.resize(job->columns.size());
    job->num_rows = rows_in_group;
    const bool empty_schema = job->columns.empty();
    // Only a full row group predicts the next one's size (not the last one, cut by Close).
    NewRowGroup(closed ? nullptr : &job->columns);
    {
      std::lock_guard lock(mu);
      jobs.push_back(std::move(job));
    }
    if (!empty_schema) work_cv.notify_all();
    return Drain(static_cast<size_t>(options.threads - 1));
  }

  size_t BufferedBytes() const {
    size_t n = 0;
    for (const ColumnWriter& c : current) n += c.buffered_bytes();
    return n;
  }

  Status EndRow() {
    ++rows_in_group;
    ++total_rows;
    if (options.max_rows_per_row_group > 0 && rows_in_group >= options.max_rows_per_row_group) {
      return Cut();
    }
    if (rows_in_group < next_size_check) return Ok();
    // Summing every column's size costs O(columns): look again when the rows so far say the
    // group may be half-way to full, at most 1024 rows on.
    const size_t bytes = BufferedBytes();
    if (bytes >= options.row_group_bytes) return Cut();
    const size_t per_row = std::max<size_t>(1, bytes / static_cast<size_t>(rows_in_group));
    const size_t rows_left = (options.row_group_bytes - bytes) / per_row;
    next_size_check =
        rows_in_group + std::clamp<int64_t>(static_cast<int64_t>(rows_left / 2), 1, 1024);
    return Ok();
  }

  Status AppendRows(const ColumnWriter* from, int64_t rows) {
    if (options.max_rows_per_row_group > 0) {
      return InvalidArgument("rows filled apart cannot be appended under a row limit per group");
    }
    for (size_t i = 0; i < current.size(); ++i) {
      if (from[i].num_rows() != rows) {
        return InvalidArgument("column " + std::to_string(i) + " holds " +
                               std::to_string(from[i].num_rows()) + " rows, not " +
                               std::to_string(rows));
      }
    }
    for (size_t i = 0; i < current.size(); ++i) current[i].AppendFrom(from[i]);
    rows_in_group += rows;
    total_rows += rows;
    if (BufferedBytes() >= options.row_group_bytes) return Cut();
    return Ok();
  }

  Status Finish() {
    SLUICE_TRY(Cut());
    SLUICE_TRY(Drain(0));
    meta.version = 1;
    meta.schema = schema.elements;
    meta.key_value_metadata = options.key_value_metadata;
    meta.created_by =
        options.created_by.empty() ? std::string(DefaultCreatedBy()) : options.created_by;
    meta.column_orders.assign(schema.columns.size(), true);
    std::string footer;
    AppendFooter(meta, footer);
    SLUICE_TRY(Write(footer));
    if (owned) SLUICE_TRY(owned->Commit());
    return Ok();
  }

  // Run `step`; its first error fails the writer for good.
  template <class F>
  Status Guard(F&& step) {
    if (failed) return Fail(*failed);
    Status s = step();
    if (!s) failed = s.error();
    return s;
  }
};

namespace {

size_t CountLeaves(const std::vector<SchemaElement>& elements) {
  size_t n = 0;
  for (const SchemaElement& e : elements) n += !e.num_children.has_value();
  return n;
}

}  // namespace

FileSchema FileSchemaFor(const ParquetSchema& schema) {
  FileSchema out;
  out.elements = schema.elements();
  out.columns.reserve(schema.leaves().size());
  for (const ColumnDescriptor& leaf : schema.leaves()) {
    ColumnSpec spec;
    spec.path = leaf.path;
    spec.type = leaf.physical;
    spec.type_length = leaf.physical == PhysicalType::kFixedLenByteArray ? leaf.type_length : 0;
    spec.max_def_level = leaf.max_def;
    spec.max_rep_level = leaf.max_rep;
    const bool bytes = leaf.physical == PhysicalType::kByteArray ||
                       leaf.physical == PhysicalType::kFixedLenByteArray;
    switch (leaf.sort_order) {
      case SortOrder::kSigned:
        // A signed order on bytes is a decimal's: two's complement, by value.
        spec.order = bytes ? StatisticsOrder::kBigEndianSigned : StatisticsOrder::kSigned;
        break;
      case SortOrder::kUnsigned:
        spec.order = StatisticsOrder::kUnsigned;
        break;
      case SortOrder::kUnknown:
        spec.order = StatisticsOrder::kUndefined;
        break;
    }
    out.columns.push_back(std::move(spec));
  }
  return out;
}

FileWriter::FileWriter(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
FileWriter::~FileWriter() = default;

Result<std::unique_ptr<FileWriter>> FileWriter::Open(FileSchema schema, ByteSink& sink,
                                                     WriterOptions options) {
  if (schema.elements.empty() || !schema.elements[0].num_children) {
    return InvalidArgument("a Parquet schema starts with its root group");
  }
  if (CountLeaves(schema.elements) != schema.columns.size()) {
    return InvalidArgument("the schema has " + std::to_string(CountLeaves(schema.elements)) +
                           " leaves but " + std::to_string(schema.columns.size()) +
                           " column specs");
  }
  if (!CanCompress(options.columns.codec)) {
    return InvalidArgument("the Parquet writer cannot compress with " +
                           std::string(CodecName(options.columns.codec)));
  }
  if (options.threads < 1) return InvalidArgument("a Parquet writer needs at least one thread");
  auto impl = std::make_unique<Impl>();
  impl->schema = std::move(schema);
  impl->options = std::move(options);
  impl->sink = &sink;
  impl->NewRowGroup();
  SLUICE_TRY(impl->Write("PAR1"));
  for (int i = 1; i < impl->options.threads; ++i) {
    impl->workers.emplace_back([p = impl.get()] { p->WorkerLoop(); });
  }
  return std::unique_ptr<FileWriter>(new FileWriter(std::move(impl)));
}

Result<std::unique_ptr<FileWriter>> FileWriter::Open(FileSchema schema,
                                                     std::unique_ptr<WritableFile> file,
                                                     WriterOptions options) {
  if (!file) return InvalidArgument("no file to write the Parquet file to");
  ByteSink& sink = *file;
  SLUICE_ASSIGN_OR_RETURN(auto writer, Open(std::move(schema), sink, std::move(options)));
  writer->impl_->owned = std::move(file);
  return writer;
}

Result<std::unique_ptr<FileWriter>> FileWriter::Open(schema::SchemaPtr schema, ByteSink& sink,
                                                     WriterOptions options) {
  SLUICE_ASSIGN_OR_RETURN(auto mapped, ParquetSchema::FromModel(std::move(schema)));
  SLUICE_ASSIGN_OR_RETURN(auto writer, Open(FileSchemaFor(mapped.value), sink, std::move(options)));
  writer->impl_->notes = std::move(mapped.notes);
  return writer;
}

Result<std::unique_ptr<FileWriter>> FileWriter::Open(schema::SchemaPtr schema,
                                                     std::unique_ptr<WritableFile> file,
                                                     WriterOptions options) {
  SLUICE_ASSIGN_OR_RETURN(auto mapped, ParquetSchema::FromModel(std::move(schema)));
  SLUICE_ASSIGN_OR_RETURN(auto writer,
                          Open(FileSchemaFor(mapped.value), std::move(file), std::move(options)));
  writer->impl_->notes = std::move(mapped.notes);
  return writer;
}

const std::vector<schema::LossyNote>& FileWriter::notes() const { return impl_->notes; }

size_t FileWriter::num_columns() const { return impl_->current.size(); }
ColumnWriter* FileWriter::columns() { return impl_->current.data(); }

Status FileWriter::AppendRows(const ColumnWriter* columns, int64_t rows) {
  Impl& s = *impl_;
  return s.Guard([&] { return s.AppendRows(columns, rows); });
}

Status FileWriter::EndRow() {
  Impl& s = *impl_;
  if (s.failed) return Fail(*s.failed);
  return s.Guard([&] { return s.EndRow(); });
}

Status FileWriter::FlushRowGroup() {
  Impl& s = *impl_;
  return s.Guard([&] { return s.Cut(); });
}

Status FileWriter::Close() {
  Impl& s = *impl_;
  if (s.closed) return InvalidArgument("the Parquet writer is already closed");
  s.closed = true;
  return s.Guard([&] { return s.Finish(); });
}

int64_t FileWriter::num_rows() const { return impl_->total_rows; }
int64_t FileWriter::bytes_written() const { return impl_->offset; }
const FileMetaData& FileWriter::metadata() const { return impl_->meta; }

}  // namespace sluice::parquet
