#include "cli/record_output.h"

#include <fmt/format.h>
#include <unistd.h>

#include <condition_variable>
#include <deque>
#include <mutex>
#include <thread>

#include "cli/cli_common.h"
#include "sluice/base/std_io.h"
#include "sluice/base/strings.h"
#include "sluice/data/parquet_sink.h"
#include "sluice/data/parquet_stage.h"
#include "sluice/dialects/spark/spark.h"

namespace sluice::cli {

void RecordOutputFlags::Register(CLI::App* cmd) {
  cmd->add_option("--out-format", out_format,
                  "Format of the valid records: jsonl, parquet, or auto (default: parquet when "
                  "the output's name ends in .parquet)")
      ->transform(OneOf({"auto", "jsonl", "parquet"}));
  cmd->add_option("--max-rows-per-file", max_rows_per_file,
                  "Parquet: start a new file after this many records (NAME-00000.parquet, ...)");
  cmd->add_option("--compression", compression,
                  "Parquet: snappy (default), zstd, gzip, lz4_raw or none")
      ->transform(OneOf({"snappy", "zstd", "gzip", "lz4_raw", "none"}));
  cmd->add_option("--row-group-size", row_group_mb,
                  "Parquet: cut a row group at this many MB of buffered data (default 128)")
      ->check(CLI::Range(uint64_t{1}, uint64_t{4096}));
}

bool RecordOutputFlags::Parquet(const std::string& path) const {
  if (out_format != "auto") return out_format == "parquet";
  return EndsWith(AsciiLower(path), ".parquet");
}

RecordOutput::~RecordOutput() = default;

namespace {

class JsonLinesOutput final : public RecordOutput {
 public:
  explicit JsonLinesOutput(std::unique_ptr<WritableFile> file, std::string path)
      : file_(std::move(file)), path_(std::move(path)) {}
  Status Write(std::string_view bytes) override { return file_->Write(bytes); }
  Status Commit() override { return file_->Commit(); }
  std::vector<std::string> files() const override { return {path_}; }

 private:
  std::unique_ptr<WritableFile> file_;
  std::string path_;
};

// Lines arrive in pieces of whole lines (the validator writes block outputs); a piece that
// ends inside a line keeps the rest for the next.
class ParquetOutput final : public RecordOutput {
 public:
  ParquetOutput(std::string path, uint64_t max_rows,
                std::shared_ptr<const data::ParquetRecordPlan> plan, parquet::WriterOptions options)
      : path_(std::move(path)),
        max_rows_(max_rows),
        plan_(std::move(plan)),
        options_(std::move(options)) {}

  Status Write(std::string_view bytes) override {
    if (!partial_.empty()) {
      const size_t nl = bytes.find('\n');
      if (nl == std::string_view::npos) {
        partial_.append(bytes);
        return Ok();
      }
      partial_.append(bytes.substr(0, nl + 1));
      SLUICE_TRY(Line(partial_));
      partial_.clear();
      bytes.remove_prefix(nl + 1);
    }
    const size_t last = bytes.rfind('\n');
    if (last == std::string_view::npos) {
      partial_.assign(bytes);
      return Ok();
    }
    partial_.assign(bytes.substr(last + 1));
    bytes = bytes.substr(0, last + 1);
    if (max_rows_ == 0) {
      SLUICE_TRY(Current());
      return sink_->AppendLines(bytes);
    }
    size_t pos = 0;
    while (pos < bytes.size()) {
      const size_t nl = bytes.find('\n', pos);
      SLUICE_TRY(Line(bytes.substr(pos, nl + 1 - pos)));
      pos = nl + 1;
    }
    return Ok();
  }

  Status Commit() override { return Finish(); }

  Status Finish() {
    if (!partial_.empty()) {
      SLUICE_TRY(Line(partial_));
      partial_.clear();
    }
    // A run without valid records still leaves one file, with the schema and no rows.
    if (files_.empty()) SLUICE_TRY(Current());
    if (sink_) {
      Status s = sink_->Close();
      sink_.reset();
      return s;
    }
    return Ok();
  }

  std::vector<std::string> files() const override { return files_; }

  // Rows shredded elsewhere; only without max_rows (a file would have to end inside them).
  Status AppendFragment(const data::ParquetFragment& fragment) {
    SLUICE_TRY(Current());
    return sink_->AppendFragment(fragment);
  }

 private:
  Status Line(std::string_view line) {
    if (TrimWhitespace(line).empty()) return Ok();
    SLUICE_TRY(Current());
    SLUICE_TRY(sink_->Append(line));
    if (max_rows_ > 0 && ++rows_in_file_ >= max_rows_) {
      Status s = sink_->Close();
      sink_.reset();
      rows_in_file_ = 0;
      return s;
    }
    return Ok();
  }

  // The file being written, opened when the first record (or the end) needs it.
  Status Current() {
    if (sink_) return Ok();
    std::string name = path_;
    if (max_rows_ > 0) {
      const bool suffix = EndsWith(AsciiLower(path_), ".parquet");
      const std::string stem = path_.substr(0, path_.size() - (suffix ? 8 : 0));
      name = fmt::format("{}-{:05}.parquet", stem, files_.size());
    }
    auto file = LocalFileSystem()->OpenWritable(name, {.sync = false});
    if (!file.has_value()) return Fail(file.error().WithContext("--output"));
    SLUICE_ASSIGN_OR_RETURN(sink_,
                            data::ParquetRecordSink::Open(plan_, std::move(*file), options_));
    files_.push_back(std::move(name));
    return Ok();
  }

  std::string path_;
  uint64_t max_rows_;
  std::shared_ptr<const data::ParquetRecordPlan> plan_;
  parquet::WriterOptions options_;
  std::unique_ptr<data::ParquetRecordSink> sink_;
  std::vector<std::string> files_;
  std::string partial_;
  uint64_t rows_in_file_ = 0;
};

// Shreds on a thread of its own, so that validating the next blocks and shredding the ones
// before run at once: the validator's merge thread only copies its output into a queue of
// chunks. The queue is bounded, so memory stays a few blocks' worth.
class PipelinedOutput final : public RecordOutput {
 public:
  explicit PipelinedOutput(std::unique_ptr<ParquetOutput> inner)
      : inner_(std::move(inner)), thread_([this] { Drain(); }) {}
  ~PipelinedOutput() override { Stop(); }

  Status Write(std::string_view bytes) override {
    std::unique_lock lock(mu_);
    room_.wait(lock, [&] { return queue_.size() < kMaxChunks || failed_; });
    if (failed_) return Fail(error_);
    queue_.emplace_back(bytes);
    ready_.notify_one();
    return Ok();
  }

  Status Commit() override {
    Stop();
    if (failed_) return Fail(error_);
    return inner_->Finish();
  }

  std::vector<std::string> files() const override { return inner_->files(); }

 private:
  static constexpr size_t kMaxChunks = 8;

  void Drain() {
    while (true) {
      std::string chunk;
      {
        std::unique_lock lock(mu_);
        ready_.wait(lock, [&] { return !queue_.empty() || done_; });
        if (queue_.empty()) return;
        chunk = std::move(queue_.front());
        queue_.pop_front();
        room_.notify_one();
      }
      Status s = inner_->Write(chunk);
      if (!s.has_value()) {
        std::lock_guard lock(mu_);
        failed_ = true;
        error_ = s.error();
        queue_.clear();
        room_.notify_all();
        return;
      }
    }
  }

  void Stop() {
    {
      std::lock_guard lock(mu_);
      done_ = true;
      ready_.notify_all();
    }
    if (thread_.joinable()) thread_.join();
  }

  std::unique_ptr<ParquetOutput> inner_;
  std::mutex mu_;
  std::condition_variable ready_;
  std::condition_variable room_;
  std::deque<std::string> queue_;
  bool done_ = false;
  bool failed_ = false;
  Error error_{ErrorCode::kInternal, ""};
  std::thread thread_;
};

// Takes the validator's blocks as column fragments made on its workers (data::ParquetStage) and
// appends them to the file in order, a copy of column buffers: no record is parsed again, and
// none on the one thread that would otherwise shred them all (PipelinedOutput). Row groups then
// end between blocks. Not with --max-rows-per-file, whose files end at a row.
class StagedParquetOutput final : public RecordOutput, public data::ParquetStage {
 public:
  StagedParquetOutput(std::unique_ptr<ParquetOutput> inner,
                      std::shared_ptr<const data::ParquetRecordPlan> plan)
      : data::ParquetStage(std::move(plan)), inner_(std::move(inner)) {}

  // Lines that come as text all the same are shredded here.
  Status Write(std::string_view bytes) override { return inner_->Write(bytes); }
  Status Commit() override { return inner_->Finish(); }
  std::vector<std::string> files() const override { return inner_->files(); }
  data::RecordStage* stage() override { return this; }

  Status Take(std::unique_ptr<data::StagedRecords> staged) override {
    Status s = inner_->AppendFragment(FragmentOf(*staged));
    Recycle(std::move(staged));
    return s;
  }

 private:
  std::unique_ptr<ParquetOutput> inner_;
};

}  // namespace

Result<parquet::Codec> CodecNamed(const std::string& name) {
  if (name == "snappy") return parquet::Codec::kSnappy;
  if (name == "zstd") return parquet::Codec::kZstd;
  if (name == "gzip") return parquet::Codec::kGzip;
  if (name == "lz4_raw") return parquet::Codec::kLz4Raw;
  if (name == "none") return parquet::Codec::kUncompressed;
  return InvalidArgument("--compression: unknown codec '" + name + "'");
}

Result<std::unique_ptr<RecordOutput>> RecordOutput::Open(const std::string& path,
                                                         const RecordOutputFlags& flags,
                                                         const schema::SchemaPtr& schema,
                                                         const std::string& rescued_column,
                                                         unsigned threads) {
  if (!flags.Parquet(path)) {
    if (flags.max_rows_per_file > 0) {
      return InvalidArgument("--max-rows-per-file applies to Parquet output (-o NAME.parquet)");
    }
    auto opened = OpenOutput(*LocalFileSystem(), path, STDOUT_FILENO, {.sync = false});
    if (!opened.has_value()) return Fail(opened.error().WithContext("--output"));
    return std::unique_ptr<RecordOutput>(
        std::make_unique<JsonLinesOutput>(std::move(*opened), path.empty() ? "-" : path));
  }
  if (path.empty() || path == "-") {
    return InvalidArgument("Parquet output needs a file: give -o NAME.parquet");
  }
  data::ParquetPlanOptions plan_options;
  plan_options.rescued_column = rescued_column;
  SLUICE_ASSIGN_OR_RETURN(std::shared_ptr<const data::ParquetRecordPlan> plan,
                          data::ParquetRecordPlan::Compile(schema, plan_options));
  parquet::WriterOptions options;
  SLUICE_ASSIGN_OR_RETURN(options.columns.codec, CodecNamed(flags.compression));
  options.row_group_bytes = static_cast<size_t>(flags.row_group_mb) << 20;
  options.threads = static_cast<int>(std::max(1u, threads));
  // Spark keeps the schema as StructType JSON beside the Parquet one; its readers prefer it.
  options.key_value_metadata.push_back({"org.apache.spark.sql.parquet.row.metadata",
                                        dialects::spark::WriteJson(*plan->file_schema()).value});
  auto output =
      std::make_unique<ParquetOutput>(path, flags.max_rows_per_file, plan, std::move(options));
  if (flags.max_rows_per_file == 0) {
    return std::unique_ptr<RecordOutput>(
        std::make_unique<StagedParquetOutput>(std::move(output), plan));
  }
  if (threads <= 1) return std::unique_ptr<RecordOutput>(std::move(output));
  return std::unique_ptr<RecordOutput>(std::make_unique<PipelinedOutput>(std::move(output)));
}

}  // namespace sluice::cli
