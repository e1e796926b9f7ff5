#include "sluice/data/parquet_sink.h"

#include <algorithm>
#include <charconv>
#include <cstring>
#include <limits>
#include <optional>

#include "sluice/base/strings.h"
#include "sluice/data/parquet_shred_internal.h"
#include "sluice/data/parquet_values_internal.h"
#include "sluice/data/validator_internal.h"
#include "sluice/schema/field_path.h"

namespace sluice::data {

using parquet::PhysicalType;
using parquet::SchemaNode;
using schema::TypeKind;

ParquetRecordPlan::ParquetRecordPlan(parquet::ParquetSchema parquet)
    : parquet_(std::move(parquet)) {}
ParquetRecordPlan::~ParquetRecordPlan() = default;

namespace {

constexpr int32_t kWideStruct = 12;

// The leaf conversion of a model type stored as `physical`; an error when the two do not
// agree as the sink expects them to.
Status CompileLeaf(const schema::Type& type, const parquet::ColumnDescriptor& column,
                   ParquetRecordPlan::Node& n) {
  auto expect = [&](PhysicalType p, LeafKind kind) -> Status {
    if (column.physical != p) {
      return InvalidArgument(n.path + ": " + type.ToString() + " stored as " +
                             std::string(parquet::PhysicalTypeName(column.physical)) +
                             " cannot be written");
    }
    n.leaf = kind;
    return Ok();
  };
  switch (type.kind()) {
    case TypeKind::kBoolean:
      return expect(PhysicalType::kBoolean, LeafKind::kBoolean);
    case TypeKind::kInt8:
      n.min = INT8_MIN;
      n.max = INT8_MAX;
      return expect(PhysicalType::kInt32, LeafKind::kInt32);
    case TypeKind::kInt16:
      n.min = INT16_MIN;
      n.max = INT16_MAX;
      return expect(PhysicalType::kInt32, LeafKind::kInt32);
    case TypeKind::kInt32:
      n.min = INT32_MIN;
      n.max = INT32_MAX;
      return expect(PhysicalType::kInt32, LeafKind::kInt32);
    case TypeKind::kInt64:
      return expect(PhysicalType::kInt64, LeafKind::kInt64);
    case TypeKind::kFloat32:
      return expect(PhysicalType::kFloat, LeafKind::kFloat);
    case TypeKind::kFloat64:
      return expect(PhysicalType::kDouble, LeafKind::kDouble);
    case TypeKind::kDecimal:
      n.precision = type.precision();
      n.scale = type.scale();
      if (column.physical == PhysicalType::kInt32) {
        return expect(PhysicalType::kInt32, LeafKind::kDecimalInt32);
      }
      if (column.physical == PhysicalType::kInt64) {
        return expect(PhysicalType::kInt64, LeafKind::kDecimalInt64);
      }
      n.width = column.type_length;
      if (n.width < 1 || n.width > 16) {
        return InvalidArgument(n.path + ": a decimal of " + std::to_string(n.width) +
                               " bytes cannot be written");
      }
      return expect(PhysicalType::kFixedLenByteArray, LeafKind::kDecimalBytes);
    case TypeKind::kString:
      return expect(PhysicalType::kByteArray, LeafKind::kString);
    case TypeKind::kBinary:
      return expect(PhysicalType::kByteArray, LeafKind::kBinary);
    case TypeKind::kDate:
      return expect(PhysicalType::kInt32, LeafKind::kDate);
    case TypeKind::kTimestamp:
      n.unit = type.unit();
      return expect(PhysicalType::kInt64, LeafKind::kTimestamp);
    case TypeKind::kTimestampNtz:
      n.unit = type.unit();
      return expect(PhysicalType::kInt64, LeafKind::kTimestampNtz);
    case TypeKind::kTime:
      n.unit = type.unit();
      if (n.unit == schema::TimeUnit::kMillis) {
        return expect(PhysicalType::kInt32, LeafKind::kTimeInt32);
      }
      return expect(PhysicalType::kInt64, LeafKind::kTimeInt64);
    case TypeKind::kUuid:
      if (column.type_length != 16) return InvalidArgument(n.path + ": a uuid must be 16 bytes");
      return expect(PhysicalType::kFixedLenByteArray, LeafKind::kUuid);
    case TypeKind::kNull:
    case TypeKind::kStruct:
    case TypeKind::kArray:
    case TypeKind::kMap:
      break;
  }
  return InvalidArgument(n.path + ": " + type.ToString() + " is not a leaf type");
}

// The schema with the rescued column added last, when it is asked for and missing.
Result<schema::SchemaPtr> WithRescuedColumn(schema::SchemaPtr schema, const std::string& rescued) {
  if (rescued.empty()) return schema;
  if (const schema::Field* f = schema->struct_type()->FindField(rescued)) {
    if (f->type()->kind() != TypeKind::kString) {
      return InvalidArgument("the rescued-data column `" + rescued + "` is in the schema as " +
                             f->type()->ToString() + "; it must be a string");
    }
    return schema;
  }
  std::vector<schema::Field> fields = schema->fields();
  fields.emplace_back(rescued, schema::Type::String(), true);
  return schema::Schema::Make(std::move(fields), schema->info());
}

}  // namespace

Result<std::shared_ptr<const ParquetRecordPlan>> ParquetRecordPlan::Compile(
    schema::SchemaPtr schema, const ParquetPlanOptions& options) {
  if (!schema) return InvalidArgument("no schema to write Parquet with");
  SLUICE_ASSIGN_OR_RETURN(schema, WithRescuedColumn(std::move(schema), options.rescued_column));
  SLUICE_ASSIGN_OR_RETURN(auto mapped,
                          parquet::ParquetSchema::FromModel(std::move(schema), options.schema));
  std::shared_ptr<ParquetRecordPlan> plan(new ParquetRecordPlan(std::move(mapped.value)));
  plan->notes_ = std::move(mapped.notes);
  plan->writer_schema_ = parquet::FileSchemaFor(plan->parquet_);
  const auto& nodes = plan->parquet_.nodes();
  plan->nodes_.resize(nodes.size());
  // Parents come before their children in nodes(), so paths are built top-down.
  for (size_t i = 0; i < nodes.size(); ++i) {
    const SchemaNode& sn = nodes[i];
    Node& n = plan->nodes_[i];
    const std::string prefix = n.path.empty() ? "" : n.path + ".";
    for (int32_t k = 0; k < sn.num_children; ++k) {
      Node& c = plan->nodes_[static_cast<size_t>(sn.first_child + k)];
      switch (sn.kind) {
        case SchemaNode::Kind::kStruct:
          c.name = sn.type->fields()[static_cast<size_t>(k)].name();
          c.plain_name = std::none_of(c.name.begin(), c.name.end(), [](char ch) {
            return ch == '"' || ch == '\\' || static_cast<unsigned char>(ch) < 0x20;
          });
          if (c.plain_name && c.name.size() < 16) {
            char word[16] = {};
            char mask[16] = {};
            std::memcpy(word, c.name.data(), c.name.size());
            word[c.name.size()] = '"';
            std::memset(mask, 0xFF, c.name.size() + 1);
            std::memcpy(c.key_words, word, 16);
            std::memcpy(c.key_masks, mask, 16);
            c.short_name = true;
          }
          c.path = prefix + schema::QuoteFieldName(c.name);
          if (sn.num_children > kWideStruct) n.by_name.emplace(c.name, static_cast<uint32_t>(k));
          break;
        case SchemaNode::Kind::kList:
          c.path = n.path + "[]";
          break;
        case SchemaNode::Kind::kMap:
          c.path = n.path + (k == 0 ? "{key}" : "{value}");
          break;
        case SchemaNode::Kind::kLeaf:
        case SchemaNode::Kind::kAbsent:
          break;
      }
    }
    if (sn.kind == SchemaNode::Kind::kLeaf) {
      SLUICE_TRY(CompileLeaf(*sn.type, plan->parquet_.leaves()[static_cast<size_t>(sn.leaf)], n));
    }
  }
  return std::shared_ptr<const ParquetRecordPlan>(std::move(plan));
}

namespace {

// Binds validation node `v` and the nodes below it to writer node `w` and below (TapeMapFor);
// false when the two trees differ.
bool BindTape(const std::vector<ValidationPlan::Node>& vnodes, uint32_t v,
              const std::vector<SchemaNode>& snodes,
              const std::vector<ParquetRecordPlan::Node>& pnodes, int32_t w, TapeMap& map,
              int depth) {
  if (depth > 10000) return false;
  const ValidationPlan::Node& a = vnodes[v];
  const SchemaNode& b = snodes[static_cast<size_t>(w)];
  map.node[v] = w;
  if (b.kind == SchemaNode::Kind::kAbsent) return true;  // nothing below it is stored
  auto child = [&](uint32_t k) { return a.first_child + k; };
  auto bind_child = [&](uint32_t k) {
    return BindTape(vnodes, child(k), snodes, pnodes, b.first_child + static_cast<int32_t>(k), map,
                    depth + 1);
  };
  if (a.kind == TypeKind::kStruct) {
    if (b.kind != SchemaNode::Kind::kStruct ||
        static_cast<int64_t>(a.child_count) > b.num_children) {
      return false;
    }
    // The root may have one more child on the writer's side (the rescued column the validator
    // appends), which the caller checks.
    if (depth > 0 && static_cast<int64_t>(a.child_count) != b.num_children) return false;
    for (uint32_t k = 0; k < a.child_count; ++k) {
      const size_t pw = static_cast<size_t>(b.first_child) + k;
      if (vnodes[child(k)].name != pnodes[pw].name || !bind_child(k)) return false;
    }
    return true;
  }
  if (a.kind == TypeKind::kArray || a.kind == TypeKind::kMap) {
    const bool array = a.kind == TypeKind::kArray;
    const uint32_t children = array ? 1 : 2;
    if (b.kind != (array ? SchemaNode::Kind::kList : SchemaNode::Kind::kMap) ||
        a.child_count != children || b.num_children != static_cast<int32_t>(children)) {
      return false;
    }
    map.next_rep[v] = static_cast<int16_t>(b.rep_level + 1);
    return bind_child(0) && (array || bind_child(1));
  }
  if (b.kind != SchemaNode::Kind::kLeaf || a.child_count != 0) return false;
  if (a.kind == TypeKind::kTimestamp || a.kind == TypeKind::kTimestampNtz) {
    map.unit[v] = static_cast<uint8_t>(b.type->unit());
  }
  return true;
}

}  // namespace

std::shared_ptr<const TapeMap> ParquetRecordPlan::TapeMapFor(const ValidationPlan& plan) const {
  const auto& vnodes = plan.nodes();
  const auto& snodes = parquet_.nodes();
  if (vnodes.empty() || snodes.empty()) return nullptr;
  auto map = std::make_shared<TapeMap>();
  map->node.assign(vnodes.size(), -1);
  map->next_rep.assign(vnodes.size(), 0);
  map->unit.assign(vnodes.size(), 0);
  if (!BindTape(vnodes, 0, snodes, nodes_, 0, *map, 0)) return nullptr;
  // The lines' rescued column: the one the schema holds, or the one the validator appends,
  // which must then be this plan's last root child.
  const ValidationPlan::Node& vroot = vnodes[0];
  const SchemaNode& root = snodes[0];
  const std::string& rc = plan.options().rescued_column;
  const int32_t extra = root.num_children - static_cast<int32_t>(vroot.child_count);
  if (plan.appends_rescued_column()) {
    if (extra != 1) return nullptr;
    const int32_t last = root.first_child + root.num_children - 1;
    if (nodes_[static_cast<size_t>(last)].name != rc) return nullptr;
    map->rescued_node = last;
  } else {
    if (extra != 0) return nullptr;
    if (!rc.empty() && vroot.rescued_child >= 0) {
      map->rescued_node = map->node[vroot.first_child + static_cast<uint32_t>(vroot.rescued_child)];
    }
  }
  if (map->rescued_node >= 0 &&
      snodes[static_cast<size_t>(map->rescued_node)].kind != SchemaNode::Kind::kLeaf) {
    return nullptr;
  }
  return map;
}

struct ParquetRecordSink::Impl {
  std::shared_ptr<const ParquetRecordPlan> plan;
  std::unique_ptr<parquet::FileWriter> writer;
  std::optional<internal::LineShredder> shredder;
  int64_t line = 0;
  std::optional<Error> failed;

  Status Record(std::string_view text) {
    SLUICE_TRY(shredder->Shred(text, ++line, writer->columns()));
    return writer->EndRow();
  }
};

ParquetRecordSink::ParquetRecordSink(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
ParquetRecordSink::~ParquetRecordSink() = default;

namespace {

template <class SinkArg>
Result<std::unique_ptr<parquet::FileWriter>> OpenWriter(const ParquetRecordPlan& plan,
                                                        SinkArg&& sink,
                                                        parquet::WriterOptions options) {
  return parquet::FileWriter::Open(plan.writer_schema(), std::forward<SinkArg>(sink),
                                   std::move(options));
}

}  // namespace

Result<std::unique_ptr<ParquetRecordSink>> ParquetRecordSink::Open(
    std::shared_ptr<const ParquetRecordPlan> plan, ByteSink& sink, parquet::WriterOptions options) {
  if (!plan) return InvalidArgument("no plan to write Parquet with");
  auto impl = std::make_unique<Impl>();
  SLUICE_ASSIGN_OR_RETURN(impl->writer, OpenWriter(*plan, sink, std::move(options)));
  impl->plan = std::move(plan);
  impl->shredder.emplace(*impl->plan);
  return std::unique_ptr<ParquetRecordSink>(new ParquetRecordSink(std::move(impl)));
}

Result<std::unique_ptr<ParquetRecordSink>> ParquetRecordSink::Open(
    std::shared_ptr<const ParquetRecordPlan> plan, std::unique_ptr<WritableFile> file,
    parquet::WriterOptions options) {
  if (!plan) return InvalidArgument("no plan to write Parquet with");
  auto impl = std::make_unique<Impl>();
  SLUICE_ASSIGN_OR_RETURN(impl->writer, OpenWriter(*plan, std::move(file), std::move(options)));
  impl->plan = std::move(plan);
  impl->shredder.emplace(*impl->plan);
  return std::unique_ptr<ParquetRecordSink>(new ParquetRecordSink(std::move(impl)));
}

Status ParquetRecordSink::Append(std::string_view json_line) {
  Impl& s = *impl_;
  if (s.failed) return Fail(*s.failed);
  while (!json_line.empty() && (json_line.back() == '\n' || json_line.back() == '\r')) {
    json_line.remove_suffix(1);
  }
  Status st = s.Record(json_line);
  if (!st) s.failed = st.error();
  return st;
}

namespace {

// Call `each` with every line of `lines` that is not empty, without its line break.
template <class F>
Status ForEachLine(std::string_view lines, F&& each) {
  while (!lines.empty()) {
    const size_t nl = lines.find('\n');
    std::string_view line = lines.substr(0, nl);
    lines.remove_prefix(nl == std::string_view::npos ? lines.size() : nl + 1);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (line.empty()) continue;
    SLUICE_TRY(each(line));
  }
  return Ok();
}

}  // namespace

Status ParquetRecordSink::AppendLines(std::string_view lines) {
  return ForEachLine(lines, [&](std::string_view line) { return Append(line); });
}

Status ParquetRecordSink::AppendFragment(const ParquetFragment& fragment) {
  Impl& s = *impl_;
  if (s.failed) return Fail(*s.failed);
  if (fragment.plan() != s.plan) return InvalidArgument("a fragment of another plan");
  if (fragment.failed()) return InvalidArgument("a fragment that failed");
  Status st = s.writer->AppendRows(fragment.columns().data(), fragment.num_rows());
  if (!st) s.failed = st.error();
  s.line += fragment.num_rows();
  return st;
}

ParquetFragment::ParquetFragment(std::shared_ptr<const ParquetRecordPlan> plan)
    : plan_(std::move(plan)), shredder_(std::make_unique<internal::LineShredder>(*plan_)) {
  columns_.reserve(plan_->writer_schema().columns.size());
  for (const parquet::ColumnSpec& spec : plan_->writer_schema().columns) {
    columns_.emplace_back(spec);
  }
}

ParquetFragment::~ParquetFragment() = default;

Status ParquetFragment::AppendLines(std::string_view lines) {
  if (failed_) return InvalidArgument("a fragment that failed must be cleared first");
  Status st = ForEachLine(lines, [&](std::string_view line) -> Status {
    SLUICE_TRY(shredder_->Shred(line, rows_ + 1, columns_.data()));
    ++rows_;
    return Ok();
  });
  if (!st) failed_ = true;
  return st;
}

Status ParquetFragment::AppendLines(std::string_view lines, const LeafTape& tape) {
  if (failed_) return InvalidArgument("a fragment that failed must be cleared first");
  size_t next = 0;  // the next tape record
  Status st = ForEachLine(lines, [&](std::string_view line) -> Status {
    const size_t at = static_cast<size_t>(line.data() - lines.data());
    while (next < tape.records.size() && tape.records[next].line < at) ++next;
    if (next < tape.records.size() && tape.records[next].line == at) {
      const TapeRecord& r = tape.records[next++];
      if (static_cast<size_t>(r.first) + r.count > tape.used || tape.used > tape.entries.size()) {
        return Fail(ErrorCode::kInternal, "a tape record past the tape's entries");
      }
      SLUICE_TRY(
          shredder_->ShredTaped(line, std::string_view(r.input, r.input_size),
                                std::span<const TapeEntry>(tape.entries.data() + r.first, r.count),
                                rows_ + 1, columns_.data()));
    } else {
      SLUICE_TRY(shredder_->Shred(line, rows_ + 1, columns_.data()));
    }
    ++rows_;
    return Ok();
  });
  if (!st) failed_ = true;
  return st;
}

void ParquetFragment::Clear() {
  for (parquet::ColumnWriter& c : columns_) c.Clear();
  rows_ = 0;
  failed_ = false;
}

Status ParquetRecordSink::Close() {
  Impl& s = *impl_;
  if (s.failed) return Fail(*s.failed);
  Status st = s.writer->Close();
  if (!st) s.failed = st.error();
  return st;
}

int64_t ParquetRecordSink::num_rows() const { return impl_->writer->num_rows(); }
int64_t ParquetRecordSink::bytes_written() const { return impl_->writer->bytes_written(); }
const parquet::FileMetaData& ParquetRecordSink::metadata() const {
  return impl_->writer->metadata();
}

}  // namespace sluice::data
