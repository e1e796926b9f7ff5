// The folder source: discover new files, plan a batch of them, write it; recover first what a
// crash left open.
#include <chrono>
#include <thread>
#include <utility>

#include "sluice/base/json_writer.h"
#include "sluice/data/parquet_source.h"
#include "sluice/ingest/batch_internal.h"
#include "sluice/ingest/discovery.h"
#include "sluice/ingest/inference.h"
#include "sluice/ingest/ingest.h"
#include "sluice/ingest/source_internal.h"

namespace sluice::ingest {
namespace {

// Why a file cannot be read at all, or nullopt. Record-level trouble (a malformed line) is not
// this: it is quarantined record by record.
Result<std::optional<std::string>> Unreadable(FileSystem& fs, const std::string& path,
                                              data::RecordFormat format) {
  auto file = fs.OpenSequential(path);
  if (!file.has_value()) {
    if (file.error().code() == ErrorCode::kNotFound) {
      return std::optional<std::string>("the file is gone (removed after it was found)");
    }
    return std::optional<std::string>(file.error().message());
  }
  char byte = 0;
  auto read = (*file)->Read(&byte, 1);
  if (!read.has_value()) return std::optional<std::string>(read.error().message());
  if (format == data::RecordFormat::kParquet) {
    auto rows = data::OpenParquetRows(fs, path);
    if (!rows.has_value()) return std::optional<std::string>(rows.error().message());
  }
  return std::optional<std::string>();
}

std::string UnreadableLine(const std::string& path, const std::string& reason) {
  JsonValue line = JsonValue::Object();
  line.Set("file", JsonValue::String(path));
  line.Set("error", JsonValue::String("unreadable file: " + reason));
  JsonValue violation = JsonValue::Object();
  violation.Set("path", JsonValue::String(""));
  violation.Set("kind", JsonValue::String("unreadable_file"));
  JsonValue violations = JsonValue::Array();
  violations.Append(std::move(violation));
  line.Set("violations", std::move(violations));
  return ToJson(line) + "\n";
}

class FolderIngest {
 public:
  FolderIngest(const IngestOptions& options, const RunControl& control, Checkpoint& checkpoint)
      : options_(options),
        control_(control),
        checkpoint_(checkpoint),
        location_(options.fs,
                  options.schema_location.empty() ? options.checkpoint : options.schema_location) {}

  Result<IngestRun> Run() {
    run_.checkpoint_id = checkpoint_.id();
    for (;;) {
      if (Stopping()) break;
      SLUICE_ASSIGN_OR_RETURN(std::optional<Batch> open, checkpoint_.OpenBatch());
      if (open) {
        SLUICE_ASSIGN_OR_RETURN(bool go_on, Finish(*open));
        if (!go_on) break;
        continue;
      }
      SLUICE_ASSIGN_OR_RETURN(std::set<std::string> known, checkpoint_.KnownFiles());
      DiscoveryOptions d{options_.pattern, options_.min_file_age_ms, OwnPaths()};
      SLUICE_ASSIGN_OR_RETURN(std::vector<BatchFile> found,
                              DiscoverFiles(*options_.fs, options_.source, d, known, NowMs()));
      if (found.empty()) {
        if (!control_.watch) break;
        Sleep();
        continue;
      }
      SLUICE_ASSIGN_OR_RETURN(bool go_on, Next(found));
      if (!go_on) break;
    }
    if (runner_) run_.schema_version = runner_->schema().version;
    return std::move(run_);
  }

 private:
  bool Stopping() const { return control_.stop != nullptr && control_.stop->load(); }

  // What the ingest itself writes, never to be read as input when it sits in the folder.
  std::vector<std::string> OwnPaths() const {
    std::vector<std::string> out = {options_.checkpoint, options_.table, location_.dir(),
                                    QuarantinePath(options_)};
    if (!options_.report.empty()) out.push_back(options_.report);
    return out;
  }

  void Sleep() const {
    const auto until =
        std::chrono::steady_clock::now() + std::chrono::milliseconds(control_.interval_ms);
    while (!Stopping() && std::chrono::steady_clock::now() < until) {
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
  }

  // The format given, else the one the first file that still opens suggests (JSON lines when
  // none does: every file is then quarantined as unreadable).
  data::RecordFormat FormatOf(const std::vector<BatchFile>& files) {
    if (options_.format) return *options_.format;
    if (format_) return *format_;
    for (const BatchFile& f : files) {
      auto file = options_.fs->OpenSequential(f.path);
      if (!file.has_value()) continue;
      std::string head(64, '\0');
      auto n = (*file)->Read(head.data(), head.size());
      if (!n.has_value()) continue;
      head.resize(*n);
      format_ = data::GuessRecordFormat(f.path, head);
      return *format_;
    }
    return data::RecordFormat::kJsonLines;
  }

  // The runner, with the schema to read with: stored, given, or inferred from `sample`.
  Status Ready(const std::vector<BatchFile>& sample, data::RecordFormat format) {
    if (runner_) return Ok();
    std::vector<std::string> paths;
    uint64_t bytes = 0;
    for (const BatchFile& f : sample) {
      if (paths.size() >= options_.sample_files || bytes >= options_.sample_bytes) break;
      SLUICE_ASSIGN_OR_RETURN(auto bad, Unreadable(*options_.fs, f.path, format));
      if (bad) continue;
      paths.push_back(f.path);
      bytes += f.size;
    }
    SLUICE_ASSIGN_OR_RETURN(
        SchemaVersion current,
        EnsureSchema(options_, location_, [&]() -> Result<schema::SchemaPtr> {
          if (paths.empty()) {
            return InvalidArgument("no readable file to infer the schema from; give --schema");
          }
          return InferSchemaOf(options_, paths, format);
        }));
    runner_.emplace(options_, checkpoint_, location_, std::move(current));
    return Ok();
  }

  // A batch a previous run left open: finished if it committed, else written again.
  Result<bool> Finish(const Batch& open) {
    if (open.files.empty()) {
      // Nothing readable in it (its unreadable files are recorded): drop and plan afresh.
      SLUICE_TRY(checkpoint_.Drop(open.id));
      return true;
    }
    const data::RecordFormat format = FormatOf(open.files);
    SLUICE_TRY(Ready(open.files, format));
    SLUICE_ASSIGN_OR_RETURN(std::optional<BatchReport> recovered, runner_->Recover(open));
    if (recovered) return Report(std::move(*recovered));
    return Write(open, format);
  }

  Result<bool> Next(const std::vector<BatchFile>& found) {
    const data::RecordFormat format = FormatOf(found);
    SLUICE_TRY(Ready(found, format));
    SLUICE_ASSIGN_OR_RETURN(int64_t id, checkpoint_.NextBatchId());
    Batch batch;
    batch.id = id;
    batch.started_ms = NowMs();
    uint64_t bytes = 0;
    for (const BatchFile& f : found) {
      if (batch.files.size() >= options_.max_files_per_batch) break;
      if (options_.max_bytes_per_batch > 0 && !batch.files.empty() &&
          bytes + f.size > options_.max_bytes_per_batch) {
        break;
      }
      batch.files.push_back(f);
      bytes += f.size;
    }
    SLUICE_TRY(checkpoint_.Plan(batch));
    CrashPoint("batch planned");
    return Write(batch, format);
  }

  Result<bool> Write(const Batch& planned, data::RecordFormat format) {
    BatchInput input;
    input.format = format;
    // The batch as it is read: without the files left for later, so that its report (and its
    // place in the checkpoint) names only what it read.
    Batch batch = planned;
    batch.files.clear();
    for (const BatchFile& f : planned.files) {
      if (auto now = options_.fs->Stat(f.path);
          now.has_value() && (now->size != f.size || now->modified_ms != f.modified_ms)) {
        // Still being written (or rewritten): found again, as it is then, by a later batch.
        SLUICE_TRY(checkpoint_.Forget(f.path));
        continue;
      }
      batch.files.push_back(f);
      SLUICE_ASSIGN_OR_RETURN(auto bad, Unreadable(*options_.fs, f.path, format));
      if (bad) {
        SLUICE_TRY(checkpoint_.RecordUnreadable({f, *bad, batch.id}));
        input.source_quarantine += UnreadableLine(f.path, *bad);
        ++input.unreadable_files;
        continue;
      }
      input.paths.push_back(f.path);
    }
    if (input.paths.empty() && input.unreadable_files == 0) {
      // Every file of the batch was still being written: nothing to commit or report; they
      // are found again, whole, by a later look, after a pause that lets the writer go on.
      SLUICE_TRY(checkpoint_.Drop(batch.id));
      if (!Stopping()) std::this_thread::sleep_for(std::chrono::milliseconds(50));
      return true;
    }
    SLUICE_ASSIGN_OR_RETURN(BatchOutcome outcome, runner_->Write(batch, input));
    if (outcome.stop) {
      run_.stopped = std::move(outcome.stop);
      return false;
    }
    if (!outcome.report) return true;
    return Report(std::move(*outcome.report));
  }

  bool Report(BatchReport report) {
    if (control_.on_batch) control_.on_batch(report);
    run_.batches.push_back(std::move(report));
    return true;
  }

  const IngestOptions& options_;
  const RunControl& control_;
  Checkpoint& checkpoint_;
  SchemaLocation location_;
  std::optional<BatchRunner> runner_;
  std::optional<data::RecordFormat> format_;
  IngestRun run_;
};

}  // namespace

Result<IngestRun> RunFolderIngest(const IngestOptions& options, const RunControl& control) {
  const IngestOptions normal = WithNormalPaths(options);
  SLUICE_ASSIGN_OR_RETURN(std::unique_ptr<Checkpoint> checkpoint, OpenCheckpoint(normal, "folder"));
  FolderIngest ingest(normal, control, *checkpoint);
  return ingest.Run();
}

}  // namespace sluice::ingest
