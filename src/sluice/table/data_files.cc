#include "sluice/table/data_files.h"

#include <fmt/format.h>

#include <chrono>
#include <condition_variable>
#include <deque>
#include <mutex>
#include <thread>

#include "sluice/base/json_writer.h"
#include "sluice/table/column_mapping.h"
#include "sluice/table/file_stats.h"
#include "sluice/table/partition_path.h"
#include "sluice/table/partition_values.h"
#include "sluice/table/transaction.h"

namespace sluice::table {

struct DataFileSink::Open_ {
  std::string path;  // relative to the root, not encoded
  PartitionValues values;
  std::unique_ptr<data::ParquetRecordSink> sink;
  uint64_t rows = 0;
};

// One file written on a thread of its own, from a bounded queue of whole-line blocks or column
// fragments.
struct DataFileSink::Worker {
  struct Item {
    std::string block;
    std::unique_ptr<data::StagedRecords> staged;  // a fragment, when there is no block
  };
  DataFileSink* owner = nullptr;
  std::unique_ptr<Open_> file;
  std::thread thread;
  std::mutex mu;
  std::condition_variable cv;
  std::deque<Item> queue;
  bool closing = false;
  Status status = Ok();
  int64_t rows = 0;

  static constexpr size_t kMaxQueued = 2;

  // Blocks while the queue is full, so memory stays bounded by the workers' queues.
  Status Push(Item item) {
    std::unique_lock<std::mutex> lock(mu);
    cv.wait(lock, [&] { return queue.size() < kMaxQueued || !status.has_value(); });
    if (!status.has_value()) return status;
    queue.push_back(std::move(item));
    cv.notify_all();
    return Ok();
  }

  void Run() {
    while (true) {
      Item item;
      {
        std::unique_lock<std::mutex> lock(mu);
        cv.wait(lock, [&] { return !queue.empty() || closing; });
        if (queue.empty()) return;
        item = std::move(queue.front());
        queue.pop_front();
        cv.notify_all();
      }
      Status s = Ok();
      if (item.staged != nullptr) {
        s = file->sink->AppendFragment(FragmentOf(*item.staged));
        owner->Recycle(std::move(item.staged));
      } else {
        s = file->sink->AppendLines(item.block);
      }
      if (!s.has_value()) {
        std::lock_guard<std::mutex> lock(mu);
        status = s;
        queue.clear();
        cv.notify_all();
        return;
      }
    }
  }
};

namespace {

int64_t NowMs() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

std::string_view CodecSuffix(parquet::Codec codec) {
  switch (codec) {
    case parquet::Codec::kSnappy:
      return "snappy.";
    case parquet::Codec::kGzip:
      return "gz.";
    case parquet::Codec::kZstd:
      return "zstd.";
    case parquet::Codec::kLz4Raw:
      return "lz4raw.";
    case parquet::Codec::kUncompressed:
    case parquet::Codec::kLzo:
    case parquet::Codec::kBrotli:
    case parquet::Codec::kLz4:
      return "";
  }
  return "";
}

// The schema of the files: the table's without its partition columns.
Result<schema::SchemaPtr> FileSchema(const schema::Schema& table,
                                     const std::vector<std::string>& partitions) {
  if (partitions.empty()) return schema::Schema::FromStruct(table.struct_type(), table.info());
  std::vector<schema::Field> fields;
  for (const schema::Field& f : table.fields()) {
    bool partition = false;
    for (const std::string& p : partitions) partition |= p == f.name();
    if (!partition) fields.push_back(f);
  }
  return schema::Schema::Make(std::move(fields), table.info());
}

}  // namespace

std::string DataFileName(int index, std::string_view codec_suffix) {
  return fmt::format("part-{:05d}-{}-c000.{}parquet", index, RandomUuid(), codec_suffix);
}

DataFileSink::DataFileSink(DataFileOptions options,
                           std::shared_ptr<const data::ParquetRecordPlan> plan)
    : data::ParquetStage(std::move(plan)), options_(std::move(options)) {}

DataFileSink::~DataFileSink() { (void)StopWorkers(); }

Status DataFileSink::StartWorkers() {
  parquet::WriterOptions one_thread = options_.writer;
  one_thread.threads = 1;
  for (unsigned i = 0; i < options_.parallel_files; ++i) {
    auto w = std::make_unique<Worker>();
    w->owner = this;
    w->file = std::make_unique<Open_>();
    w->file->path = DataFileName(file_counter_++, CodecSuffix(options_.writer.columns.codec));
    std::string full = options_.root + "/" + w->file->path;
    SLUICE_ASSIGN_OR_RETURN(auto writable, options_.fs->OpenWritable(full, {.sync = true}));
    SLUICE_ASSIGN_OR_RETURN(w->file->sink,
                            data::ParquetRecordSink::Open(plan(), std::move(writable), one_thread));
    written_.push_back(full);
    Worker* raw = w.get();
    w->thread = std::thread([raw] { raw->Run(); });
    workers_.push_back(std::move(w));
  }
  return Ok();
}

// Drain and join every worker; the first worker error, if any.
Status DataFileSink::StopWorkers() {
  Status first = Ok();
  for (auto& w : workers_) {
    {
      std::lock_guard<std::mutex> lock(w->mu);
      w->closing = true;
      w->cv.notify_all();
    }
    if (w->thread.joinable()) w->thread.join();
    if (!w->status.has_value() && first.has_value()) first = w->status;
  }
  return first;
}

Result<std::unique_ptr<DataFileSink>> DataFileSink::Open(DataFileOptions options) {
  for (const std::string& p : options.partition_columns) {
    if (options.schema->struct_type()->FindField(p) == nullptr) {
      return InvalidArgument(fmt::format("partition column '{}' is not in the schema", p));
    }
  }
  SLUICE_TRY(options.fs->CreateDirs(options.root));
  SLUICE_ASSIGN_OR_RETURN(schema::SchemaPtr files,
                          FileSchema(*options.schema, options.partition_columns));
  data::ParquetPlanOptions plan_options;
  plan_options.schema.use_physical_names = options.physical_names;
  SLUICE_ASSIGN_OR_RETURN(auto plan, data::ParquetRecordPlan::Compile(files, plan_options));
  std::unique_ptr<DataFileSink> sink(new DataFileSink(std::move(options), std::move(plan)));
  const DataFileOptions& o = sink->options_;
  sink->slow_path_ = !o.partition_columns.empty() ||
                     (o.constraints != nullptr && !o.constraints->empty()) ||
                     o.replace_where != nullptr;
  if (!sink->slow_path_ && o.max_rows_per_file == 0 && o.parallel_files > 1) {
    SLUICE_TRY(sink->StartWorkers());
  }
  return sink;
}

Result<DataFileSink::Open_*> DataFileSink::FileFor(const std::string& directory,
                                                   const PartitionValues& values) {
  auto it = open_.find(directory);
  if (it != open_.end()) return it->second.get();
  auto file = std::make_unique<Open_>();
  std::string name = DataFileName(file_counter_++, CodecSuffix(options_.writer.columns.codec));
  file->path = directory.empty() ? name : directory + "/" + name;
  file->values = values;
  std::string full = options_.root + "/" + file->path;
  if (!directory.empty()) SLUICE_TRY(options_.fs->CreateDirs(options_.root + "/" + directory));
  SLUICE_ASSIGN_OR_RETURN(auto writable, options_.fs->OpenWritable(full, {.sync = true}));
  SLUICE_ASSIGN_OR_RETURN(
      file->sink, data::ParquetRecordSink::Open(plan(), std::move(writable), options_.writer));
  written_.push_back(full);
  Open_* raw = file.get();
  open_.emplace(directory, std::move(file));
  return raw;
}

Status DataFileSink::CloseFile(Open_& file) {
  SLUICE_TRY(file.sink->Close());
  std::map<std::string, std::string> configuration(options_.configuration.begin(),
                                                   options_.configuration.end());
  SLUICE_ASSIGN_OR_RETURN(StatsOptions stats_options,
                          StatsOptions::FromConfiguration(configuration));
  stats_options.tight_bounds = options_.tight_bounds;
  SLUICE_ASSIGN_OR_RETURN(
      std::string stats,
      FileStatsJson(file.sink->metadata(), plan()->parquet_schema(), stats_options));
  AddFile add;
  add.path = EncodeAddPath(file.path);
  add.partition_values = file.values;
  add.size = file.sink->bytes_written();
  add.modification_time = NowMs();
  add.data_change = true;
  add.stats = std::move(stats);
  adds_.push_back(std::move(add));
  bytes_ += static_cast<uint64_t>(file.sink->bytes_written());
  return Ok();
}

Status DataFileSink::WriteLine(std::string_view line) {
  if (line.empty()) return Ok();
  ++rows_;
  if (!slow_path_) {
    SLUICE_ASSIGN_OR_RETURN(Open_ * file, FileFor("", {}));
    SLUICE_TRY(file->sink->Append(line));
    if (options_.max_rows_per_file > 0 && ++file->rows >= options_.max_rows_per_file) {
      SLUICE_TRY(CloseFile(*file));
      open_.erase("");
    }
    return Ok();
  }
  SLUICE_ASSIGN_OR_RETURN(JsonValue row, ParseJson(line));
  if (options_.replace_where != nullptr) {
    SLUICE_ASSIGN_OR_RETURN(std::optional<ConstraintViolation> outside,
                            options_.replace_where->Check(row));
    if (outside) {
      --rows_;
      failure_ = std::move(outside);
      return Fail(ErrorCode::kIncompatible, failure_->Message());
    }
  }
  if (options_.constraints != nullptr && !options_.constraints->empty()) {
    SLUICE_ASSIGN_OR_RETURN(std::optional<ConstraintViolation> broken,
                            options_.constraints->Check(row));
    if (broken) {
      --rows_;
      if (options_.on_violation == OnViolation::kFail || options_.quarantine == nullptr) {
        failure_ = std::move(broken);
        return Fail(ErrorCode::kIncompatible, failure_->Message());
      }
      ++quarantined_;
      JsonWriter w;
      w.BeginObject();
      w.Key("error").String(broken->Message());
      w.Key("violations").BeginArray().BeginObject();
      w.Key("path").String(broken->name);
      w.Key("kind").String(broken->invariant ? "invariant" : "check_constraint");
      w.EndObject().EndArray();
      w.Key("raw").String(line);
      w.Key("raw_encoding").String("utf8");
      w.EndObject();
      std::string out = w.Take();
      out += '\n';
      return options_.quarantine->Write(out);
    }
  }
  std::string directory;
  PartitionValues values;
  if (!options_.partition_columns.empty()) {
    JsonValue logged = JsonValue::Object();
    for (const std::string& column : options_.partition_columns) {
      const schema::Field* field = options_.schema->struct_type()->FindField(column);
      const JsonValue* v = row.Find(column);
      SLUICE_ASSIGN_OR_RETURN(
          JsonValue text,
          SerializePartitionValue(column, *field->type(), v == nullptr ? JsonValue() : *v));
      std::string key = column;
      if (options_.physical_names) key = PhysicalName(*field);
      values[key] = text.is_string() ? std::optional<std::string>(text.as_string()) : std::nullopt;
      logged.Set(key, std::move(text));
      row.Remove(column);
    }
    std::vector<std::string> keys;
    for (const std::string& column : options_.partition_columns) {
      const schema::Field* field = options_.schema->struct_type()->FindField(column);
      keys.push_back(options_.physical_names ? PhysicalName(*field) : column);
    }
    SLUICE_ASSIGN_OR_RETURN(directory, PartitionDirectory(keys, logged));
    while (!directory.empty() && directory.back() == '/') directory.pop_back();
  }
  SLUICE_ASSIGN_OR_RETURN(Open_ * file, FileFor(directory, values));
  SLUICE_TRY(file->sink->Append(ToJson(row)));
  if (options_.max_rows_per_file > 0 && ++file->rows >= options_.max_rows_per_file) {
    SLUICE_TRY(CloseFile(*file));
    open_.erase(directory);
  }
  return Ok();
}

Status DataFileSink::Write(std::string_view bytes) {
  if (!workers_.empty()) {
    // Whole lines only are dealt out: a block that ends mid-line waits for the rest.
    pending_.append(bytes);
    size_t end = pending_.rfind('\n');
    if (end == std::string::npos) return Ok();
    std::string block = std::move(pending_);
    pending_ = block.substr(end + 1);
    block.resize(end + 1);
    return workers_[next_worker_++ % workers_.size()]->Push({std::move(block), nullptr});
  }
  if (!slow_path_ && options_.max_rows_per_file == 0 && pending_.empty() && !bytes.empty() &&
      bytes.back() == '\n') {
    // The fast path: whole lines straight into the one file.
    SLUICE_ASSIGN_OR_RETURN(Open_ * file, FileFor("", {}));
    int64_t before = file->sink->num_rows();
    SLUICE_TRY(file->sink->AppendLines(bytes));
    rows_ += static_cast<uint64_t>(file->sink->num_rows() - before);
    return Ok();
  }
  pending_.append(bytes);
  size_t start = 0;
  for (size_t nl; (nl = pending_.find('\n', start)) != std::string::npos; start = nl + 1) {
    SLUICE_TRY(WriteLine(std::string_view(pending_).substr(start, nl - start)));
  }
  pending_.erase(0, start);
  return Ok();
}

data::RecordStage* DataFileSink::stage() {
  return slow_path_ || options_.max_rows_per_file > 0 ? nullptr : this;
}

Status DataFileSink::Take(std::unique_ptr<data::StagedRecords> staged) {
  if (!workers_.empty()) {
    return workers_[next_worker_++ % workers_.size()]->Push({std::string(), std::move(staged)});
  }
  SLUICE_ASSIGN_OR_RETURN(Open_ * file, FileFor("", {}));
  const data::ParquetFragment& fragment = FragmentOf(*staged);
  rows_ += static_cast<uint64_t>(fragment.num_rows());
  Status s = file->sink->AppendFragment(fragment);
  Recycle(std::move(staged));
  return s;
}

Status DataFileSink::Finish() {
  if (!workers_.empty()) {
    if (!pending_.empty()) {
      std::string last = std::move(pending_);
      pending_.clear();
      SLUICE_TRY(workers_[next_worker_++ % workers_.size()]->Push({std::move(last), nullptr}));
    }
    SLUICE_TRY(StopWorkers());
    for (auto& w : workers_) {
      rows_ += static_cast<uint64_t>(w->file->sink->num_rows());
      if (w->file->sink->num_rows() == 0) {
        // An empty file is still a valid Parquet file, but Delta writers leave none: drop it.
        w->file->sink.reset();
        continue;
      }
      SLUICE_TRY(CloseFile(*w->file));
    }
    workers_.clear();
    return Ok();
  }
  if (!pending_.empty()) {
    std::string last = std::move(pending_);
    pending_.clear();
    SLUICE_TRY(WriteLine(last));
  }
  for (auto& [directory, file] : open_) SLUICE_TRY(CloseFile(*file));
  open_.clear();
  return Ok();
}

void DataFileSink::Abort() {
  (void)StopWorkers();
  workers_.clear();
  open_.clear();  // unfinished files vanish with their writers
  for (const std::string& path : written_) (void)options_.fs->RemoveFile(path);
  written_.clear();
  adds_.clear();
}

}  // namespace sluice::table
