#include "sluice/table/protocol.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <optional>
#include <span>
#include <utility>

#include "sluice/schema/type.h"

namespace sluice::table {
namespace {

// Reader features sluice implements when reading (see docs/formats/delta.md).
constexpr std::string_view kReadable[] = {
    "columnMapping",        "deletionVectors", "timestampNtz",        "typeWidening",
    "typeWidening-preview", "v2Checkpoint",    "vacuumProtocolCheck",
};

// Writer features whose duties sluice's writes honour. deletionVectors: sluice never writes a
// deletion vector, and removes whole files with their descriptors. domainMetadata: domains are
// kept as they are. typeWidening-preview: Delta 3.2's name for typeWidening, same duties.
// vacuumProtocolCheck and v2Checkpoint: sluice does not vacuum, and writes no
// classic checkpoint into a v2Checkpoint table.
constexpr std::string_view kWritable[] = {
    "appendOnly",     "invariants",          "checkConstraints",     "columnMapping",
    "timestampNtz",   "typeWidening",        "typeWidening-preview", "deletionVectors",
    "domainMetadata", "vacuumProtocolCheck", "v2Checkpoint",
};

bool In(std::span<const std::string_view> list, std::string_view name) {
  return std::find(list.begin(), list.end(), name) != list.end();
}

bool AnyFieldMetadata(const schema::Schema& schema, std::string_view prefix) {
  bool found = false;
  schema::VisitFields(schema, [&](const schema::FieldPath&, const schema::Field& field) {
    for (const JsonMember& m : field.metadata().members()) {
      if (m.key.starts_with(prefix)) found = true;
    }
  });
  return found;
}

// The first field whose metadata holds a key starting with `prefix`, and that key.
std::optional<std::pair<std::string, std::string>> FieldWithMetadata(const schema::Schema& schema,
                                                                     std::string_view prefix) {
  std::optional<std::pair<std::string, std::string>> found;
  schema::VisitFields(schema, [&](const schema::FieldPath& path, const schema::Field& field) {
    for (const JsonMember& m : field.metadata().members()) {
      if (!found && m.key.starts_with(prefix)) found.emplace(path.ToString(), m.key);
    }
  });
  return found;
}

std::optional<std::string> FieldWithDefault(const schema::Schema& schema) {
  std::optional<std::string> found;
  schema::VisitFields(schema, [&](const schema::FieldPath& path, const schema::Field& field) {
    if (!found && field.default_value()) found = path.ToString();
  });
  return found;
}

// Writer features that ask nothing of a writer until a property or the schema turns them on;
// sluice honours none of their duties (change data files, generated values, identity values,
// default values), so a table that turns one on is not written.
constexpr std::string_view kDutiesWhenTurnedOn[] = {
    "changeDataFeed",
    "generatedColumns",
    "identityColumns",
    "allowColumnDefaults",
};

// The first of kDutiesWhenTurnedOn that the metadata or schema turns on, and what turns it on.
std::optional<std::pair<std::string_view, std::string>> TurnedOnFeature(
    const Metadata& metadata, const schema::Schema& schema) {
  if (PropertyTrue(metadata, "delta.enableChangeDataFeed")) {
    return std::make_pair(kDutiesWhenTurnedOn[0],
                          std::string("the property delta.enableChangeDataFeed = true"));
  }
  if (auto f = FieldWithMetadata(schema, "delta.generationExpression")) {
    return std::make_pair(kDutiesWhenTurnedOn[1],
                          fmt::format("column {} has {}", f->first, f->second));
  }
  if (auto f = FieldWithMetadata(schema, "delta.identity.")) {
    return std::make_pair(kDutiesWhenTurnedOn[2],
                          fmt::format("column {} has {}", f->first, f->second));
  }
  if (auto f = FieldWithDefault(schema)) {
    return std::make_pair(kDutiesWhenTurnedOn[3], fmt::format("column {} has a default value", *f));
  }
  // Properties that turn on features sluice refuses whatever the protocol says.
  static constexpr std::pair<std::string_view, std::string_view> kRefusedByProperty[] = {
      {"delta.enableRowTracking", "rowTracking"},
      {"delta.enableInCommitTimestamps", "inCommitTimestamp"},
      {"delta.enableIcebergCompatV1", "icebergCompatV1"},
      {"delta.enableIcebergCompatV2", "icebergCompatV2"},
  };
  for (const auto& [key, feature] : kRefusedByProperty) {
    if (PropertyTrue(metadata, key)) {
      return std::make_pair(feature, fmt::format("the property {} = true", key));
    }
  }
  if (auto it = metadata.configuration.find("delta.universalFormat.enabledFormats");
      it != metadata.configuration.end() && !it->second.empty()) {
    return std::make_pair(
        std::string_view("icebergCompatV2"),
        fmt::format("the property delta.universalFormat.enabledFormats = {}", it->second));
  }
  return std::nullopt;
}

bool HasTimestampNtz(const schema::Type& type) {
  if (type.kind() == schema::TypeKind::kTimestampNtz) return true;
  for (const schema::Field& f : type.fields()) {
    if (HasTimestampNtz(*f.type())) return true;
  }
  if (type.element_type() && HasTimestampNtz(*type.element_type())) return true;
  if (type.key_type() && HasTimestampNtz(*type.key_type())) return true;
  if (type.value_type() && HasTimestampNtz(*type.value_type())) return true;
  return false;
}

}  // namespace

bool PropertyTrue(const Metadata& metadata, std::string_view key) {
  auto it = metadata.configuration.find(key);
  if (it == metadata.configuration.end()) return false;
  std::string v = it->second;
  std::transform(v.begin(), v.end(), v.begin(), [](unsigned char c) { return std::tolower(c); });
  return v == "true";
}

namespace {

Unexpected<Error> Unsupported(std::string_view what, std::string_view feature,
                              std::string_view why) {
  return Fail(ErrorCode::kUnimplemented,
              fmt::format("the table needs {} feature '{}', which sluice does not support{}", what,
                          feature, why));
}

}  // namespace

FeatureSet ReaderFeatures(const Protocol& protocol) {
  FeatureSet out;
  if (protocol.min_reader_version >= 3) {
    if (protocol.reader_features)
      out.insert(protocol.reader_features->begin(), protocol.reader_features->end());
  } else if (protocol.min_reader_version == 2) {
    out.insert("columnMapping");
  }
  return out;
}

FeatureSet WriterFeatures(const Protocol& protocol) {
  FeatureSet out;
  int v = protocol.min_writer_version;
  if (v >= 7) {
    if (protocol.writer_features)
      out.insert(protocol.writer_features->begin(), protocol.writer_features->end());
    return out;
  }
  if (v >= 2) out.insert({"appendOnly", "invariants"});
  if (v >= 3) out.insert("checkConstraints");
  if (v >= 4) out.insert({"changeDataFeed", "generatedColumns"});
  if (v >= 5) out.insert("columnMapping");
  if (v >= 6) out.insert("identityColumns");
  return out;
}

bool Supports(const Protocol& protocol, std::string_view feature) {
  FeatureSet w = WriterFeatures(protocol);
  if (w.contains(feature)) return true;
  return ReaderFeatures(protocol).contains(feature);
}

Status CheckReadable(const Protocol& protocol) {
  if (protocol.min_reader_version > 3) {
    return Fail(ErrorCode::kUnimplemented,
                fmt::format("the table needs reader version {}; sluice reads versions 1 to 3",
                            protocol.min_reader_version));
  }
  for (const std::string& f : ReaderFeatures(protocol)) {
    if (!In(kReadable, f)) return Unsupported("reader", f, "");
  }
  return {};
}

Status CheckWritable(const Protocol& protocol, const Metadata& metadata,
                     const schema::Schema& schema) {
  SLUICE_TRY(CheckReadable(protocol));
  if (protocol.min_writer_version > 7) {
    return Fail(ErrorCode::kUnimplemented,
                fmt::format("the table needs writer version {}; sluice writes versions 1 to 7",
                            protocol.min_writer_version));
  }
  for (const std::string& f : WriterFeatures(protocol)) {
    if (In(kWritable, f) || In(kDutiesWhenTurnedOn, f)) continue;
    return Unsupported("writer", f, " when writing");
  }
  // Whether or not the protocol lists it yet: a new table's metadata, a change that turns one
  // on, or a table another writer left without the feature.
  if (auto on = TurnedOnFeature(metadata, schema)) {
    return Unsupported("writer", on->first, fmt::format(" when writing ({})", on->second));
  }
  return {};
}

Protocol RaiseProtocol(const Protocol& current, int min_reader_version, int min_writer_version) {
  Protocol p = current;
  int reader = std::max(p.min_reader_version, min_reader_version);
  int writer = std::max(p.min_writer_version, min_writer_version);
  // Reader features need writer features.
  if (reader >= 3) writer = 7;
  if (writer >= 7 && p.min_writer_version < 7) {
    // What the legacy version implied is listed, as Delta lists it when it moves to features.
    FeatureSet implied = WriterFeatures(p);
    p.writer_features = std::vector<std::string>(implied.begin(), implied.end());
  }
  if (reader >= 3 && p.min_reader_version < 3) {
    FeatureSet implied = ReaderFeatures(p);
    p.reader_features = std::vector<std::string>(implied.begin(), implied.end());
  }
  p.min_reader_version = reader;
  p.min_writer_version = writer;
  return p;
}

FeatureNeeds NeedsOf(const Metadata& metadata, const schema::Schema& schema) {
  FeatureNeeds n;
  for (const auto& [key, value] : metadata.configuration) {
    if (key.starts_with("delta.constraints.")) n.check_constraints = true;
  }
  auto mode = metadata.configuration.find("delta.columnMapping.mode");
  n.column_mapping = mode != metadata.configuration.end() && mode->second != "none";
  n.timestamp_ntz = HasTimestampNtz(*schema.struct_type());
  n.type_widening = PropertyTrue(metadata, "delta.enableTypeWidening");
  n.deletion_vectors = PropertyTrue(metadata, "delta.enableDeletionVectors");
  n.append_only = PropertyTrue(metadata, "delta.appendOnly");
  n.invariants = AnyFieldMetadata(schema, "delta.invariants");
  return n;
}

Protocol RequiredProtocol(const FeatureNeeds& needs, const Protocol* current) {
  Protocol p;
  if (current != nullptr) p = *current;
  FeatureSet reader = ReaderFeatures(p);
  FeatureSet writer = WriterFeatures(p);
  bool needs_table_features = needs.timestamp_ntz || needs.type_widening ||
                              needs.deletion_vectors || p.min_writer_version >= 7;
  if (!needs_table_features) {
    int writer_version = std::max(p.min_writer_version, 2);
    if (needs.check_constraints) writer_version = std::max(writer_version, 3);
    int reader_version = p.min_reader_version;
    if (needs.column_mapping) {
      writer_version = std::max(writer_version, 5);
      reader_version = std::max(reader_version, 2);
    }
    p.min_reader_version = reader_version;
    p.min_writer_version = writer_version;
    return p;
  }
  // Table features: list what the old versions implied, then what is needed now.
  writer.insert({"appendOnly", "invariants"});
  if (needs.check_constraints) writer.insert("checkConstraints");
  if (needs.column_mapping) {
    writer.insert("columnMapping");
    reader.insert("columnMapping");
  }
  if (needs.timestamp_ntz) {
    writer.insert("timestampNtz");
    reader.insert("timestampNtz");
  }
  if (needs.type_widening && !reader.contains("typeWidening-preview")) {
    writer.insert("typeWidening");
    reader.insert("typeWidening");
  }
  if (needs.deletion_vectors) {
    writer.insert("deletionVectors");
    reader.insert("deletionVectors");
  }
  bool reader_features = !reader.empty();
  p.min_writer_version = 7;
  p.writer_features = std::vector<std::string>(writer.begin(), writer.end());
  if (reader_features) {
    p.min_reader_version = 3;
    p.reader_features = std::vector<std::string>(reader.begin(), reader.end());
  } else {
    p.reader_features.reset();
  }
  return p;
}

}  // namespace sluice::table
