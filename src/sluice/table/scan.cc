// ScanTable: the snapshot's live files in path order, each pruned or read, its rows conformed
// to the table's logical shape (row_conform.cc), deletion vectors and the predicate applied.
#include "sluice/table/scan.h"

#include <fmt/format.h>

#include <algorithm>
#include <thread>

#include "sluice/base/json_writer.h"
#include "sluice/base/strings.h"
#include "sluice/data/parquet_values_internal.h"
#include "sluice/parquet/file_reader.h"
#include "sluice/parquet/value_text.h"
#include "sluice/table/column_mapping.h"
#include "sluice/table/deletion_vector.h"
#include "sluice/table/expression.h"
#include "sluice/table/file_stats.h"
#include "sluice/table/partition_path.h"
#include "sluice/table/partition_values.h"
#include "sluice/table/protocol.h"
#include "sluice/table/scan_internal.h"

namespace sluice::table {
namespace {

namespace dint = sluice::data::internal;
using internal::ColumnSelection;
using internal::ConformPlan;
using internal::FieldMatch;
using internal::FilePruner;
using internal::RowConformer;
using schema::Field;
using schema::Type;
using schema::TypeKind;
using schema::TypePtr;

using Constants = std::map<std::string, std::string, std::less<>>;

// An error about one data file: its path in front, unless the message names it already.
Error InFile(const Error& e, std::string_view path) {
  if (e.message().find(path) != std::string::npos) return e;
  return e.WithContext(path);
}

// A letter, then letters, digits, '+', '-' or '.', then ':' before any '/': a URI scheme.
bool HasScheme(std::string_view path) {
  const size_t colon = path.find(':');
  if (colon == std::string_view::npos || colon == 0 || path.find('/') < colon) return false;
  if (!std::isalpha(static_cast<unsigned char>(path[0]))) return false;
  return std::all_of(path.begin(), path.begin() + static_cast<std::ptrdiff_t>(colon), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '+' || c == '-' || c == '.';
  });
}

// Where an add action's file is: its path decoded once, relative to the root unless it is an
// absolute path or a `file:` URI.
Result<std::string> DataFilePath(std::string_view root, const AddFile& add) {
  auto decoded = DecodeAddPath(add.path);
  if (!decoded.has_value()) return Fail(decoded.error().WithContext("add " + add.path));
  std::string path = std::move(*decoded);
  if (HasScheme(path)) {
    if (!path.starts_with("file:")) {
      return Unimplemented(fmt::format("add {}: only local files can be read (file: URIs)",
                                       EscapeForMessage(add.path)));
    }
    path.erase(0, 5);
    if (path.starts_with("//")) {
      // file://host/path: only the local host.
      const size_t slash = path.find('/', 2);
      const std::string_view host = std::string_view(path).substr(2, slash - 2);
      if (slash == std::string::npos || (!host.empty() && host != "localhost")) {
        return Unimplemented(
            fmt::format("add {}: a file: URI of another host", EscapeForMessage(add.path)));
      }
      path.erase(0, slash);
    }
    return path;
  }
  if (path.starts_with('/')) return path;
  std::string base(root);
  while (base.size() > 1 && base.back() == '/') base.pop_back();
  if (base.empty()) return path;
  return base + "/" + path;
}

struct PartitionColumn {
  std::string name;  // the schema's spelling
  std::string key;   // in partitionValues: the physical name under column mapping
  TypePtr type;
};

Result<std::vector<PartitionColumn>> PartitionColumnsOf(const Snapshot& snap,
                                                        ColumnMappingMode mode) {
  std::vector<PartitionColumn> out;
  const Type& row = *snap.schema->struct_type();
  for (const std::string& name : snap.metadata.partition_columns) {
    std::optional<size_t> index = internal::FindFieldIndex(row, name);
    if (!index) {
      return InvalidArgument(fmt::format("partition column '{}' is not a column of the table",
                                         EscapeForMessage(name)));
    }
    const Field& field = row.fields()[*index];
    out.push_back({field.name(),
                   mode == ColumnMappingMode::kNone ? field.name() : PhysicalName(field),
                   field.type()});
  }
  return out;
}

// A partition timestamp without a zone (`2021-09-08 11:11:11`, what Delta wrote before it
// wrote ISO-8601 with a `Z`): nothing after the date but digits, ':', '.', ' ' and 'T'.
bool ZoneLess(std::string_view text) {
  text = TrimWhitespace(text);
  if (text.size() < 10) return false;
  return std::all_of(text.begin() + 10, text.end(), [](char c) {
    return (c >= '0' && c <= '9') || c == ':' || c == '.' || c == ' ' || c == 'T';
  });
}

struct FilePartitions {
  JsonValue row = JsonValue::Object();
  Constants texts;
};

Result<FilePartitions> PartitionsOf(const AddFile& add, const std::vector<PartitionColumn>& columns,
                                    int32_t zone_seconds) {
  FilePartitions out;
  for (const PartitionColumn& c : columns) {
    auto entry = add.partition_values.find(c.key);
    if (entry == add.partition_values.end()) entry = add.partition_values.find(c.name);
    if (entry == add.partition_values.end()) {
      return InvalidArgument(fmt::format("add {}: partitionValues has no entry for column '{}'",
                                         EscapeForMessage(add.path), EscapeForMessage(c.key)));
    }
    const std::optional<std::string>& text = entry->second;
    auto value = ParsePartitionValue(c.name, *c.type, text);
    if (!value.has_value()) return Fail(value.error().WithContext("add " + add.path));
    if (c.type->kind() == TypeKind::kTimestamp && value->is_string() && zone_seconds != 0 &&
        ZoneLess(*text)) {
      // ParsePartitionValue read the wall clock as UTC; it was the writer's zone.
      int64_t micros = 0;
      const char* why = nullptr;
      if (dint::TimestampFromText(value->as_string(), schema::TimeUnit::kMicros, false, &micros,
                                  &why)) {
        std::string rendered;
        parquet::AppendTimestamp(rendered, micros - int64_t{zone_seconds} * 1000000,
                                 parquet::TimeUnit::kMicros, true);
        value = JsonValue::String(rendered.substr(1, rendered.size() - 2));
      }
    }
    out.texts[c.name] = ToJson(*value);
    out.row.Set(c.name, std::move(*value));
  }
  return out;
}

// What the scan needs beyond the snapshot, resolved once.
struct ScanPlan {
  ColumnMappingMode mode = ColumnMappingMode::kNone;
  FieldMatch match = FieldMatch::kName;
  std::vector<PartitionColumn> partitions;
  int32_t zone_seconds = 0;
  // The row read from each file: the output's columns and the predicate's.
  TypePtr read_type;
  // The output row from the read row, when the predicate reads columns the output leaves out.
  std::optional<ConformPlan> projection;
  // The row the predicate sees from the read row, when the output reads columns it does not.
  std::optional<ConformPlan> where_row;
  std::optional<BoundExpression> where;
  std::optional<FilePruner> pruner;
  int threads = 1;
};

// The top-level-down field indexes of a path the binder resolved (schema spelling), through
// struct fields; it stops at the first step into an array or map (the whole column is read).
std::vector<size_t> IndexesOf(const schema::Schema& schema, const schema::FieldPath& path) {
  std::vector<size_t> out;
  const Type* at = schema.struct_type().get();
  for (const schema::PathSegment& s : path.segments()) {
    if (s.kind != schema::PathSegment::Kind::kField || !at->is_struct()) break;
    std::optional<size_t> index = internal::FindFieldIndex(*at, s.name);
    if (!index) break;
    out.push_back(*index);
    at = at->fields()[*index].type().get();
  }
  return out;
}

Result<ScanPlan> PlanScan(const Snapshot& snap, const ScanOptions& options) {
  ScanPlan plan;
  const schema::Schema& schema = *snap.schema;
  SLUICE_ASSIGN_OR_RETURN(plan.mode, MappingModeOf(snap.metadata));
  plan.match = plan.mode == ColumnMappingMode::kName ? FieldMatch::kPhysicalName
               : plan.mode == ColumnMappingMode::kId ? FieldMatch::kFieldId
                                                     : FieldMatch::kName;
  SLUICE_ASSIGN_OR_RETURN(plan.partitions, PartitionColumnsOf(snap, plan.mode));
  const std::string zone =
      options.partition_timezone.empty() ? std::string("UTC") : options.partition_timezone;
  if (!dint::FixedZoneOffset(zone, &plan.zone_seconds)) {
    return InvalidArgument(
        fmt::format("partition timezone '{}': give a fixed offset such as -07:00, or UTC",
                    EscapeForMessage(zone)));
  }
  SLUICE_ASSIGN_OR_RETURN(ColumnSelection output, internal::SelectColumns(schema, options.columns));
  ColumnSelection read = output;
  ColumnSelection where_columns;
  if (options.where) {
    auto parsed = ParseExpression(*options.where);
    if (!parsed.has_value()) return Fail(parsed.error().WithContext("where"));
    auto bound = Bind(**parsed, schema);
    if (!bound.has_value()) return Fail(bound.error().WithContext("where"));
    for (const schema::FieldPath& path : bound->referenced_columns()) {
      std::vector<size_t> indexes = IndexesOf(schema, path);
      if (!indexes.empty()) {
        internal::SelectPath(read, indexes);
        internal::SelectPath(where_columns, indexes);
      }
    }
    SLUICE_ASSIGN_OR_RETURN(
        FilePruner pruner,
        FilePruner::Make(**parsed, schema, snap.metadata.partition_columns, plan.mode));
    plan.pruner = std::move(pruner);
    plan.where = std::move(*bound);
  }
  const TypePtr& row = schema.struct_type();
  TypePtr output_type = row;
  if (!output.whole) {
    SLUICE_ASSIGN_OR_RETURN(output_type, internal::PruneStruct(*row, output));
  }
  plan.read_type = row;
  if (!read.whole) {
    SLUICE_ASSIGN_OR_RETURN(plan.read_type, internal::PruneStruct(*row, read));
  }
  if (!output_type->Equals(*plan.read_type)) {
    SLUICE_ASSIGN_OR_RETURN(plan.projection,
                            internal::BuildConformPlan({.table = output_type.get(),
                                                        .source = plan.read_type.get(),
                                                        .match = FieldMatch::kName,
                                                        .constants = nullptr,
                                                        .context = "projection"}));
  }
  if (plan.where) {
    SLUICE_ASSIGN_OR_RETURN(TypePtr where_type, internal::PruneStruct(*row, where_columns));
    if (!where_type->Equals(*plan.read_type)) {
      SLUICE_ASSIGN_OR_RETURN(plan.where_row,
                              internal::BuildConformPlan({.table = where_type.get(),
                                                          .source = plan.read_type.get(),
                                                          .match = FieldMatch::kName,
                                                          .constants = nullptr,
                                                          .context = "where"}));
    }
  }
  unsigned threads = options.threads;
  if (threads == 0) threads = std::max(1u, std::thread::hardware_concurrency());
  plan.threads = static_cast<int>(std::min(threads, 64u));
  return plan;
}

// One scan: the state that carries from file to file.
class Scanner {
 public:
  Scanner(std::shared_ptr<FileSystem> fs, const std::string& root, const ScanOptions& options,
          const ScanPlan& plan, const std::function<Status(std::string_view)>& each)
      : fs_(std::move(fs)), root_(root), options_(options), plan_(plan), each_(each) {}

  bool full() const {
    return options_.limit >= 0 && stats_.rows_returned >= static_cast<uint64_t>(options_.limit);
  }
  ScanStats& stats() { return stats_; }

  Status File(const AddFile& add) {
    SLUICE_ASSIGN_OR_RETURN(FilePartitions parts,
                            PartitionsOf(add, plan_.partitions, plan_.zone_seconds));
    if (plan_.pruner) {
      auto pruned = plan_.pruner->PrunedByPartitions(parts.row);
      if (!pruned.has_value()) return Fail(pruned.error().WithContext("add " + add.path));
      if (*pruned) {
        ++stats_.files_pruned;
        return Ok();
      }
      if (plan_.pruner->uses_stats() && add.stats) {
        // Stats that do not parse skip nothing: they only ever save reading.
        auto stats = ParseStats(*add.stats);
        if (stats.has_value() && plan_.pruner->PrunedByStats(*stats)) {
          ++stats_.files_pruned;
          ++stats_.files_pruned_by_stats;
          return Ok();
        }
      }
    }
    SLUICE_ASSIGN_OR_RETURN(std::string path, DataFilePath(root_, add));
    Status read = Read(add, path, parts.texts);
    if (!read.has_value() && !passing_) return Fail(InFile(read.error(), path));
    return read;
  }

  // The error `each` returned, which goes back as it is; false for the scan's own.
  bool passing() const { return passing_; }

 private:
  // One file's read in progress.
  struct FileRead {
    std::optional<RowIndexSet> deleted;
    RowConformer* conformer = nullptr;
    RowConformer* where_row = nullptr;  // null: the predicate sees the read row
    RowConformer* projector = nullptr;  // null: the read row is the output
    uint64_t index = 0;
    bool stopped = false;  // the limit was reached
  };

  Status Read(const AddFile& add, const std::string& path, const Constants& constants) {
    FileRead f;
    if (add.deletion_vector) {
      SLUICE_ASSIGN_OR_RETURN(DeletionVectorDescriptor dv,
                              ParseDeletionVectorDescriptor(*add.deletion_vector));
      SLUICE_ASSIGN_OR_RETURN(f.deleted, LoadDeletionVector(*fs_, root_, dv));
    }
    parquet::ReaderOptions ro;
    ro.threads = plan_.threads;
    ro.maps_as_objects = true;
    SLUICE_ASSIGN_OR_RETURN(std::unique_ptr<parquet::FileReader> reader,
                            parquet::FileReader::Open(fs_, path, ro));
    SLUICE_ASSIGN_OR_RETURN(ConformPlan plan, internal::BuildConformPlan(
                                                  {.table = plan_.read_type.get(),
                                                   .source = reader->schema()->struct_type().get(),
                                                   .match = plan_.match,
                                                   .constants = &constants,
                                                   .context = path}));
    ++stats_.files_read;
    RowConformer conformer(&plan);
    f.conformer = &conformer;
    std::optional<RowConformer> projector;
    if (plan_.projection) f.projector = &projector.emplace(&*plan_.projection);
    std::optional<RowConformer> where_row;
    if (plan_.where_row) f.where_row = &where_row.emplace(&*plan_.where_row);
    Status status = Ok();
    if (plan.source_columns.empty()) {
      // Nothing to read but the number of rows (only partition columns, or columns the file
      // does not hold).
      const int64_t rows = reader->num_rows();
      for (int64_t i = 0; i < rows && status.has_value(); ++i) status = Row(f, {}, true);
    } else {
      status = reader->ReadAllRows(parquet::Projection{plan.source_columns},
                                   [&](std::string_view text) { return Row(f, text, false); });
    }
    if (!status.has_value() && f.stopped) return Ok();
    return status;
  }

  // One row of the file (`empty`: a file none of whose columns is read).
  Status Row(FileRead& f, std::string_view text, bool empty) {
    const uint64_t at = f.index++;
    if (f.deleted && f.deleted->Contains(at)) {
      ++stats_.rows_deleted;
      return Ok();
    }
    read_.clear();
    if (empty) {
      f.conformer->ConformEmpty(read_);
    } else if (Status s = f.conformer->Conform(text, read_); !s.has_value()) {
      return Fail(s.error().WithContext(fmt::format("row {}", at)));
    }
    if (plan_.where) {
      // Only the columns the predicate reads are parsed.
      std::string_view seen = read_;
      if (f.where_row != nullptr) {
        where_text_.clear();
        SLUICE_TRY(f.where_row->Conform(read_, where_text_));
        seen = where_text_;
      }
      auto value = ParseJson(seen, {.allow_duplicate_keys = true});
      if (!value.has_value()) return Fail(value.error().WithContext(fmt::format("row {}", at)));
      auto truth = plan_.where->Evaluate(*value);
      if (!truth.has_value()) return Fail(truth.error().WithContext(fmt::format("row {}", at)));
      if (*truth != Truth::kTrue) {
        ++stats_.rows_filtered;
        return Ok();
      }
    }
    std::string_view out = read_;
    if (f.projector != nullptr) {
      output_.clear();
      SLUICE_TRY(f.projector->Conform(read_, output_));
      out = output_;
    }
    if (Status s = each_(out); !s.has_value()) {
      passing_ = true;
      return s;
    }
    ++stats_.rows_returned;
    if (full()) {
      // Stops the reader; Read recognizes it by `stopped`.
      f.stopped = true;
      return Fail(ErrorCode::kInternal, "limit reached");
    }
    return Ok();
  }

  std::shared_ptr<FileSystem> fs_;
  const std::string& root_;
  const ScanOptions& options_;
  const ScanPlan& plan_;
  const std::function<Status(std::string_view)>& each_;
  ScanStats stats_;
  bool passing_ = false;
  std::string read_;
  std::string where_text_;
  std::string output_;
};

}  // namespace

Result<ScanStats> ScanTable(std::shared_ptr<FileSystem> fs, const std::string& root,
                            const ScanOptions& options,
                            const std::function<Status(std::string_view json_row)>& each) {
  SLUICE_ASSIGN_OR_RETURN(Snapshot snap, LoadSnapshot(*fs, root, options.at));
  SLUICE_TRY(CheckReadable(snap.protocol));
  SLUICE_ASSIGN_OR_RETURN(ScanPlan plan, PlanScan(snap, options));
  Scanner scanner(std::move(fs), root, options, plan, each);
  scanner.stats().version = snap.version;
  for (const AddFile& add : snap.files) {
    if (scanner.full()) break;
    SLUICE_TRY(scanner.File(add));
  }
  return scanner.stats();
}

RowSource TableRows(std::shared_ptr<FileSystem> fs, std::string root) {
  return [fs = std::move(fs),
          root = std::move(root)](const std::function<Status(const JsonValue&)>& each) -> Status {
    auto scanned = ScanTable(fs, root, {}, [&](std::string_view row) -> Status {
      SLUICE_ASSIGN_OR_RETURN(JsonValue value, ParseJson(row, {.allow_duplicate_keys = true}));
      return each(value);
    });
    if (!scanned.has_value()) return Fail(scanned.error());
    return Ok();
  };
}

}  // namespace sluice::table
