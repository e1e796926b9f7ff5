// Java's messages for the compatibility check's findings, and sluice's descriptions and hints.
#include "sluice/dialects/avro/avro_compat_report.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstring>
#include <initializer_list>
#include <unordered_set>

namespace sluice::dialects::avro::internal {

using Kind = AvroIncompatibilityKind;

namespace {

// Java's Schema.Type constant names, which its messages print.
std::string_view JavaTypeName(AvroType type) {
  switch (type) {
    case AvroType::kNull:
      return "NULL";
    case AvroType::kBoolean:
      return "BOOLEAN";
    case AvroType::kInt:
      return "INT";
    case AvroType::kLong:
      return "LONG";
    case AvroType::kFloat:
      return "FLOAT";
    case AvroType::kDouble:
      return "DOUBLE";
    case AvroType::kBytes:
      return "BYTES";
    case AvroType::kString:
      return "STRING";
    case AvroType::kRecord:
      return "RECORD";
    case AvroType::kEnum:
      return "ENUM";
    case AvroType::kArray:
      return "ARRAY";
    case AvroType::kMap:
      return "MAP";
    case AvroType::kUnion:
      return "UNION";
    case AvroType::kFixed:
      return "FIXED";
  }
  return "UNKNOWN";
}

constexpr size_t kTypes = static_cast<size_t>(AvroType::kFixed) + 1;

// Java's type-mismatch and missing-branch messages for every type, written once: a reported
// incompatibility copies its message rather than composing it.
struct TypeMessages {
  TypeMessages() {
    for (size_t r = 0; r < kTypes; ++r) {
      std::string_view reader = JavaTypeName(static_cast<AvroType>(r));
      lacking[r] = "reader union lacking writer type: " + std::string(reader);
      for (size_t w = 0; w < kTypes; ++w) {
        mismatch[r][w] = "reader type: " + std::string(reader) +
                         " not compatible with writer type: " +
                         std::string(JavaTypeName(static_cast<AvroType>(w)));
      }
    }
  }
  std::string mismatch[kTypes][kTypes];
  std::string lacking[kTypes];
};

const TypeMessages& Messages() {
  static const TypeMessages messages;
  return messages;
}

}  // namespace

// A short description of a node for messages and hints.
std::string Describe(const AvroNode& node, int depth) {
  switch (node.type()) {
    case AvroType::kRecord:
      return "record " + node.full_name();
    case AvroType::kEnum:
      return "enum " + node.full_name();
    case AvroType::kFixed:
      return fmt::format("fixed {} (size {})", node.full_name(), node.size());
    case AvroType::kArray:
      return depth > 2 ? "array" : "array<" + Describe(node.items(), depth + 1) + ">";
    case AvroType::kMap:
      return depth > 2 ? "map" : "map<" + Describe(node.values(), depth + 1) + ">";
    case AvroType::kUnion: {
      if (depth > 2) return "union";
      std::string out = "union [";
      for (size_t i = 0; i < node.branches().size(); ++i) {
        if (i > 0) out += ", ";
        if (i == 8) {
          out += "...";
          break;
        }
        const AvroNode& b = *node.branches()[i];
        out += b.is_named() ? b.full_name() : Describe(b, depth + 1);
      }
      return out + "]";
    }
    case AvroType::kNull:
    case AvroType::kBoolean:
    case AvroType::kInt:
    case AvroType::kLong:
    case AvroType::kFloat:
    case AvroType::kDouble:
    case AvroType::kBytes:
    case AvroType::kString:
      return DescribeNode(node);
  }
  return DescribeNode(node);
}

namespace {

std::string_view KindWord(const AvroNode& node) { return AvroTypeName(node.type()); }

constexpr std::string_view kPromotions =
    "Avro promotes only int to long, float or double, long to float or double, float to double, "
    "and string to or from bytes";

}  // namespace

// The writer's enum symbols the reader lacks, in the writer's order, stopping at the first when
// `first_only`. Symbols mostly stay in place, so each is looked for at its own position first,
// and in a set of the reader's symbols (built once, when needed) otherwise: linear in the
// symbols however many there are.
std::vector<std::string_view> WriterSymbolsNotInReader(const AvroNode& r, const AvroNode& w,
                                                       bool first_only) {
  const std::vector<std::string>& rs = r.symbols();
  std::vector<std::string_view> missing;
  std::unordered_set<std::string_view> reader;
  for (size_t i = 0; i < w.symbols().size(); ++i) {
    const std::string& s = w.symbols()[i];
    if (i < rs.size() && rs[i] == s) continue;
    if (reader.empty()) reader.insert(rs.begin(), rs.end());
    if (reader.contains(s)) continue;
    missing.push_back(s);
    if (first_only) break;
  }
  return missing;
}

namespace {

// The writer's enum symbols the reader lacks, sorted and without repeats, as Java's TreeSet
// holds them.
std::vector<std::string_view> MissingSymbols(const AvroNode& r, const AvroNode& w) {
  std::vector<std::string_view> missing = WriterSymbolsNotInReader(r, w, /*first_only=*/false);
  std::sort(missing.begin(), missing.end());
  missing.erase(std::unique(missing.begin(), missing.end()), missing.end());
  return missing;
}

std::string JoinSymbols(const std::vector<std::string_view>& symbols) {
  std::string out;
  for (size_t i = 0; i < symbols.size(); ++i) {
    if (i > 0) out += ", ";
    out += symbols[i];
  }
  return out;
}

// The parts joined, in one allocation.
std::string Concat(std::initializer_list<std::string_view> parts) {
  size_t size = 0;
  for (std::string_view p : parts) size += p.size();
  std::string out;
  // The size written is returned as computed: libstdc++ 12 hands the operation the capacity it
  // allocated, which may be more than was asked for.
  out.resize_and_overwrite(size, [&parts, size](char* to, size_t) {
    for (std::string_view p : parts) {
      std::memcpy(to, p.data(), p.size());
      to += p.size();
    }
    return size;
  });
  return out;
}

}  // namespace

// Java's getMessage() for each kind.
std::string Message(const RawIncompatibility& inc) {
  const AvroNode& r = *inc.reader;
  const AvroNode& w = *inc.writer;
  switch (inc.kind) {
    case Kind::kNameMismatch:
      return Concat({"expected: ", w.full_name()});
    case Kind::kFixedSizeMismatch:
      return fmt::format("expected: {}, found: {}", w.size(), r.size());
    case Kind::kMissingEnumSymbols:
      return "[" + JoinSymbols(MissingSymbols(r, w)) + "]";
    case Kind::kReaderFieldMissingDefaultValue:
      return std::string(inc.field_name);
    case Kind::kTypeMismatch:
      return Messages()
          .mismatch[static_cast<size_t>(inc.reader_type)][static_cast<size_t>(inc.writer_type)];
    case Kind::kMissingUnionBranch:
      return Messages().lacking[static_cast<size_t>(
          inc.writer_branch != nullptr ? inc.branch_type : inc.writer_type)];
  }
  return "";
}

std::string Hint(const RawIncompatibility& inc) {
  const AvroNode& r = *inc.reader;
  const AvroNode& w = *inc.writer;
  switch (inc.kind) {
    case Kind::kNameMismatch:
      return fmt::format(
          "the reader's {0} is named `{1}` and the writer's `{2}`: rename the reader {0} back to "
          "`{3}`, or add \"aliases\": [\"{2}\"] to it",
          KindWord(r), r.full_name(), w.full_name(), w.name());
    case Kind::kFixedSizeMismatch:
      return fmt::format(
          "fixed `{}` holds {} bytes in the reader and {} in the writer, and a fixed cannot change "
          "size: keep {} bytes, or add a new field of a new fixed type with a default",
          r.full_name(), r.size(), w.size(), w.size());
    case Kind::kMissingEnumSymbols: {
      std::vector<std::string_view> missing = MissingSymbols(r, w);
      std::string example = r.symbols().empty() ? "UNKNOWN" : r.symbols().front();
      return fmt::format(
          "add the symbol{} {} to the reader enum `{}`, or give the enum a default, e.g. "
          "\"default\": \"{}\", which the reader uses for symbols it does not know",
          missing.size() > 1 ? "s" : "", JoinSymbols(missing), r.full_name(), example);
    }
    case Kind::kReaderFieldMissingDefaultValue: {
      const AvroField& f = *inc.reader_field;
      if (f.type().is_union()) {
        std::optional<size_t> null_branch = f.type().NullBranch();
        if (null_branch == 0) {
          return fmt::format(
              "the writer has no field `{0}`: give `{0}` a default, e.g. \"default\": null",
              f.name());
        }
        if (null_branch.has_value()) {
          return fmt::format(
              "the writer has no field `{0}`: give `{0}` a default, e.g. move \"null\" first in "
              "its union and add \"default\": null",
              f.name());
        }
      }
      return fmt::format(
          "the writer has no field `{0}`: give `{0}` a default, e.g. \"default\": null with a "
          "[\"null\", {1}] union, or a default value of type {1}",
          f.name(), Describe(f.type()));
    }
    case Kind::kTypeMismatch:
      if (inc.reader_field != nullptr) {
        return fmt::format(
            "the writer has no field `{0}`; an enum's own default does not stand in for a field "
            "default (Java reports it as this mismatch of the enum against the writer record): "
            "give `{0}` a field default, e.g. \"default\": \"{1}\"",
            inc.reader_field->name(),
            r.enum_default().has_value() ? *r.enum_default() : std::string("..."));
      }
      return fmt::format(
          "{} cannot be read as {}; {}. Keep the writer's type, or add a new field with a default "
          "instead of changing this one",
          Describe(w), Describe(r), kPromotions);
    case Kind::kMissingUnionBranch:
      if (inc.writer_branch != nullptr) {
        return fmt::format(
            "the writer's union may hold {}, which no branch of the reader's {} can read: add a "
            "branch for it to the reader union",
            Describe(*inc.writer_branch), Describe(r));
      }
      return fmt::format(
          "the writer writes {}, which no branch of the reader's {} can read: add a branch for it "
          "to the reader union ({})",
          Describe(w), Describe(r), kPromotions);
  }
  return "";
}

}  // namespace sluice::dialects::avro::internal
