// Where `sluice validate` writes its valid records: JSON lines (a file or standard output), or
// Parquet files (one, or one per --max-rows-per-file rows), chosen by --out-format or the
// output's name.
#pragma once

#include <CLI/CLI.hpp>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "sluice/base/file_system.h"
#include "sluice/base/result.h"
#include "sluice/data/file_runs.h"
#include "sluice/parquet/metadata.h"
#include "sluice/schema/schema.h"

namespace sluice::cli {

/// The flags of the records' output: `--out-format`, `--max-rows-per-file`, `--compression`.
struct RecordOutputFlags {
  std::string out_format = "auto";
  uint64_t max_rows_per_file = 0;
  std::string compression = "snappy";
  uint64_t row_group_mb = 128;

  void Register(CLI::App* cmd);
  /// Parquet when --out-format says so, or it is auto and `path` ends in `.parquet`.
  bool Parquet(const std::string& path) const;
};

/// A --compression value: snappy, zstd, gzip, lz4_raw or none.
Result<parquet::Codec> CodecNamed(const std::string& name);

/// A sink for the validator's output lines that writes them where the flags say. Each file
/// appears whole under its name: at Commit, or, with --max-rows-per-file, when it is full.
class RecordOutput : public ByteSink {
 public:
  /// `schema` and `rescued_column` describe the lines (the validator's output); `threads`
  /// encode Parquet row groups. Errors name the flag at fault.
  static Result<std::unique_ptr<RecordOutput>> Open(const std::string& path,
                                                    const RecordOutputFlags& flags,
                                                    const schema::SchemaPtr& schema,
                                                    const std::string& rescued_column,
                                                    unsigned threads);
  ~RecordOutput() override;
  Status Write(std::string_view bytes) override = 0;
  /// Finish every file and move it into place.
  virtual Status Commit() = 0;
  /// The files written (after Commit).
  virtual std::vector<std::string> files() const = 0;
  /// Where the validator hands the valid records instead of Write, if the output takes them in
  /// another form (Parquet on several threads: column fragments shredded on its workers).
  virtual data::RecordStage* stage() { return nullptr; }
};

}  // namespace sluice::cli
