// One batch of an ingest, shared by the folder and Kafka sources: the schema evolved by the
// batch's records in the ingest's mode, the write into the table with the batch's `txn`
// actions, the quarantine and report staged in the checkpoint before the commit and delivered
// exactly once after it; and the recovery of a batch a crash left open.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "sluice/base/result.h"
#include "sluice/ingest/batch_report.h"
#include "sluice/ingest/checkpoint.h"
#include "sluice/ingest/ingest.h"
#include "sluice/ingest/schema_location.h"
#include "sluice/table/actions.h"
#include "sluice/table/snapshot.h"
#include "sluice/table/write.h"

namespace sluice::ingest {

/// What a batch reads, beyond its checkpoint record.
struct BatchInput {
  /// Files to read (a folder's files, or a Kafka batch staged as JSON lines).
  std::vector<std::string> paths;
  data::RecordFormat format = data::RecordFormat::kJsonLines;
  /// The batch's own schema when the source knows it (Kafka: the writer schemas); else it is
  /// inferred from `paths` when the mode may evolve.
  schema::SchemaPtr batch_schema;
  /// More txn actions for the commit (Kafka: one per partition) and a check of the snapshot the
  /// write reads (Kafka: no other consumer wrote these offsets).
  std::vector<table::Txn> txns;
  std::function<Status(const table::Snapshot*)> check_snapshot;
  /// Quarantine lines the source made itself (undecodable messages, unreadable files), staged
  /// and delivered with the batch's; counted in records_in and quarantined.
  std::string source_quarantine;
  uint64_t source_quarantined = 0;
  /// Of those, records that could not be read at all (undecodable messages): counted in
  /// malformed.
  uint64_t source_malformed = 0;
  /// The bytes of input the batch read, when they are not the bytes of `paths` (Kafka: the
  /// messages' keys and values, not the JSON lines staged from them).
  std::optional<uint64_t> bytes;
  /// Files quarantined whole (their lines are in source_quarantine).
  uint64_t unreadable_files = 0;
  /// Rewrites the validation's quarantine lines before they are staged (Kafka: the staged
  /// file's line numbers become topic, partition and offset).
  std::function<std::string(std::string_view lines)> annotate_quarantine;
};

struct BatchOutcome {
  std::optional<BatchReport> report;
  std::optional<IngestStop> stop;
};

/// Crash points for the kill tests: when the environment variable SLUICE_INGEST_CRASH_AT is N,
/// the process kills itself (SIGKILL) at the N-th point it passes. Does nothing otherwise.
void CrashPoint(const char* where);

class BatchRunner {
 public:
  BatchRunner(const IngestOptions& options, Checkpoint& checkpoint, SchemaLocation& location,
              SchemaVersion current);

  /// Write the planned `batch`. A stop (failOnNewColumns, a refused write) leaves nothing in
  /// the table; with failOnNewColumns the batch is dropped from the checkpoint.
  Result<BatchOutcome> Write(const Batch& batch, const BatchInput& input);

  /// Finish a batch a previous run left open. nullopt: it never reached the table and must be
  /// written again (its staged lines are discarded).
  Result<std::optional<BatchReport>> Recover(const Batch& batch);

  const SchemaVersion& schema() const { return current_; }
  EvolutionMode mode() const { return mode_; }

 private:
  Result<std::optional<IngestStop>> Evolve(const BatchInput& input, BatchReport& report);
  bool ShowsEvolution(const data::ValidateReport& validated) const;
  table::TableWriteOptions WriteOptions(const Batch& batch, const BatchInput& input) const;
  Result<BatchOutcome> WriteNothing(const Batch& batch, const BatchInput& input,
                                    BatchReport report);
  Result<BatchOutcome> Finish(const Batch& batch, table::TableWriteResult result,
                              BatchReport report, std::string staged_quarantine);
  Status Deliver(const Batch& batch, int64_t table_version);
  /// The table version of the batch's commit; nullopt when the table does not hold it.
  Result<std::optional<int64_t>> CommittedVersion(int64_t batch);

  const IngestOptions& options_;
  Checkpoint& checkpoint_;
  SchemaLocation& location_;
  SchemaVersion current_;
  EvolutionMode mode_;
};

/// The quarantine file an ingest appends to.
std::string QuarantinePath(const IngestOptions& options);
int64_t NowMs();

}  // namespace sluice::ingest
