// The Parquet form of a validation run's stage (file_runs.h, RecordStage): the valid records of
// a block become a column fragment on the worker that checked them, from the records' tapes
// (leaf_tape.h), and fragments once taken are cleared and filled again (a fresh buffer is
// memory the system maps anew). Outputs that write Parquet derive from it and append the
// fragments they take: `sluice validate -o x.parquet`, a Delta table's data files.
#pragma once

#include <memory>
#include <mutex>
#include <string_view>
#include <vector>

#include "sluice/base/result.h"
#include "sluice/data/file_runs.h"
#include "sluice/data/parquet_sink.h"

namespace sluice::data {

class ParquetStage : public RecordStage {
 public:
  explicit ParquetStage(std::shared_ptr<const ParquetRecordPlan> plan);
  ~ParquetStage() override;

  std::shared_ptr<const TapeMap> TapeMapFor(const ValidationPlan& plan) final;
  /// The lines (and their tape, if any) as a fragment of the plan; any thread.
  Result<std::unique_ptr<StagedRecords>> Stage(std::string_view lines, const LeafTape* tape) final;

  /// The fragment of what Stage made.
  static const ParquetFragment& FragmentOf(const StagedRecords& staged);
  /// Give a taken fragment back, to be cleared and filled again; any thread.
  void Recycle(std::unique_ptr<StagedRecords> staged);

  const std::shared_ptr<const ParquetRecordPlan>& plan() const { return plan_; }

 private:
  struct Piece;
  std::shared_ptr<const ParquetRecordPlan> plan_;
  std::mutex mu_;
  std::vector<std::unique_ptr<Piece>> free_;
};

}  // namespace sluice::data
