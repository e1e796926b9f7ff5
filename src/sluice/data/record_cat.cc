#include "sluice/data/record_cat.h"

#include <fmt/format.h>

#include <limits>
#include <string_view>
#include <utility>

#include "sluice/base/json.h"
#include "sluice/base/json_writer.h"
#include "sluice/base/std_io.h"
#include "sluice/data/avro_container.h"
#include "sluice/data/csv_reader.h"
#include "sluice/data/parquet_source.h"
#include "sluice/parquet/file_reader.h"
#include "sluice/schema/field_path.h"

namespace sluice::data {
namespace {

// The projection as a tree: a leaf keeps the whole value, an inner node keeps the listed
// members of a struct, in the order they were listed.
// (Names and children in two vectors: a pair holding the struct itself would need it complete.)
struct Projection {
  std::vector<std::string> names;
  std::vector<Projection> members;
  bool whole = true;

  Projection* Child(const std::string& name) {
    for (size_t i = 0; i < names.size(); ++i) {
      if (names[i] == name) return &members[i];
    }
    names.push_back(name);
    members.emplace_back();
    return &members.back();
  }
};

Result<Projection> ParseProjection(const std::vector<std::string>& columns) {
  Projection root;
  root.whole = columns.empty();
  for (const std::string& column : columns) {
    SLUICE_ASSIGN_OR_RETURN(schema::FieldPath path, schema::FieldPath::Parse(column));
    if (path.empty()) return InvalidArgument("--columns: an empty column name");
    Projection* at = &root;
    at->whole = false;
    for (size_t i = 0; i < path.segments().size(); ++i) {
      const schema::PathSegment& step = path.segments()[i];
      if (step.kind != schema::PathSegment::Kind::kField) {
        return InvalidArgument(fmt::format(
            "--columns: '{}' steps into an array or map; only struct members can be chosen",
            column));
      }
      at = at->Child(step.name);
      if (i + 1 < path.segments().size()) at->whole = false;
    }
    at->whole = true;
    at->names.clear();
    at->members.clear();
  }
  return root;
}

JsonValue Project(const JsonValue& value, const Projection& p) {
  if (p.whole) return value;
  JsonValue out = JsonValue::Object();
  for (size_t i = 0; i < p.names.size(); ++i) {
    const std::string& name = p.names[i];
    const Projection& sub = p.members[i];
    const JsonValue* member = value.is_object() ? value.Find(name) : nullptr;
    // A member that is absent, or is not the struct a nested path steps into, is null.
    const bool fits = member != nullptr && (sub.whole || member->is_object());
    out.Set(name, fits ? Project(*member, sub) : JsonValue::Null());
  }
  return out;
}

class Printer {
 public:
  Printer(const CatOptions& options, Projection projection, ByteSink& out)
      : options_(options), projection_(std::move(projection)), out_(out) {}

  bool full() const { return options_.limit.has_value() && written_ >= *options_.limit; }
  uint64_t written() const { return written_; }

  // A record as JSON text that is known to be one object (after `Check`).
  Status Text(std::string_view json) {
    buffer_.append(json);
    buffer_ += '\n';
    return Count();
  }
  Status Value(const JsonValue& record) {
    buffer_ += ToJson(projection_.whole ? record : Project(record, projection_));
    buffer_ += '\n';
    return Count();
  }
  bool projected() const { return !projection_.whole; }
  Status Flush() {
    if (buffer_.empty()) return Ok();
    Status s = out_.Write(buffer_);
    buffer_.clear();
    return s;
  }

 private:
  Status Count() {
    ++written_;
    if (buffer_.size() >= (size_t{1} << 20)) return Flush();
    return Ok();
  }
  const CatOptions& options_;
  Projection projection_;
  ByteSink& out_;
  std::string buffer_;
  uint64_t written_ = 0;
};

Status CatJsonLines(const std::string& path, std::string_view text, Printer& printer) {
  uint64_t line = 0;
  size_t pos = 0;
  while (pos < text.size() && !printer.full()) {
    size_t end = text.find('\n', pos);
    if (end == std::string_view::npos) end = text.size();
    std::string_view record = text.substr(pos, end - pos);
    pos = end + 1;
    ++line;
    if (!record.empty() && record.back() == '\r') record.remove_suffix(1);
    if (record.find_first_not_of(" \t") == std::string_view::npos) continue;
    auto value = ParseJson(record);
    if (!value.has_value() || !value->is_object()) {
      return InvalidArgument(
          fmt::format("{}:{}: not a JSON object{}", path, line,
                      value.has_value() ? std::string() : ": " + value.error().message()));
    }
    if (printer.projected()) {
      SLUICE_TRY(printer.Value(*value));
    } else {
      const size_t first = record.find_first_not_of(" \t");
      const size_t last = record.find_last_not_of(" \t");
      SLUICE_TRY(printer.Text(record.substr(first, last - first + 1)));
    }
  }
  return Ok();
}

Status CatJsonDocument(const std::string& path, std::string_view text, Printer& printer) {
  auto doc = ParseJson(text);
  if (!doc.has_value()) return Fail(doc.error().WithContext(path));
  if (doc->is_object()) return printer.Value(*doc);
  if (!doc->is_array()) return InvalidArgument(path + ": neither a JSON object nor an array");
  for (size_t i = 0; i < doc->items().size() && !printer.full(); ++i) {
    const JsonValue& item = doc->items()[i];
    if (!item.is_object()) {
      return InvalidArgument(fmt::format("{}: element {} is not a JSON object", path, i));
    }
    SLUICE_TRY(printer.Value(item));
  }
  return Ok();
}

Status CatCsv(const std::string& path, std::string_view text, const CsvRunOptions& csv,
              Printer& printer) {
  CsvReader reader(text, csv.reader);
  CsvRecord record;
  std::vector<std::string> names;
  bool first = true;
  while (!printer.full() && reader.Next(record)) {
    if (record.malformed()) {
      return InvalidArgument(fmt::format("{}:{}: {}", path, record.line, record.error));
    }
    if (first && csv.header) {
      first = false;
      for (const CsvField& f : record.fields) names.emplace_back(f.value);
      continue;
    }
    first = false;
    JsonValue row = JsonValue::Object();
    for (size_t i = 0; i < record.fields.size(); ++i) {
      const CsvField& f = record.fields[i];
      std::string name = i < names.size() ? names[i] : fmt::format("_c{}", i);
      if (!f.quoted && f.value == csv.null_value) {
        row.mutable_members().push_back({std::move(name), JsonValue::Null()});
      } else {
        row.mutable_members().push_back(
            {std::move(name),
             JsonValue::String(f.quoted && f.value.empty() ? csv.empty_value
                                                           : std::string(f.value))});
      }
    }
    SLUICE_TRY(printer.Value(row));
  }
  return Ok();
}

// Rows of a Parquet file in the form of docs/formats/parquet.md, the projection read from the
// file (only those columns' chunks are decoded).
Status CatParquet(FileSystem& fs, const std::string& path, const std::vector<std::string>& columns,
                  Printer& printer) {
  SLUICE_ASSIGN_OR_RETURN(
      std::unique_ptr<parquet::FileReader> reader,
      parquet::FileReader::Open(std::shared_ptr<FileSystem>(std::shared_ptr<FileSystem>(), &fs),
                                path));
  parquet::Projection projection{columns};
  bool stopped = false;
  for (int g = 0; g < reader->num_row_groups() && !stopped; ++g) {
    SLUICE_TRY(reader->ReadRows(g, projection, [&](std::string_view row) -> Status {
      if (printer.full()) {
        stopped = true;
        return Ok();
      }
      return printer.Text(row);
    }));
  }
  return Ok();
}

// Records of an Avro container file in the shape OpenAvroRows gives them, projected here.
Status CatAvro(FileSystem& fs, const std::string& path, Printer& printer) {
  SLUICE_ASSIGN_OR_RETURN(std::unique_ptr<SequentialFile> rows, OpenAvroRows(fs, path));
  std::string text;
  std::string chunk(size_t{1} << 16, '\0');
  bool end = false;
  while (!end && !printer.full()) {
    SLUICE_ASSIGN_OR_RETURN(size_t n, rows->Read(chunk.data(), chunk.size()));
    end = n == 0;
    text.append(chunk, 0, n);
    size_t pos = 0;
    for (size_t nl; (nl = text.find('\n', pos)) != std::string::npos && !printer.full();
         pos = nl + 1) {
      std::string_view row(text.data() + pos, nl - pos);
      if (!printer.projected()) {
        SLUICE_TRY(printer.Text(row));
        continue;
      }
      SLUICE_ASSIGN_OR_RETURN(JsonValue value, ParseJson(row));
      SLUICE_TRY(printer.Value(value));
    }
    text.erase(0, pos);
  }
  return Ok();
}

}  // namespace

Result<uint64_t> CatFiles(const std::vector<std::string>& files, const CatOptions& options,
                          ByteSink& out) {
  SLUICE_ASSIGN_OR_RETURN(Projection projection, ParseProjection(options.columns));
  Printer printer(options, std::move(projection), out);
  for (const std::string& path : files) {
    if (printer.full()) break;
    const std::string head = options.format || path == "-" ? "" : PeekFile(*options.fs, path, 4);
    const bool parquet = options.format ? *options.format == RecordFormat::kParquet
                                        : path != "-" && IsParquetFile(path, head);
    const bool avro = options.format ? *options.format == RecordFormat::kAvro
                                     : path != "-" && IsAvroContainer(path, head);
    if ((parquet || avro) && path != "-") {
      Status status = parquet ? CatParquet(*options.fs, path, options.columns, printer)
                              : CatAvro(*options.fs, path, printer);
      if (!status.has_value()) {
        SLUICE_TRY(printer.Flush());
        return Fail(status.error());
      }
      continue;
    }
    SLUICE_ASSIGN_OR_RETURN(std::string text,
                            ReadInput(*options.fs, path, FileSystem::kDefaultMaxRead));
    const RecordFormat format = options.format.value_or(GuessRecordFormat(path, text));
    Status status = Ok();
    if (format == RecordFormat::kParquet || format == RecordFormat::kAvro) {
      // Standard input, read whole: its Parquet footer or Avro blocks are found in memory
      // (under a name other than "-", which would name standard input again).
      const std::string name = format == RecordFormat::kParquet ? path : "/dev/stdin";
      MemoryFileSystem memory;
      SLUICE_TRY(memory.WriteFile(name, text));
      text.clear();
      status = format == RecordFormat::kParquet ? CatParquet(memory, name, options.columns, printer)
                                                : CatAvro(memory, name, printer);
    }
    switch (format) {
      case RecordFormat::kJsonLines:
        status = CatJsonLines(path, text, printer);
        break;
      case RecordFormat::kJson:
        status = CatJsonDocument(path, text, printer);
        break;
      case RecordFormat::kCsv:
        status = CatCsv(path, text, options.csv, printer);
        break;
      case RecordFormat::kParquet:
      case RecordFormat::kAvro:
        break;  // read above, from the file or from memory
    }
    if (!status.has_value()) {
      // The records before the bad one are printed, as a stream would have them.
      SLUICE_TRY(printer.Flush());
      return Fail(status.error());
    }
  }
  SLUICE_TRY(printer.Flush());
  return printer.written();
}

}  // namespace sluice::data
