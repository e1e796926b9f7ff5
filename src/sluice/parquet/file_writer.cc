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

// One column of a row group on its way to the file: segments of its entries waiting to be
// encoded, in order, and the builder they go into.
struct ColumnJob {
  std::unique_ptr<ColumnChunkBuilder> builder;
  std::deque<ColumnWriter> pending;
  bool busy = false;      // a thread is encoding one of its segments, or finishing it
  bool finished = false;  // its chunk is built (or failed)
};

// A row group: the newest is being filled; once cut, it is written when every column is done.
struct RowGroupJob {
  std::vector<ColumnJob> columns;
  std::vector<EncodedColumnChunk> chunks;
  int64_t num_rows = 0;
  bool cut = false;
  size_t done = 0;  // columns finished
  std::optional<Error> error;
  bool finished() const { return cut && done == columns.size(); }
};

// A column's next step: encode a segment, or (none given) finish the chunk.
struct Task {
  RowGroupJob* job = nullptr;
  size_t column = 0;
  std::optional<ColumnWriter> segment;
};

}  // namespace

struct FileWriter::Impl {
  FileSchema schema;
  WriterOptions options;
  ByteSink* sink = nullptr;
  std::unique_ptr<WritableFile> owned;
  // The open row group's buffers, filled by the caller; each is handed to the encoders as a
  // segment once it holds options.segment_bytes.
  std::vector<ColumnWriter> current;
  RowGroupJob* open = nullptr;  // jobs.back()
  size_t handed_bytes = 0;      // bytes of the open row group already handed over
  int64_t rows_in_group = 0;
  int64_t next_size_check = 1;
  int64_t total_rows = 0;
  int64_t offset = 0;
  FileMetaData meta;
  std::optional<Error> failed;
  bool closed = false;
  std::vector<schema::LossyNote> notes;

  // Encoding: jobs in file order, shared with the workers (all guarded by `mu`).
  std::mutex mu;
  std::condition_variable work_cv;  // a task may be ready, or stop
  std::condition_variable done_cv;  // a task finished
  std::deque<std::unique_ptr<RowGroupJob>> jobs;
  // Per column, one emptied buffer kept for the segments to come: fresh memory costs a page
  // fault every 4 KiB, but each buffer kept is memory held.
  std::vector<std::optional<ColumnWriter>> spare;
  size_t pending_bytes = 0;  // of segments handed over and not yet encoded
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

  // An empty buffer for column `i`. Called with `mu` held.
  ColumnWriter TakeSpare(size_t i) {
    if (!spare[i]) return ColumnWriter(schema.columns[i]);
    ColumnWriter w = std::move(*spare[i]);
    spare[i].reset();
    return w;
  }

  // Open the next row group: a job with a builder per column, and empty buffers.
  Status NewRowGroup() {
    auto job = std::make_unique<RowGroupJob>();
    job->columns.resize(schema.columns.size());
    job->chunks.resize(schema.columns.size());
    for (size_t i = 0; i < schema.columns.size(); ++i) {
      SLUICE_ASSIGN_OR_RETURN(job->columns[i].builder,
                              NewColumnChunkBuilder(schema.columns[i], options.columns));
    }
    std::lock_guard lock(mu);
    spare.resize(schema.columns.size());
    // After a cut, the buffers are empty ones, kept.
    if (current.size() != schema.columns.size()) {
      current.clear();
      current.reserve(schema.columns.size());
      for (size_t i = 0; i < schema.columns.size(); ++i) current.push_back(TakeSpare(i));
    }
    open = job.get();
    jobs.push_back(std::move(job));
    rows_in_group = 0;
    next_size_check = 1;
    handed_bytes = 0;
    return Ok();
  }

  Status Write(std::string_view bytes) {
    if (bytes.empty()) return Ok();
    SLUICE_TRY(sink->Write(bytes));
    offset += static_cast<int64_t>(bytes.size());
    return Ok();
  }

  // Hand column `i`'s buffer to the encoders as the open row group's next segment. Called with
  // `mu` held.
  void HandOver(size_t i) {
    const size_t bytes = current[i].buffered_bytes();
    handed_bytes += bytes;
    pending_bytes += bytes;
    open->columns[i].pending.push_back(std::move(current[i]));
    current[i] = TakeSpare(i);
  }

  // With one thread, a buffer is encoded where it is and emptied for more: one buffer per
  // column, no copies.
  void EncodeInPlace(size_t i) {
    handed_bytes += current[i].buffered_bytes();
    if (!open->error) {
      Status s = open->columns[i].builder->Add(current[i]);
      if (!s) open->error = s.error();
    }
    current[i].Clear();
  }

  // Hand over every buffer of at least `min_bytes` (every non-empty one with 1): encoded at
  // once with one thread; else queued for the workers, and then true.
  bool HandOverFull(size_t min_bytes) {
    auto full = [&](size_t i) {
      return current[i].num_entries() > 0 && current[i].buffered_bytes() >= min_bytes;
    };
    if (options.threads == 1) {  // no workers: nothing to lock
      for (size_t i = 0; i < current.size(); ++i) {
        if (full(i)) EncodeInPlace(i);
      }
      return false;
    }
    bool any = false;
    std::unique_lock lock(mu, std::defer_lock);  // taken only when a buffer is full
    for (size_t i = 0; i < current.size(); ++i) {
      if (!full(i)) continue;
      if (!lock.owns_lock()) lock.lock();
      HandOver(i);
      any = true;
    }
    return any;
  }

  // Take the next step of some column, oldest row group first; false when none can run now.
  // Called with `mu` held.
  bool TakeTask(Task* task) {
    for (auto& j : jobs) {
      for (size_t i = 0; i < j->columns.size(); ++i) {
        ColumnJob& c = j->columns[i];
        if (c.busy || c.finished) continue;
        if (!c.pending.empty()) {
          task->segment.emplace(std::move(c.pending.front()));
          c.pending.pop_front();
          pending_bytes -= task->segment->buffered_bytes();
        } else if (!j->cut) {
          continue;
        }
        c.busy = true;
        task->job = j.get();
        task->column = i;
        return true;
      }
    }
    return false;
  }

  // Run a task (without `mu`), then record it (with `mu`).
  void RunTask(Task& task, std::unique_lock<std::mutex>& lock) {
    RowGroupJob& job = *task.job;
    ColumnJob& c = job.columns[task.column];
    const bool skip = job.error.has_value();  // the row group is lost: encode nothing more
    lock.unlock();
    Status status = Ok();
    std::optional<Result<EncodedColumnChunk>> chunk;
    if (task.segment) {
      if (!skip) status = c.builder->Add(*task.segment);
      task.segment->Clear();
    } else if (!skip) {
      chunk.emplace(c.builder->Finish());
    }
    lock.lock();
    if (task.segment) {
      if (!spare[task.column]) spare[task.column] = std::move(*task.segment);
      task.segment.reset();
    } else {
      if (chunk && *chunk) job.chunks[task.column] = std::move(**chunk);
      if (chunk && !*chunk) status = Fail(chunk->error());
      c.finished = true;
      c.builder.reset();
      ++job.done;
    }
    if (!status && !job.error) job.error = status.error();
    c.busy = false;
    done_cv.notify_all();
    work_cv.notify_all();  // the column's next segment may run now
  }

  void WorkerLoop() {
    std::unique_lock lock(mu);
    while (true) {
      Task task;
      work_cv.wait(lock, [&] { return stop || TakeTask(&task); });
      if (task.job == nullptr) return;  // stop, and nothing taken
      RunTask(task, lock);
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

  // Write finished row groups from the front. With `keep` > 0, first help encode (or wait)
  // until at most `keep` cut row groups are left in flight; with 0, encode everything that can
  // run (the open row group's segments too) and write every cut row group.
  Status Drain(size_t keep) {
    std::unique_lock lock(mu);
    while (!jobs.empty()) {
      RowGroupJob& front = *jobs.front();  // the open row group at least
      if (front.finished()) {
        std::unique_ptr<RowGroupJob> job = std::move(jobs.front());
        jobs.pop_front();
        lock.unlock();
        SLUICE_TRY(WriteRowGroup(*job));
        lock.lock();
        continue;
      }
      const size_t cut = jobs.size() - 1;
      if (keep > 0 && cut <= keep) break;
      Task task;
      if (TakeTask(&task)) {
        RunTask(task, lock);
      } else if (cut == 0) {
        break;  // nothing of the open row group left to encode
      } else {
        done_cv.wait(lock);
      }
    }
    return Ok();
  }

  // After segments were handed over to the workers: help them while the segments waiting pass
  // their budget, so memory stays bounded, and write the row groups they finished.
  Status Relieve() {
    work_cv.notify_all();
    {
      std::unique_lock lock(mu);
      const size_t budget = std::max(options.max_pending_bytes, options.segment_bytes);
      while (pending_bytes > budget) {
        Task task;
        if (TakeTask(&task)) {
          RunTask(task, lock);
        } else {
          done_cv.wait(lock);
        }
      }
    }
    // Row groups finished since the last cut go to the file now rather than at the next cut.
    return Drain(std::numeric_limits<size_t>::max());
  }

  Status Cut() {
    if (rows_in_group == 0) return Ok();
    HandOverFull(1);
    {
      std::lock_guard lock(mu);
      open->num_rows = rows_in_group;
      open->cut = true;
    }
    SLUICE_TRY(NewRowGroup());
    work_cv.notify_all();
    return Drain(static_cast<size_t>(options.threads - 1));
  }

  size_t GroupBytes() const {
    size_t n = handed_bytes;
    for (const ColumnWriter& c : current) n += c.buffered_bytes();
    return n;
  }

  // Hand over the buffers that reached a segment's size, then cut the row group if it is full.
  Status CheckSizes() {
    if (HandOverFull(std::max<size_t>(options.segment_bytes, 1))) SLUICE_TRY(Relieve());
    if (GroupBytes() >= options.row_group_bytes) return Cut();
    return Ok();
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
    const size_t bytes = GroupBytes();
    if (bytes >= options.row_group_bytes) return Cut();
    const size_t per_row = std::max<size_t>(1, bytes / static_cast<size_t>(rows_in_group));
    const size_t rows_left = (options.row_group_bytes - bytes) / per_row;
    next_size_check =
        rows_in_group + std::clamp<int64_t>(static_cast<int64_t>(rows_left / 2), 1, 1024);
    if (HandOverFull(std::max<size_t>(options.segment_bytes, 1))) return Relieve();
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
    return CheckSizes();
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
  SLUICE_TRY(impl->NewRowGroup());
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

size_t FileWriter::num_columns() const { return impl_->schema.columns.size(); }
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
