// `sluice ingest`: new files of a folder (or new messages of a Kafka topic, kafka_ingest.h)
// landed into a Delta table in batches, as Databricks Auto Loader lands them: a schema inferred
// once and kept as versions in the schema location, evolved by the batch's records in the
// chosen mode, every record validated (rescued or quarantined, never lost), each batch one
// commit carrying a `txn` action, so that a batch is written exactly once across crashes and
// restarts. See docs/ingest.md.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "sluice/base/file_system.h"
#include "sluice/base/result.h"
#include "sluice/data/auto_loader.h"
#include "sluice/data/file_runs.h"
#include "sluice/ingest/batch_report.h"
#include "sluice/ingest/evolution_mode.h"
#include "sluice/schema/schema.h"

namespace sluice::ingest {

struct IngestOptions {
  std::shared_ptr<FileSystem> fs = LocalFileSystem();
  /// The folder (or kafka://BROKERS/TOPIC) read, the Delta table written, the checkpoint kept.
  std::string source;
  std::string table;
  std::string checkpoint;
  /// Where schema versions live (`<dir>/_schemas/N`); default: the checkpoint folder.
  std::string schema_location;

  /// cloudFiles.format; nullopt: guessed from the first file found.
  std::optional<data::RecordFormat> format;
  data::CsvRunOptions csv;
  /// A schema given by the user (cloudFiles' .schema()); else inferred from the first files.
  schema::SchemaPtr schema;
  /// cloudFiles.schemaEvolutionMode; default: addNewColumns without a schema, none with one.
  std::optional<EvolutionMode> evolution_mode;
  /// cloudFiles.inferColumnTypes, cloudFiles.schemaHints, rescuedDataColumn.
  data::AutoLoaderOptions auto_loader;
  /// The rescued-data column was named explicitly (`none` mode rescues only then).
  bool rescued_column_given = false;

  /// pathGlobFilter; files younger than this are left for later (being written).
  std::string pattern;
  int64_t min_file_age_ms = 0;
  /// cloudFiles.maxFilesPerTrigger (default 1000) and maxBytesPerTrigger (0: no limit; a soft
  /// limit, a file is never split).
  size_t max_files_per_batch = 1000;
  uint64_t max_bytes_per_batch = 0;
  /// Auto Loader's inference sample: the first 1000 files or 50 GB, whichever comes first.
  size_t sample_files = 1000;
  uint64_t sample_bytes = uint64_t{50} << 30;

  /// A new table's partition columns and properties.
  std::vector<std::string> partition_by;
  std::vector<std::pair<std::string, std::string>> table_properties;
  unsigned threads = 0;

  /// Quarantined records (JSON lines, appended exactly once per batch); default
  /// `<checkpoint>/quarantine.jsonl`. Batch reports as JSON lines, appended exactly once;
  /// empty for none.
  std::string quarantine;
  std::string report;
  /// Start a new checkpoint for a table this source was already ingested into by a checkpoint
  /// that is gone (its files would be written again).
  bool allow_new_checkpoint = false;
};

/// Why a run stopped before reading everything.
struct IngestStop {
  enum class Kind : uint8_t {
    /// failOnNewColumns met new columns: nothing of the batch was written.
    kNewColumns,
    /// The table refused the batch (its schema changed under the ingest, a constraint): the
    /// batch stays planned and is retried on the next start.
    kRejected,
  };
  Kind kind = Kind::kNewColumns;
  std::string message;
  /// The schema read with, and the one the batch would have needed (kNewColumns).
  schema::SchemaPtr before;
  schema::SchemaPtr after;
  std::vector<std::string> columns;
};

struct RunControl {
  /// Keep going (--watch): look for new input every `interval_ms` until `stop` is set.
  bool watch = false;
  int64_t interval_ms = 10000;
  const std::atomic<bool>* stop = nullptr;
  /// Called after each batch (and each recovered one).
  std::function<void(const BatchReport&)> on_batch;
};

struct IngestRun {
  std::vector<BatchReport> batches;
  std::optional<IngestStop> stopped;
  /// The schema version in use at the end, and the checkpoint's id (the txn appId).
  int64_t schema_version = -1;
  std::string checkpoint_id;
};

/// Ingest the new files of the folder `options.source`. Errors for what stops the run (an
/// unreadable checkpoint, I/O, a checkpoint of another source, a concurrent commit that
/// conflicts); a stop by the rules is IngestRun::stopped.
Result<IngestRun> RunFolderIngest(const IngestOptions& options, const RunControl& control);

/// The evolution mode an ingest uses: the one given, else Auto Loader's default.
EvolutionMode EffectiveMode(const IngestOptions& options);

/// Return `path` as an ingest compares paths: lexically normal (`.` and `a/..` steps and doubled
/// slashes gone) and without a trailing slash, so `ckpt/`, `./ckpt` and `ckpt` are one folder.
/// The file system is not asked (symbolic links are not resolved).
std::string NormalPath(std::string_view path);

}  // namespace sluice::ingest
