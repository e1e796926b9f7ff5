#include "sluice/data/parquet_stage.h"

namespace sluice::data {

struct ParquetStage::Piece final : StagedRecords {
  explicit Piece(std::shared_ptr<const ParquetRecordPlan> plan) : fragment(std::move(plan)) {}
  ParquetFragment fragment;
};

ParquetStage::ParquetStage(std::shared_ptr<const ParquetRecordPlan> plan)
    : plan_(std::move(plan)) {}

ParquetStage::~ParquetStage() = default;

std::shared_ptr<const TapeMap> ParquetStage::TapeMapFor(const ValidationPlan& plan) {
  return plan_->TapeMapFor(plan);
}

Result<std::unique_ptr<StagedRecords>> ParquetStage::Stage(std::string_view lines,
                                                           const LeafTape* tape) {
  std::unique_ptr<Piece> piece;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (!free_.empty()) {
      piece = std::move(free_.back());
      free_.pop_back();
    }
  }
  if (piece == nullptr) piece = std::make_unique<Piece>(plan_);
  Status s = tape == nullptr ? piece->fragment.AppendLines(lines)
                             : piece->fragment.AppendLines(lines, *tape);
  if (!s.has_value()) return Fail(s.error().WithContext("shredding the valid records"));
  return std::unique_ptr<StagedRecords>(std::move(piece));
}

const ParquetFragment& ParquetStage::FragmentOf(const StagedRecords& staged) {
  return static_cast<const Piece&>(staged).fragment;
}

void ParquetStage::Recycle(std::unique_ptr<StagedRecords> staged) {
  std::unique_ptr<Piece> piece(static_cast<Piece*>(staged.release()));
  piece->fragment.Clear();
  std::lock_guard<std::mutex> lock(mu_);
  free_.push_back(std::move(piece));
}

}  // namespace sluice::data
