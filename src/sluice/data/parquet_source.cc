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
// decoding runs beside validation, and memory holds a few pieces, not a row group's text. (Row
// groups decoded on threads of their own would each have to hold their text until the ones
// before them are read: as much memory as a row group's text per thread.)
class ParquetRows final : public SequentialFile {
 public:
  // With `screened`, rows are read by `plan` (a screened plan) and the failed ones recorded.
  explicit ParquetRows(std::unique_ptr<parquet::FileReader> reader,
                       std::optional<parquet::AssemblyPlan> plan = std::nullopt,
                       std::shared_ptr<ScreenedLines> screened = nullptr)
      : reader_(std::move(reader)),
        plan_(std::move(plan)),
        screened_(std::move(screened)),
        thread_([this] { Produce(); }) {}
  ~ParquetRows() override {
    {
      std::lock_guard lock(mu_);
      stop_ = true;
      changed_.notify_all();
    }
    thread_.join();
  }

  Result<size_t> Read(char* buf, size_t n) override {
    while (pos_ == current_.size()) {
      Piece piece;
      {
        std::unique_lock lock(mu_);
        changed_.wait(lock, [&] { return !queue_.empty() || finished_; });
        if (queue_.empty()) {
          if (!status_.has_value()) return Fail(status_.error());
          return size_t{0};
        }
        piece = std::move(queue_.front());
        queue_.pop_front();
        changed_.notify_all();
      }
      // The verdicts are recorded before the text is handed on.
      for (uint64_t at : piece.failed) screened_->Fail(offset_ + at);
      offset_ += piece.text.size();
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
  };

  // Hand a piece to the reader side; false once it stopped listening.
  bool Push(Piece& piece) {
    std::unique_lock lock(mu_);
    changed_.wait(lock, [&] { return queue_.size() < kMaxPieces || stop_; });
    if (stop_) return false;
    queue_.push_back(std::move(piece));
    changed_.notify_all();
    piece = Piece();
    piece.text.reserve(kPieceBytes + (kPieceBytes >> 1));
    return true;
  }

  void Produce() {
    Piece piece;
    piece.text.reserve(kPieceBytes + (kPieceBytes >> 1));
    auto batch = [&](std::string_view rows, size_t, const std::vector<uint32_t>& failed) -> Status {
      if (!failed.empty()) RecordFailed(rows, piece.text.size(), failed, piece.failed);
      piece.text.append(rows);
      if (piece.text.size() >= kPieceBytes && !Push(piece)) {
        return Fail(ErrorCode::kInternal, "stopped");
      }
      return Ok();
    };
    Status status = Ok();
    for (int g = 0; g < reader_->num_row_groups() && status.has_value(); ++g) {
      if (plan_) {
        status = reader_->ReadScreenedRowBatches(g, *plan_, batch);
      } else {
        status = reader_->ReadRowBatches(
            g, {}, [&](std::string_view rows, size_t count) { return batch(rows, count, {}); });
      }
    }
    if (status.has_value() && !piece.text.empty()) Push(piece);
    std::lock_guard lock(mu_);
    status_ = std::move(status);
    finished_ = true;
    changed_.notify_all();
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

  std::unique_ptr<parquet::FileReader> reader_;
  const std::optional<parquet::AssemblyPlan> plan_;
  const std::shared_ptr<ScreenedLines> screened_;
  std::mutex mu_;
  std::condition_variable changed_;
  std::deque<Piece> queue_;
  bool stop_ = false;
  bool finished_ = false;
  Status status_ = Ok();
  // The reader side: the text's offset so far, the piece being read.
  uint64_t offset_ = 0;
  std::string current_;
  size_t pos_ = 0;
  std::thread thread_;  // last: it starts once every member above is ready
};

// Spark's StructType.merge, on the model's types.
class SchemaMerger {
 public:
  SchemaMerger(const std::string& left_file, const std::string& right_file)
      : left_(left_file), right_(right_file) {}

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
  SLUICE_ASSIGN_OR_RETURN(std::unique_ptr<parquet::FileReader> reader,
                          parquet::FileReader::Open(Borrowed(fs), path, options));
  return std::unique_ptr<SequentialFile>(std::make_unique<ParquetRows>(std::move(reader)));
}

Result<std::unique_ptr<SequentialFile>> OpenParquetRows(
    FileSystem& fs, const std::string& path, const parquet::RowScreen& screen,
    std::shared_ptr<const ScreenedLines>* screened) {
  parquet::ReaderOptions options;
  options.maps_as_objects = true;
  SLUICE_ASSIGN_OR_RETURN(std::unique_ptr<parquet::FileReader> reader,
                          parquet::FileReader::Open(Borrowed(fs), path, options));
  std::optional<parquet::ScreenedPlan> plan = reader->PlanScreen(screen);
  if (!plan) {
    *screened = nullptr;
    return std::unique_ptr<SequentialFile>(std::make_unique<ParquetRows>(std::move(reader)));
  }
  auto lines = std::make_shared<ScreenedLines>(plan->holds_null_only);
  *screened = lines;
  return std::unique_ptr<SequentialFile>(
      std::make_unique<ParquetRows>(std::move(reader), std::move(plan->plan), std::move(lines)));
}

Result<schema::Converted<schema::SchemaPtr>> MergeParquetSchemas(
    FileSystem& fs, const std::vector<std::string>& files, uint64_t* rows) {
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
    SchemaMerger merger(first, path);
    SLUICE_ASSIGN_OR_RETURN(schema::TypePtr merged,
                            merger.Merge(out.value->struct_type(), reader->schema()->struct_type(),
                                         schema::FieldPath()));
    SLUICE_ASSIGN_OR_RETURN(out.value, schema::Schema::FromStruct(std::move(merged)));
  }
  return out;
}

}  // namespace sluice::data
