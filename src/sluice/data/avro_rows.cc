// Avro container records as JSON lines in spark-avro's shape (OpenAvroRows), and the schemas of
// several container files merged (MergeAvroSchemas).
#include <fmt/format.h>

#include <algorithm>
#include <cstring>
#include <unordered_map>

#include "sluice/base/json_writer.h"
#include "sluice/data/avro_container.h"
#include "sluice/dialects/avro/avro_convert.h"
#include "sluice/parquet/value_text.h"

namespace sluice::data {

namespace avro = dialects::avro;
using avro::AvroNode;
using avro::AvroType;
using avro::LogicalKind;

namespace {

// The bytes of a bytes or fixed value in Avro's JSON encoding: code points U+0000..U+00FF,
// one a byte, as UTF-8 text. The decoder made the text, so anything else is not expected;
// such a code point keeps its low byte.
std::string Latin1Bytes(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (size_t i = 0; i < text.size(); ++i) {
    const auto c = static_cast<unsigned char>(text[i]);
    if (c < 0x80 || i + 1 == text.size()) {
      out.push_back(static_cast<char>(c));
      continue;
    }
    const auto d = static_cast<unsigned char>(text[i + 1]);
    out.push_back(static_cast<char>(((c & 0x03) << 6) | (d & 0x3f)));
    ++i;
  }
  return out;
}

bool BranchNamed(const AvroNode& branch, std::string_view name) {
  return branch.is_named() ? branch.full_name() == name : avro::AvroTypeName(branch.type()) == name;
}

parquet::TimeUnit UnitOf(LogicalKind kind) {
  switch (kind) {
    case LogicalKind::kTimeMillis:
    case LogicalKind::kTimestampMillis:
    case LogicalKind::kLocalTimestampMillis:
      return parquet::TimeUnit::kMillis;
    case LogicalKind::kTimestampNanos:
    case LogicalKind::kLocalTimestampNanos:
      return parquet::TimeUnit::kNanos;
    case LogicalKind::kNone:
    case LogicalKind::kDecimal:
    case LogicalKind::kUuid:
    case LogicalKind::kDate:
    case LogicalKind::kTimeMicros:
    case LogicalKind::kTimestampMicros:
    case LogicalKind::kLocalTimestampMicros:
    case LogicalKind::kDuration:
      return parquet::TimeUnit::kMicros;
  }
  return parquet::TimeUnit::kMicros;
}

// Writes a decoded datum (Avro's JSON encoding) as the JSON text spark-avro's row holds for it,
// walking the writer's schema beside the value. The decoder made the value from that schema, so
// their shapes agree; where one would not, the value's own JSON is written and the validator
// judges it.
class RowWriter {
 public:
  explicit RowWriter(std::string& out) : out_(out) {}

  void Top(const AvroNode& root, const JsonValue& v) {
    if (root.type() == AvroType::kRecord) {
      Value(root, v);
      return;
    }
    // A top-level non-record is the single field `value` (ToModel's choice).
    out_ += "{\"value\":";
    Value(root, v);
    out_ += '}';
  }

  void Value(const AvroNode& n, const JsonValue& v) {
    switch (n.type()) {
      case AvroType::kNull:
        out_ += "null";
        return;
      case AvroType::kInt:
      case AvroType::kLong:
        return Integer(n, v);
      case AvroType::kBytes:
      case AvroType::kFixed:
        return Bytes(n, v);
      case AvroType::kRecord:
        return Record(n, v);
      case AvroType::kArray:
        return Array(n, v);
      case AvroType::kMap:
        return Map(n, v);
      case AvroType::kUnion:
        return Union(n, v);
      case AvroType::kBoolean:
      case AvroType::kFloat:
      case AvroType::kDouble:
      case AvroType::kString:
      case AvroType::kEnum:
        return Raw(v);
    }
  }

 private:
  void Raw(const JsonValue& v) {
    if (v.is_string()) {
      parquet::AppendJsonText(out_, v.as_string());
    } else if (v.is_number()) {
      out_ += v.number_text();
    } else {
      out_ += ToJson(v);
    }
  }

  void Integer(const AvroNode& n, const JsonValue& v) {
    const std::optional<int64_t> i = v.is_number() ? v.as_int64() : std::nullopt;
    if (!i) return Raw(v);
    const LogicalKind kind = n.logical_type().kind;
    switch (kind) {
      case LogicalKind::kDate:
        return parquet::AppendDate(out_, *i);
      case LogicalKind::kTimestampMillis:
      case LogicalKind::kTimestampMicros:
      case LogicalKind::kTimestampNanos:
        return parquet::AppendTimestamp(out_, *i, UnitOf(kind), true);
      case LogicalKind::kLocalTimestampMillis:
      case LogicalKind::kLocalTimestampMicros:
      case LogicalKind::kLocalTimestampNanos:
        return parquet::AppendTimestamp(out_, *i, UnitOf(kind), false);
      case LogicalKind::kTimeMillis:
      case LogicalKind::kTimeMicros: {
        const size_t size = out_.size();
        // A negative time of day has no text: the number goes to the validator, which
        // reports it.
        if (!parquet::AppendTime(out_, *i, UnitOf(kind)).has_value()) {
          out_.resize(size);
          Raw(v);
        }
        return;
      }
      case LogicalKind::kNone:
      case LogicalKind::kDecimal:
      case LogicalKind::kUuid:
      case LogicalKind::kDuration:
        return Raw(v);
    }
  }

  void Bytes(const AvroNode& n, const JsonValue& v) {
    if (!v.is_string()) return Raw(v);
    const std::string bytes = Latin1Bytes(v.as_string());
    const avro::LogicalType& lt = n.logical_type();
    if (lt.kind == LogicalKind::kDecimal) {
      const size_t size = out_.size();
      if (parquet::AppendDecimalBytes(out_, bytes, lt.scale).has_value()) return;
      out_.resize(size);
    } else if (lt.kind == LogicalKind::kUuid && bytes.size() == 16) {
      return parquet::AppendUuid(out_, bytes);
    }
    parquet::AppendBase64Json(out_, bytes);
  }

  void Record(const AvroNode& n, const JsonValue& v) {
    if (!v.is_object()) return Raw(v);
    out_ += '{';
    bool first = true;
    for (const avro::AvroField& f : n.fields()) {
      const JsonValue* member = v.Find(f.name());
      if (!first) out_ += ',';
      first = false;
      parquet::AppendJsonText(out_, f.name());
      out_ += ':';
      if (member == nullptr) {
        out_ += "null";
      } else {
        Value(f.type(), *member);
      }
    }
    out_ += '}';
  }

  void Array(const AvroNode& n, const JsonValue& v) {
    if (!v.is_array()) return Raw(v);
    out_ += '[';
    for (size_t i = 0; i < v.items().size(); ++i) {
      if (i > 0) out_ += ',';
      Value(n.items(), v.items()[i]);
    }
    out_ += ']';
  }

  void Map(const AvroNode& n, const JsonValue& v) {
    if (!v.is_object()) return Raw(v);
    out_ += '{';
    bool first = true;
    for (const JsonMember& m : v.members()) {
      if (!first) out_ += ',';
      first = false;
      parquet::AppendJsonText(out_, m.key);
      out_ += ':';
      Value(n.values(), m.value);
    }
    out_ += '}';
  }

  // The shapes of avro::ToModel: null + T is T, int+long and float+double the number, other
  // unions a struct of one nullable member per non-null branch.
  void Union(const AvroNode& n, const JsonValue& v) {
    if (v.is_null() || !v.is_object() || v.members().size() != 1) {
      if (v.is_null()) {
        out_ += "null";
        return;
      }
      return Raw(v);
    }
    const JsonMember& m = v.members()[0];
    size_t non_null = 0;
    size_t member = 0;
    const AvroNode* branch = nullptr;
    AvroType first = AvroType::kNull;
    AvroType second = AvroType::kNull;
    for (const AvroNode* b : n.branches()) {
      if (b->type() == AvroType::kNull) continue;
      if (branch == nullptr && BranchNamed(*b, m.key)) {
        branch = b;
        member = non_null;
      }
      (non_null == 0 ? first : second) = b->type();
      ++non_null;
    }
    if (branch == nullptr) return Raw(m.value);
    if (non_null == 1) return Value(*branch, m.value);
    auto pair_of = [&](AvroType x, AvroType y) {
      return (first == x && second == y) || (first == y && second == x);
    };
    if (non_null == 2 && (pair_of(AvroType::kInt, AvroType::kLong) ||
                          pair_of(AvroType::kFloat, AvroType::kDouble))) {
      // The model's int64 or float64: the number, whatever the branch's logical type.
      return Raw(m.value);
    }
    out_ += '{';
    for (size_t i = 0; i < non_null; ++i) {
      if (i > 0) out_ += ',';
      out_ += fmt::format("\"member{}\":", i);
      if (i == member) {
        Value(*branch, m.value);
      } else {
        out_ += "null";
      }
    }
    out_ += '}';
  }

  std::string& out_;
};

// Records are decoded and written as text on the reading thread, a chunk at a time.
class AvroRows final : public SequentialFile {
 public:
  explicit AvroRows(std::unique_ptr<AvroContainerReader> reader) : reader_(std::move(reader)) {}

  Result<size_t> Read(char* buf, size_t n) override {
    if (pos_ == text_.size()) {
      text_.clear();
      pos_ = 0;
      while (!done_ && text_.size() < kChunkBytes) {
        SLUICE_ASSIGN_OR_RETURN(std::optional<JsonValue> record, reader_->Next());
        if (!record) {
          done_ = true;
          break;
        }
        RowWriter(text_).Top(reader_->schema().root(), *record);
        text_ += '\n';
      }
    }
    const size_t k = std::min(n, text_.size() - pos_);
    std::memcpy(buf, text_.data() + pos_, k);
    pos_ += k;
    return k;
  }
  // The records' text is not the file: its size is unknown until read.
  std::optional<uint64_t> size() const override { return std::nullopt; }

 private:
  static constexpr size_t kChunkBytes = size_t{1} << 20;
  std::unique_ptr<AvroContainerReader> reader_;
  std::string text_;
  size_t pos_ = 0;
  bool done_ = false;
};

}  // namespace

void AppendSparkAvroRow(const dialects::avro::AvroSchema& writer, const JsonValue& datum,
                        std::string& out) {
  RowWriter(out).Top(writer.root(), datum);
}

Result<std::unique_ptr<SequentialFile>> OpenAvroRows(FileSystem& fs, const std::string& path,
                                                     const AvroContainerLimits& limits) {
  SLUICE_ASSIGN_OR_RETURN(std::unique_ptr<AvroContainerReader> reader,
                          AvroContainerReader::Open(fs, path, limits));
  return std::unique_ptr<SequentialFile>(std::make_unique<AvroRows>(std::move(reader)));
}

}  // namespace sluice::data
