#include "sluice/data/parquet_source.h"

#include <fmt/format.h>

#include <algorithm>
#include <condition_variable>
#include <cstring>
#include <deque>
#include <mutex>
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

// Rows are decoded on a thread of their own into chunks of about 4 MB, a few of them queued:
// decoding runs beside validation, and memory holds a few chunks, not a row group's text.
class ParquetRows final : public SequentialFile {
 public:
  explicit ParquetRows(std::unique_ptr<parquet::FileReader> reader)
      : reader_(std::move(reader)), thread_([this] { Produce(); }) {}
  ~ParquetRows() override {
    {
      std::lock_guard lock(mu_);
      stop_ = true;
      room_.notify_all();
    }
    thread_.join();
  }

  Result<size_t> Read(char* buf, size_t n) override {
    while (pos_ == current_.size()) {
      std::unique_lock lock(mu_);
      ready_.wait(lock, [&] { return !queue_.empty() || finished_; });
      if (queue_.empty()) {
        if (!status_.has_value()) return Fail(status_.error());
        return size_t{0};
      }
      current_ = std::move(queue_.front());
      queue_.pop_front();
      pos_ = 0;
      room_.notify_one();
    }
    const size_t k = std::min(n, current_.size() - pos_);
    std::memcpy(buf, current_.data() + pos_, k);
    pos_ += k;
    return k;
  }
  // The rows' text is not the file: its size is unknown until read.
  std::optional<uint64_t> size() const override { return std::nullopt; }

 private:
  static constexpr size_t kChunkBytes = size_t{4} << 20;
  static constexpr size_t kMaxChunks = 4;

  // Hand a full chunk to the reader side; false once it stopped listening.
  bool Push(std::string& chunk) {
    std::unique_lock lock(mu_);
    room_.wait(lock, [&] { return queue_.size() < kMaxChunks || stop_; });
    if (stop_) return false;
    queue_.push_back(std::move(chunk));
    chunk = std::string();
    chunk.reserve(kChunkBytes + 4096);
    ready_.notify_one();
    return true;
  }

  void Produce() {
    std::string chunk;
    chunk.reserve(kChunkBytes + 4096);
    Status status = Ok();
    for (int g = 0; g < reader_->num_row_groups() && status.has_value(); ++g) {
      status = reader_->ReadRows(g, {}, [&](std::string_view row) -> Status {
        chunk.append(row);
        chunk += '\n';
        if (chunk.size() >= kChunkBytes && !Push(chunk)) {
          return Fail(ErrorCode::kInternal, "stopped");
        }
        return Ok();
      });
    }
    if (status.has_value() && !chunk.empty()) Push(chunk);
    std::lock_guard lock(mu_);
    status_ = std::move(status);
    finished_ = true;
    ready_.notify_all();
  }

  std::unique_ptr<parquet::FileReader> reader_;
  std::mutex mu_;
  std::condition_variable ready_;
  std::condition_variable room_;
  std::deque<std::string> queue_;
  bool stop_ = false;
  bool finished_ = false;
  Status status_ = Ok();
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

Result<std::unique_ptr<SequentialFile>> OpenParquetRows(FileSystem& fs, const std::string& path) {
  parquet::ReaderOptions options;
  options.maps_as_objects = true;
  SLUICE_ASSIGN_OR_RETURN(std::unique_ptr<parquet::FileReader> reader,
                          parquet::FileReader::Open(Borrowed(fs), path, options));
  return std::unique_ptr<SequentialFile>(std::make_unique<ParquetRows>(std::move(reader)));
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
