#include "sluice/data/parquet_source.h"

#include <fmt/format.h>

#include <algorithm>
#include <condition_variable>
#include <cstring>
#include <deque>
#include <mutex>
#include <optional>
#include <thread>
#include <unordered_map>

#include "sluice/base/strings.h"
#include "sluice/data/typed_schema_merge_internal.h"
#include "sluice/parquet/file_reader.h"

namespace sluice::data {

bool IsParquetFile(const std::string& path, std::string_view head) {
  return EndsWith(AsciiLower(path), ".parquet") || head.substr(0, 4) == "PAR1";
}

namespace {

// A file system the caller owns, for readers that keep a shared one.
std::shared_ptr<FileSystem> Borrowed(FileSystem& fs) {
  return std::shared_ptr<FileSystem>(std::shared_ptr<FileSystem>(), &fs);
}

// Rows are decoded on a thread of their own into pieces of about 4 MB, a few of them queued:
// decoding runs beside validation, and memory holds a few pieces, not a row group's text.
// Without text (OpenParquetRows), a row group's rows take a byte each, and row groups are
// decoded on several threads at once, decoder k taking row groups k, k + n, ... and the pieces
// handed on in row-group order. (With text, a row group decoded ahead of its turn would have to
// hold its whole text until then.)
class ParquetRows final : public SequentialFile {
 public:
  // One decoder per reader, each open on the same file. With `screened`, rows are read by
  // `plan` (a screened plan) and the failed ones recorded; `text_free`: rows that pass come as
  // empty lines.
  explicit ParquetRows(std::vector<std::unique_ptr<parquet::FileReader>> readers,
                       std::optional<parquet::AssemblyPlan> plan = std::nullopt,
                       std::shared_ptr<ScreenedLines> screened = nullptr, bool text_free = false)
      : plan_(std::move(plan)),
        screened_(std::move(screened)),
        text_free_(text_free),
        groups_(readers.front()->num_row_groups()),
        decoders_(readers.size()) {
    for (size_t k = 0; k < readers.size(); ++k) decoders_[k].reader = std::move(readers[k]);
    for (size_t k = 0; k < decoders_.size(); ++k) {
      decoders_[k].thread = std::thread([this, k] { Produce(k); });
    }
  }
  ~ParquetRows() override {
    {
      std::lock_guard lock(mu_);
      stop_ = true;
      changed_.notify_all();
    }
    for (Decoder& d : decoders_) d.thread.join();
  }

  Result<size_t> Read(char* buf, size_t n) override {
    while (pos_ == current_.size()) {
      if (group_ >= groups_) return size_t{0};
      Decoder& d = decoders_[static_cast<size_t>(group_) % decoders_.size()];
      Piece piece;
      {
        std::unique_lock lock(mu_);
        changed_.wait(lock, [&] { return !d.queue.empty(); });
        piece = std::move(d.queue.front());
        d.queue.pop_front();
        changed_.notify_all();
      }
      if (!piece.status.has_value()) {
        group_ = groups_;
        return Fail(piece.status.error());
      }
      // The verdicts are recorded before the text is handed on.
      for (uint64_t at : piece.failed) screened_->Fail(offset_ + at);
      offset_ += piece.text.size();
      if (piece.last) ++group_;
      current_ = std::move(piece.text);
      pos_ = 0;
    }
    const size_t k = std::min(n, current_.size() - pos_);
    std::memcpy(buf, current_.data() + pos_, k);
    pos_ += k;
    return k;
  }
  // The rows' text is not the file: its size is unknown until read.
  std::optional<uint64_t> size() const override { return std::nullopt; }

 private:
  static constexpr size_t kPieceBytes = size_t{4} << 20;
  static constexpr size_t kMaxPieces = 4;

  struct Piece {
    std::string text;
    std::vector<uint64_t> failed;  // offsets in text of the lines the screen did not pass
    bool last = false;             // the end of its row group
    Status status = Ok();          // an error ends its decoder's pieces
  };
  struct Decoder {
    std::unique_ptr<parquet::FileReader> reader;
    std::deque<Piece> queue;
    std::thread thread;
  };

  // Hand decoder k's piece to the reader side; false once it stopped listening.
  bool Push(size_t k, Piece& piece) {
    std::unique_lock lock(mu_);
    Decoder& d = decoders_[k];
    changed_.wait(lock, [&] { return d.queue.size() < kMaxPieces || stop_; });
    if (stop_) return false;
    d.queue.push_back(std::move(piece));
    changed_.notify_all();
    piece = Piece();
    return true;
  }

  void Produce(size_t k) {
    parquet::FileReader& reader = *decoders_[k].reader;
    Piece piece;
    auto batch = [&](std::string_view rows, size_t, const std::vector<uint32_t>& failed) -> Status {
      if (!failed.empty()) RecordFailed(rows, piece.text.size(), failed, piece.failed);
      if (piece.text.capacity() < kPieceBytes) piece.text.reserve(kPieceBytes + (kPieceBytes >> 1));
      piece.text.append(rows);
      if (piece.text.size() >= kPieceBytes && !Push(k, piece)) {
        return Fail(ErrorCode::kInternal, "stopped");
      }
      return Ok();
    };
    const int step = static_cast<int>(decoders_.size());
    for (int g = static_cast<int>(k); g < groups_; g += step) {
      Status status = Ok();
      if (plan_ && text_free_) {
        status = ReadWithoutText(reader, g, k, piece, batch);
      } else if (plan_) {
        status = reader.ReadScreenedRowBatches(g, *plan_, batch);
      } else {
        status = reader.ReadRowBatches(
            g, {}, [&](std::string_view rows, size_t count) { return batch(rows, count, {}); });
      }
      piece.last = true;
      if (!status.has_value()) {
        piece.status = std::move(status);
        Push(k, piece);
        return;
      }
      if (!Push(k, piece)) return;
    }
  }

  // Row group `g` screened without text, an empty line per row, until a batch holds a row that
  // fails: from that batch on, the group is read again with text, into `batch`.
  template <class Batch>
  Status ReadWithoutText(parquet::FileReader& reader, int g, size_t k, Piece& piece, Batch& batch) {
    uint64_t rows_done = 0;
    bool failed_any = false;
    Status status = reader.ReadScreenedRowBatches(
        g, *plan_,
        [&](std::string_view, size_t count, const std::vector<uint32_t>& failed) -> Status {
          if (!failed.empty()) {
            failed_any = true;
            return Fail(ErrorCode::kInternal, "a row to read with text");
          }
          piece.text.append(count, '\n');
          rows_done += count;
          if (piece.text.size() >= kPieceBytes && !Push(k, piece)) {
            return Fail(ErrorCode::kInternal, "stopped");
          }
          return Ok();
        },
        /*text_free=*/true);
    if (!failed_any) return status;
    uint64_t skip = rows_done;
    std::vector<uint32_t> kept;
    return reader.ReadScreenedRowBatches(
        g, *plan_,
        [&](std::string_view rows, size_t count, const std::vector<uint32_t>& failed) -> Status {
          if (skip >= count) {
            skip -= count;
            return Ok();
          }
          if (skip == 0) return batch(rows, count, failed);
          // The rows past those already handed on.
          size_t pos = 0;
          for (uint64_t i = 0; i < skip; ++i) pos = rows.find('\n', pos) + 1;
          kept.clear();
          for (uint32_t f : failed) {
            if (f >= skip) kept.push_back(static_cast<uint32_t>(f - skip));
          }
          const size_t rest = count - static_cast<size_t>(skip);
          skip = 0;
          return batch(rows.substr(pos), rest, kept);
        });
  }

  // The offsets (from `base`) of a batch's failed rows, its lines `failed`, into `out`.
  static void RecordFailed(std::string_view rows, uint64_t base,
                           const std::vector<uint32_t>& failed, std::vector<uint64_t>& out) {
    size_t pos = 0;
    uint32_t line = 0;
    for (uint32_t want : failed) {
      while (line < want) {
        pos = rows.find('\n', pos) + 1;
        ++line;
      }
      out.push_back(base + pos);
    }
  }

  const std::optional<parquet::AssemblyPlan> plan_;
  const std::shared_ptr<ScreenedLines> screened_;
  const bool text_free_;
  const int groups_;
  std::mutex mu_;
  std::condition_variable changed_;
  bool stop_ = false;
  std::vector<Decoder> decoders_;  // their threads start once every member above is ready
  // The reader side: the row group being handed on, the text's offset so far, the piece.
  int group_ = 0;
  uint64_t offset_ = 0;
  std::string current_;
  size_t pos_ = 0;
};

// Spark's StructType.merge, on the model's types; atomic types by `rule`.
class SchemaMerger {
 public:
  SchemaMerger(const std::string& left_file, const std::string& right_file, ParquetSchemaMerge rule)
      : left_(left_file), right_(right_file), rule_(rule) {}

  Result<schema::TypePtr> Merge(const schema::TypePtr& a, const schema::TypePtr& b,
                                const schema::FieldPath& path) {
    if (a->is_struct() && b->is_struct()) return MergeStruct(*a, *b, path);
    if (a->is_array() && b->is_array()) {
      SLUICE_ASSIGN_OR_RETURN(schema::TypePtr e,
                              Merge(a->element_type(), b->element_type(), path.Element()));
      return schema::Type::Array(std::move(e), a->contains_null() || b->contains_null());
    }
    if (a->is_map() && b->is_map()) {
      SLUICE_ASSIGN_OR_RETURN(schema::TypePtr k, Merge(a->key_type(), b->key_type(), path.Key()));
      SLUICE_ASSIGN_OR_RETURN(schema::TypePtr v,
                              Merge(a->value_type(), b->value_type(), path.Value()));
      return schema::Type::Map(std::move(k), std::move(v),
                               a->value_contains_null() || b->value_contains_null());
    }
    if (rule_ == ParquetSchemaMerge::kAutoLoader) {
      if (!a->is_nested() && !b->is_nested()) {
        if (schema::TypePtr w = internal::WiderAtomicType(a, b)) return w;
      }
      return Fail(ErrorCode::kIncompatible,
                  fmt::format("{}: {} has {} and {} has {}, and neither type widens to the other",
                              path.ToString(), left_, a->ToString(), right_, b->ToString()));
    }
    if (a->kind() == schema::TypeKind::kDecimal && b->kind() == schema::TypeKind::kDecimal &&
        a->scale() == b->scale()) {
      // StructType.merge: decimals of one scale take the larger precision.
      return a->precision() >= b->precision() ? a : b;
    }
    if (a->Equals(*b)) return a;
    return InvalidArgument(fmt::format(
        "{}: cannot merge the types of {} ({}) and {} ({}), as Spark's mergeSchema cannot",
        path.ToString(), left_, a->ToString(), right_, b->ToString()));
  }

 private:
  Result<schema::TypePtr> MergeStruct(const schema::Type& a, const schema::Type& b,
                                      const schema::FieldPath& path) {
    std::unordered_map<std::string_view, size_t> in_b;
    for (size_t i = 0; i < b.fields().size(); ++i) in_b.emplace(b.fields()[i].name(), i);
    std::vector<schema::Field> fields;
    std::vector<bool> used(b.fields().size(), false);
    for (const schema::Field& f : a.fields()) {
      auto it = in_b.find(f.name());
      if (it == in_b.end()) {
        fields.push_back(f);
        continue;
      }
      const schema::Field& g = b.fields()[it->second];
      used[it->second] = true;
      SLUICE_ASSIGN_OR_RETURN(schema::TypePtr t, Merge(f.type(), g.type(), path.Child(f.name())));
      schema::Field merged = f;
      merged.set_type(std::move(t));
      merged.set_nullable(f.nullable() || g.nullable());
      fields.push_back(std::move(merged));
    }
    for (size_t i = 0; i < b.fields().size(); ++i) {
      if (!used[i]) fields.push_back(b.fields()[i]);
    }
    return schema::Type::Struct(std::move(fields));
  }

  const std::string& left_;
  const std::string& right_;
  const ParquetSchemaMerge rule_;
};

}  // namespace

void ScreenedLines::FailedIn(uint64_t begin, uint64_t end, std::vector<uint64_t>& out) const {
  out.clear();
  std::lock_guard lock(mu_);
  auto it = std::lower_bound(failed_.begin(), failed_.end(), begin);
  for (; it != failed_.end() && *it < end; ++it) out.push_back(*it);
}

Result<std::unique_ptr<SequentialFile>> OpenParquetRows(FileSystem& fs, const std::string& path) {
  parquet::ReaderOptions options;
  options.maps_as_objects = true;
  std::vector<std::unique_ptr<parquet::FileReader>> readers(1);
  SLUICE_ASSIGN_OR_RETURN(readers[0], parquet::FileReader::Open(Borrowed(fs), path, options));
  return std::unique_ptr<SequentialFile>(std::make_unique<ParquetRows>(std::move(readers)));
}

Result<std::unique_ptr<SequentialFile>> OpenParquetRows(
    FileSystem& fs, const std::string& path, const parquet::RowScreen& screen,
    std::shared_ptr<const ScreenedLines>* screened, bool text_free, int threads) {
  parquet::ReaderOptions options;
  options.maps_as_objects = true;
  std::vector<std::unique_ptr<parquet::FileReader>> readers(1);
  SLUICE_ASSIGN_OR_RETURN(readers[0], parquet::FileReader::Open(Borrowed(fs), path, options));
  std::optional<parquet::ScreenedPlan> plan = readers[0]->PlanScreen(screen);
  if (!plan) {
    *screened = nullptr;
    return std::unique_ptr<SequentialFile>(std::make_unique<ParquetRows>(std::move(readers)));
  }
  const int decoders =
      text_free ? std::clamp(threads, 1, std::max(1, readers[0]->num_row_groups())) : 1;
  while (static_cast<int>(readers.size()) < decoders) {
    SLUICE_ASSIGN_OR_RETURN(std::unique_ptr<parquet::FileReader> more,
                            parquet::FileReader::Open(Borrowed(fs), path, options));
    readers.push_back(std::move(more));
  }
  auto lines = std::make_shared<ScreenedLines>(plan->holds_null_only);
  *screened = lines;
  return std::unique_ptr<SequentialFile>(std::make_unique<ParquetRows>(
      std::move(readers), std::move(plan->plan), std::move(lines), text_free));
}

Result<schema::Converted<schema::SchemaPtr>> MergeParquetSchemas(
    FileSystem& fs, const std::vector<std::string>& files, uint64_t* rows,
    ParquetSchemaMerge rule) {
  if (files.empty()) return InvalidArgument("no Parquet files to read a schema from");
  schema::Converted<schema::SchemaPtr> out;
  std::string first;
  if (rows != nullptr) *rows = 0;
  for (const std::string& path : files) {
    SLUICE_ASSIGN_OR_RETURN(std::unique_ptr<parquet::FileReader> reader,
                            parquet::FileReader::Open(Borrowed(fs), path));
    if (rows != nullptr) *rows += static_cast<uint64_t>(reader->num_rows());
    for (const schema::LossyNote& note : reader->notes()) {
      out.notes.push_back({note.path, path + ": " + note.message});
    }
    if (out.value == nullptr) {
      out.value = reader->schema();
      first = path;
      continue;
    }
    SchemaMerger merger(first, path, rule);
    SLUICE_ASSIGN_OR_RETURN(schema::TypePtr merged,
                            merger.Merge(out.value->struct_type(), reader->schema()->struct_type(),
                                         schema::FieldPath()));
    SLUICE_ASSIGN_OR_RETURN(out.value, schema::Schema::FromStruct(std::move(merged)));
  }
  return out;
}

}  // namespace sluice::data
