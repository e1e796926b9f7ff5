// Writing a parsed Avro schema: the full JSON form, the Parsing Canonical Form and fingerprints.
#include <string>
#include <unordered_set>

#include "sluice/base/hash.h"
#include "sluice/base/json_writer.h"
#include "sluice/dialects/avro/avro_schema.h"

namespace sluice::dialects::avro {

namespace {

std::string_view SortOrderName(SortOrder order) {
  switch (order) {
    case SortOrder::kAscending:
      return "ascending";
    case SortOrder::kDescending:
      return "descending";
    case SortOrder::kIgnore:
      return "ignore";
  }
  return "ascending";
}

// Depth first, as the parser read it: a named type is written in full the first time, by full
// name after that. The recursion is bounded by the parser's check of the written depth.
class FullWriter {
 public:
  explicit FullWriter(int indent) : w_(JsonFormat{.indent = indent < 0 ? 0 : indent}) {}

  void Write(const AvroNode& n, const std::string& enclosing_ns) {
    if (n.is_union()) {
      w_.BeginArray();
      for (const AvroNode* b : n.branches()) Write(*b, enclosing_ns);
      w_.EndArray();
      return;
    }
    if (n.is_primitive()) {
      if (n.logical_type().kind == LogicalKind::kNone && n.props().members().empty()) {
        w_.String(AvroTypeName(n.type()));
        return;
      }
      w_.BeginObject().Key("type").String(AvroTypeName(n.type()));
      WriteLogicalAndProps(n);
      w_.EndObject();
      return;
    }
    if (n.type() == AvroType::kArray || n.type() == AvroType::kMap) {
      bool array = n.type() == AvroType::kArray;
      w_.BeginObject().Key("type").String(AvroTypeName(n.type()));
      w_.Key(array ? "items" : "values");
      Write(array ? n.items() : n.values(), enclosing_ns);
      WriteLogicalAndProps(n);
      w_.EndObject();
      return;
    }
    // Named types.
    if (!written_.insert(&n).second) {
      w_.String(n.full_name());
      return;
    }
    w_.BeginObject().Key("type").String(n.is_error() ? "error" : AvroTypeName(n.type()));
    w_.Key("name").String(n.name());
    if (n.namespace_name() != enclosing_ns) w_.Key("namespace").String(n.namespace_name());
    if (n.doc()) w_.Key("doc").String(*n.doc());
    if (!n.aliases().empty()) {
      w_.Key("aliases").BeginArray();
      for (const std::string& a : n.aliases()) w_.String(RelativeName(a, n.namespace_name()));
      w_.EndArray();
    }
    if (n.type() == AvroType::kRecord) {
      w_.Key("fields").BeginArray();
      for (const AvroField& f : n.fields()) WriteField(f, n.namespace_name());
      w_.EndArray();
    } else if (n.type() == AvroType::kEnum) {
      w_.Key("symbols").BeginArray();
      for (const std::string& s : n.symbols()) w_.String(s);
      w_.EndArray();
      if (n.enum_default()) w_.Key("default").String(*n.enum_default());
    } else {
      w_.Key("size").Int(n.size());
    }
    WriteLogicalAndProps(n);
    w_.EndObject();
  }

  std::string Take() { return w_.Take(); }

 private:
  // An alias in the type's own namespace is written short, as Java does.
  static std::string RelativeName(const std::string& full, const std::string& ns) {
    if (!ns.empty() && full.size() > ns.size() && full.compare(0, ns.size(), ns) == 0 &&
        full[ns.size()] == '.' && full.find('.', ns.size() + 1) == std::string::npos) {
      return full.substr(ns.size() + 1);
    }
    return full;
  }

  void WriteField(const AvroField& f, const std::string& ns) {
    w_.BeginObject().Key("name").String(f.name());
    w_.Key("type");
    Write(f.type(), ns);
    if (f.doc()) w_.Key("doc").String(*f.doc());
    if (f.default_value()) w_.Key("default").Value(*f.default_value());
    if (f.order() != SortOrder::kAscending) w_.Key("order").String(SortOrderName(f.order()));
    if (!f.aliases().empty()) {
      w_.Key("aliases").BeginArray();
      for (const std::string& a : f.aliases()) w_.String(a);
      w_.EndArray();
    }
    for (const JsonMember& m : f.props().members()) w_.Key(m.key).Value(m.value);
    w_.EndObject();
  }

  void WriteLogicalAndProps(const AvroNode& n) {
    const LogicalType& lt = n.logical_type();
    if (lt.kind != LogicalKind::kNone) {
      w_.Key("logicalType").String(LogicalKindName(lt.kind));
      if (lt.kind == LogicalKind::kDecimal) {
        w_.Key("precision").Int(lt.precision).Key("scale").Int(lt.scale);
      }
    }
    for (const JsonMember& m : n.props().members()) w_.Key(m.key).Value(m.value);
  }

  JsonWriter w_;
  std::unordered_set<const AvroNode*> written_;
};

// The spec's transformation: full names, only the attributes that matter for parsing, in the
// order name, type, fields, symbols, items, values, size; no whitespace.
void AppendCanonical(std::string& out, const AvroNode& n,
                     std::unordered_set<const AvroNode*>& written) {
  if (n.is_primitive()) {
    AppendJsonString(out, AvroTypeName(n.type()));
    return;
  }
  if (n.is_union()) {
    out += '[';
    for (size_t i = 0; i < n.branches().size(); ++i) {
      if (i > 0) out += ',';
      AppendCanonical(out, *n.branches()[i], written);
    }
    out += ']';
    return;
  }
  if (n.type() == AvroType::kArray) {
    out += "{\"type\":\"array\",\"items\":";
    AppendCanonical(out, n.items(), written);
    out += '}';
    return;
  }
  if (n.type() == AvroType::kMap) {
    out += "{\"type\":\"map\",\"values\":";
    AppendCanonical(out, n.values(), written);
    out += '}';
    return;
  }
  if (!written.insert(&n).second) {
    AppendJsonString(out, n.full_name());
    return;
  }
  out += "{\"name\":";
  AppendJsonString(out, n.full_name());
  // Java writes an error's type as "record": SchemaNormalization uses the schema type's name.
  out += ",\"type\":";
  AppendJsonString(out, AvroTypeName(n.type()));
  if (n.type() == AvroType::kRecord) {
    out += ",\"fields\":[";
    for (size_t i = 0; i < n.fields().size(); ++i) {
      const AvroField& f = n.fields()[i];
      if (i > 0) out += ',';
      out += "{\"name\":";
      AppendJsonString(out, f.name());
      out += ",\"type\":";
      AppendCanonical(out, f.type(), written);
      out += '}';
    }
    out += ']';
  } else if (n.type() == AvroType::kEnum) {
    out += ",\"symbols\":[";
    for (size_t i = 0; i < n.symbols().size(); ++i) {
      if (i > 0) out += ',';
      AppendJsonString(out, n.symbols()[i]);
    }
    out += ']';
  } else {
    out += ",\"size\":" + std::to_string(n.size());
  }
  out += '}';
}

}  // namespace

std::string WriteJson(const AvroSchema& schema, int indent) {
  FullWriter writer(indent);
  writer.Write(schema.root(), "");
  return writer.Take();
}

std::string ParsingCanonicalForm(const AvroSchema& schema) {
  std::string out;
  std::unordered_set<const AvroNode*> written;
  AppendCanonical(out, schema.root(), written);
  return out;
}

uint64_t Crc64Fingerprint(const AvroSchema& schema) {
  return Crc64Avro(ParsingCanonicalForm(schema));
}

std::string Sha256Fingerprint(const AvroSchema& schema) {
  return Sha256Hex(ParsingCanonicalForm(schema));
}

std::string Md5Fingerprint(const AvroSchema& schema) {
  return Md5Hex(ParsingCanonicalForm(schema));
}

}  // namespace sluice::dialects::avro
