#include "sluice/dialects/avro/avro_compatibility.h"

#include <fmt/format.h>

#include <algorithm>
#include <deque>
#include <functional>
#include <limits>
#include <optional>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include "sluice/dialects/avro/avro_compat_internal.h"

namespace sluice::dialects::avro {

std::string_view AvroIncompatibilityKindName(AvroIncompatibilityKind kind) {
  switch (kind) {
    case AvroIncompatibilityKind::kNameMismatch:
      return "NAME_MISMATCH";
    case AvroIncompatibilityKind::kFixedSizeMismatch:
      return "FIXED_SIZE_MISMATCH";
    case AvroIncompatibilityKind::kMissingEnumSymbols:
      return "MISSING_ENUM_SYMBOLS";
    case AvroIncompatibilityKind::kReaderFieldMissingDefaultValue:
      return "READER_FIELD_MISSING_DEFAULT_VALUE";
    case AvroIncompatibilityKind::kTypeMismatch:
      return "TYPE_MISMATCH";
    case AvroIncompatibilityKind::kMissingUnionBranch:
      return "MISSING_UNION_BRANCH";
  }
  return "UNKNOWN";
}

bool AvroSchemaNameEquals(const AvroNode& reader, const AvroNode& writer) {
  if (reader.name() == writer.name()) return true;
  const std::vector<std::string>& aliases = reader.aliases();
  return std::find(aliases.begin(), aliases.end(), writer.full_name()) != aliases.end();
}

namespace {

using Kind = AvroIncompatibilityKind;

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

// Java memoises on Schema object identity. Its parser makes a new Schema for every occurrence of
// a primitive, while sluice shares one node per primitive type, so a primitive is identified by
// where it occurs (its parent and slot); every other node is already one per occurrence (unions,
// arrays, maps) or one per definition (named types), as in Java. Parents are never primitives,
// and node ids stay below 2^32 (an arena that large would not fit in memory), so the two forms
// cannot collide.
using OccurrenceKey = uint64_t;

OccurrenceKey ChildKey(const AvroNode& child, const AvroNode& parent, size_t slot) {
  if (!child.is_primitive()) return child.id();
  return ((static_cast<uint64_t>(parent.id()) + 1) << 32) | (slot & 0xffffffffu);
}

// A result is a node of a shared tree of incompatibilities (memoised results are reused by
// reference, as Java reuses its result objects); kCompatible is the empty list.
constexpr uint32_t kCompatible = std::numeric_limits<uint32_t>::max();
constexpr uint32_t kInProgress = kCompatible - 1;

struct RopeNode {
  uint32_t left = kCompatible;
  uint32_t right = kCompatible;
  uint32_t leaf = kCompatible;
  uint64_t count = 0;
};

// One entry of Java's location stack: a fixed word, or a field position or branch index.
struct Token {
  const char* word = nullptr;
  uint32_t index = 0;
};
constexpr Token kRoot{""};

// An incompatibility as the walk records it: no strings, since most of those found while trying
// union branches are dropped; the message and location are written only for reported ones.
struct RawIncompatibility {
  Kind kind = Kind::kTypeMismatch;
  const AvroNode* reader = nullptr;
  const AvroNode* writer = nullptr;
  // MISSING_UNION_BRANCH of two unions: the writer branch no reader branch reads (its type is in
  // Java's message). READER_FIELD_MISSING_DEFAULT_VALUE, and the TYPE_MISMATCH of Java's enum
  // default exception: the reader field that has no writer field.
  const AvroNode* writer_branch = nullptr;
  const AvroField* reader_field = nullptr;
  // The location stack, a slice of the checker's token pool.
  uint32_t location_begin = 0;
  uint32_t location_size = 0;
};

uint64_t MixPair(uint64_t a, uint64_t b) {
  uint64_t x = a * 0x9e3779b97f4a7c15ULL ^ (b + 0x632be59bd9b4e019ULL + (a << 6) + (a >> 2));
  x ^= x >> 31;
  x *= 0xbf58476d1ce4e5b9ULL;
  x ^= x >> 29;
  return x;
}

// Open addressing on (reader key, writer key): the check inserts one entry per compared pair, so
// this is on the hot path. Slots carry the generation of the check that wrote them, so the table
// is reused by the next check without clearing it.
class PairMemo {
 public:
  void Reset() {
    if (slots_.size() > kKeepSlots) {
      slots_ = std::vector<Slot>();
    } else if (++generation_ == 0) {
      std::fill(slots_.begin(), slots_.end(), Slot{});
      generation_ = 1;
    }
    size_ = 0;
  }

  // The stored value, or nullopt when the pair has not been seen.
  std::optional<uint32_t> Find(uint64_t r, uint64_t w) const {
    if (slots_.empty()) return std::nullopt;
    size_t mask = slots_.size() - 1;
    for (size_t i = MixPair(r, w) & mask;; i = (i + 1) & mask) {
      const Slot& s = slots_[i];
      if (s.generation != generation_) return std::nullopt;
      if (s.r == r && s.w == w) return s.value;
    }
  }

  void Put(uint64_t r, uint64_t w, uint32_t value) {
    if ((size_ + 1) * 2 > slots_.size()) Grow();
    size_t mask = slots_.size() - 1;
    for (size_t i = MixPair(r, w) & mask;; i = (i + 1) & mask) {
      Slot& s = slots_[i];
      if (s.generation != generation_) {
        s = Slot{r, w, value, generation_};
        ++size_;
        return;
      }
      if (s.r == r && s.w == w) {
        s.value = value;
        return;
      }
    }
  }

 private:
  // A table larger than this is freed after its check rather than kept for the next one.
  static constexpr size_t kKeepSlots = size_t{1} << 16;

  struct Slot {
    uint64_t r = 0;
    uint64_t w = 0;
    uint32_t value = 0;
    uint32_t generation = 0;
  };

  void Grow() {
    std::vector<Slot> old = std::move(slots_);
    slots_.assign(old.empty() ? 64 : old.size() * 2, Slot{});
    size_ = 0;
    for (const Slot& s : old) {
      if (s.generation == generation_) Put(s.r, s.w, s.value);
    }
  }

  std::vector<Slot> slots_;
  size_t size_ = 0;
  uint32_t generation_ = 1;
};

// Field lookup by name in a writer record: positions in an open-addressing table, built the
// first time a record with many fields is searched.
class FieldIndex {
 public:
  explicit FieldIndex(const AvroNode& record) : record_(&record) {
    size_t n = record.fields().size();
    size_t cap = 16;
    while (cap < n * 2) cap *= 2;
    slots_.assign(cap, 0);
    for (size_t i = 0; i < n; ++i) {
      size_t mask = cap - 1;
      for (size_t s = Hash(record.fields()[i].name()) & mask;; s = (s + 1) & mask) {
        if (slots_[s] == 0) {
          slots_[s] = static_cast<uint32_t>(i + 1);
          break;
        }
      }
    }
  }

  const AvroField* Find(std::string_view name) const {
    size_t mask = slots_.size() - 1;
    for (size_t s = Hash(name) & mask;; s = (s + 1) & mask) {
      uint32_t v = slots_[s];
      if (v == 0) return nullptr;
      const AvroField& f = record_->fields()[v - 1];
      if (f.name() == name) return &f;
    }
  }

 private:
  static size_t Hash(std::string_view s) { return std::hash<std::string_view>{}(s); }

  const AvroNode* record_;
  std::vector<uint32_t> slots_;
};

// A short description of a node for messages and hints.
std::string Describe(const AvroNode& node, int depth = 0) {
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

std::string_view KindWord(const AvroNode& node) { return AvroTypeName(node.type()); }

constexpr std::string_view kPromotions =
    "Avro promotes only int to long, float or double, long to float or double, float to double, "
    "and string to or from bytes";

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

// Java's getMessage() for each kind.
std::string Message(const RawIncompatibility& inc) {
  const AvroNode& r = *inc.reader;
  const AvroNode& w = *inc.writer;
  switch (inc.kind) {
    case Kind::kNameMismatch:
      return "expected: " + w.full_name();
    case Kind::kFixedSizeMismatch:
      return fmt::format("expected: {}, found: {}", w.size(), r.size());
    case Kind::kMissingEnumSymbols:
      return "[" + JoinSymbols(MissingSymbols(r, w)) + "]";
    case Kind::kReaderFieldMissingDefaultValue:
      return inc.reader_field->name();
    case Kind::kTypeMismatch: {
      std::string out = "reader type: ";
      out += JavaTypeName(r.type());
      out += " not compatible with writer type: ";
      out += JavaTypeName(w.type());
      return out;
    }
    case Kind::kMissingUnionBranch: {
      std::string out = "reader union lacking writer type: ";
      out += JavaTypeName(inc.writer_branch != nullptr ? inc.writer_branch->type() : w.type());
      return out;
    }
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

uint64_t SaturatingAdd(uint64_t a, uint64_t b) {
  return a > std::numeric_limits<uint64_t>::max() - b ? std::numeric_limits<uint64_t>::max()
                                                      : a + b;
}

// Memory a check reuses from the previous check on the same thread, so that a small check
// allocates nothing but its result. Tables that grew large are freed instead of kept.
struct Scratch {
  static constexpr size_t kKeep = size_t{1} << 16;

  PairMemo memo;
  std::vector<RopeNode> rope;
  std::vector<RawIncompatibility> leaves;
  std::vector<Token> tokens;
  std::vector<Token> location;
  // Java's fresh location stacks, one per nesting level; a deque keeps them in place as it grows.
  std::deque<std::vector<Token>> fresh;
  // Run's walk over the result tree.
  std::vector<std::pair<uint32_t, size_t>> written;
  std::vector<uint32_t> stack;
  bool in_use = false;

  void Reset() {
    memo.Reset();
    Trim(rope);
    Trim(leaves);
    Trim(tokens);
    Trim(location);
    Trim(written);
    Trim(stack);
  }

  template <class T>
  static void Trim(std::vector<T>& v) {
    if (v.capacity() > kKeep) {
      v = std::vector<T>();
    } else {
      v.clear();
    }
  }
};

// The port of Java's ReaderWriterCompatibilityChecker. Methods return a result tree node; an
// error (Java's exceptions, or a bound of the options) is kept in error_ and unwinds the walk.
class Checker {
 public:
  Checker(const AvroCompatibilityOptions& options, Scratch& scratch, bool memoise_every_pair)
      : options_(options),
        memoise_every_pair_(memoise_every_pair),
        memo_(scratch.memo),
        rope_(scratch.rope),
        leaves_(scratch.leaves),
        tokens_(scratch.tokens),
        fresh_(scratch.fresh),
        written_(scratch.written),
        stack_(scratch.stack) {
    scratch.Reset();
    location_ = &scratch.location;
  }

  Result<AvroCompatibility> Run(const AvroNode& reader, const AvroNode& writer) {
    uint32_t result = Get(kRoot, reader, reader.id(), writer, writer.id(), *location_);
    if (error_.has_value()) return Fail(std::move(*error_));
    AvroCompatibility out;
    if (result == kCompatible) return out;
    out.compatible = false;
    out.incompatibility_count = rope_[result].count;
    out.incompatibilities.reserve(static_cast<size_t>(
        std::min<uint64_t>(out.incompatibility_count, options_.max_incompatibilities)));
    // A leaf reused through the memo is listed again; it is written once and copied after.
    std::vector<std::pair<uint32_t, size_t>>& written = written_;
    std::vector<uint32_t>& stack = stack_;
    written.clear();
    stack.assign(1, result);
    while (!stack.empty() && out.incompatibilities.size() < options_.max_incompatibilities) {
      const RopeNode& n = rope_[stack.back()];
      stack.pop_back();
      if (n.leaf == kCompatible) {
        stack.push_back(n.right);
        stack.push_back(n.left);
        continue;
      }
      auto seen = std::find_if(written.begin(), written.end(),
                               [&](const auto& e) { return e.first == n.leaf; });
      if (seen != written.end()) {
        AvroIncompatibility copy = out.incompatibilities[seen->second];
        out.incompatibilities.push_back(std::move(copy));
        continue;
      }
      if (written.size() < 64) written.emplace_back(n.leaf, out.incompatibilities.size());
      const RawIncompatibility& raw = leaves_[n.leaf];
      AvroIncompatibility inc;
      inc.kind = raw.kind;
      inc.location = Render(&tokens_[raw.location_begin], raw.location_size);
      inc.message = Message(raw);
      inc.reader = raw.reader;
      inc.writer = raw.writer;
      if (options_.explain) {
        inc.reader_type = Describe(*raw.reader);
        inc.writer_type = Describe(*raw.writer);
        inc.hint = Hint(raw);
      }
      out.incompatibilities.push_back(std::move(inc));
    }
    return out;
  }

 private:
  // Java's getCompatibility(referenceToken, reader, writer, location).
  uint32_t Get(Token token, const AvroNode& r, OccurrenceKey rk, const AvroNode& w,
               OccurrenceKey wk, std::vector<Token>& location) {
    if (error_.has_value()) return kCompatible;
    location.push_back(token);
    uint32_t result = kCompatible;
    // Only a pair with a named type on one side can be requested twice: every other node occurs
    // once, and its pair is requested only from its parents' pair, itself computed once. (Cycles
    // run through named types too.) So the memo, Java's on every pair, is consulted for those.
    const bool memoise = memoise_every_pair_ || r.is_named() || w.is_named();
    std::optional<uint32_t> memo = memoise ? memo_.Find(rk, wk) : std::nullopt;
    if (memo.has_value()) {
      // A pair still being computed is an ancestor of this one: compatible unless proven not.
      result = *memo == kInProgress ? kCompatible : *memo;
    } else if (++pairs_ > options_.max_pairs) {
      SetError(fmt::format("more than {} reader/writer type pairs to compare", options_.max_pairs),
               location);
    } else if (depth_ >= options_.max_depth) {
      SetError(fmt::format("schemas nest more than {} levels deep", options_.max_depth), location);
    } else {
      // A pair can meet itself again while it is being computed only if it descends: two
      // records, or a union against a named type. Leaves never see the in-progress mark.
      const bool recurses =
          memoise_every_pair_ ||
          (memoise && (r.is_union() || w.is_union() ||
                       (r.type() == AvroType::kRecord && w.type() == AvroType::kRecord)));
      if (recurses) memo_.Put(rk, wk, kInProgress);
      ++depth_;
      result = Calculate(r, rk, w, wk, location);
      --depth_;
      if (memoise) memo_.Put(rk, wk, result);
    }
    location.pop_back();
    return result;
  }

  // Java's public getCompatibility(reader, writer): a fresh location stack, the same memo.
  uint32_t GetFresh(const AvroNode& r, OccurrenceKey rk, const AvroNode& w, OccurrenceKey wk) {
    if (fresh_depth_ == fresh_.size()) fresh_.emplace_back();
    std::vector<Token>& location = fresh_[fresh_depth_++];
    location.clear();
    uint32_t result = Get(kRoot, r, rk, w, wk, location);
    --fresh_depth_;
    return result;
  }

  uint32_t Calculate(const AvroNode& r, OccurrenceKey rk, const AvroNode& w, OccurrenceKey wk,
                     std::vector<Token>& location) {
    if (r.type() == w.type()) {
      switch (r.type()) {
        case AvroType::kNull:
        case AvroType::kBoolean:
        case AvroType::kInt:
        case AvroType::kLong:
        case AvroType::kFloat:
        case AvroType::kDouble:
        case AvroType::kBytes:
        case AvroType::kString:
          return kCompatible;
        case AvroType::kArray:
          return Get(Token{"items"}, r.items(), ChildKey(r.items(), r, 0), w.items(),
                     ChildKey(w.items(), w, 0), location);
        case AvroType::kMap:
          return Get(Token{"values"}, r.values(), ChildKey(r.values(), r, 0), w.values(),
                     ChildKey(w.values(), w, 0), location);
        case AvroType::kFixed:
          return Merge(CheckNames(r, w, location), CheckFixedSize(r, w, location));
        case AvroType::kEnum:
          return Merge(CheckNames(r, w, location), CheckEnumSymbols(r, w, location));
        case AvroType::kRecord: {
          uint32_t names = CheckNames(r, w, location);
          return Merge(names, CheckFields(r, w, wk, location));
        }
        case AvroType::kUnion: {
          // Every writer branch must be readable by the reader union; Java checks each with a
          // fresh location and reports only the missing branch.
          uint32_t result = kCompatible;
          for (size_t i = 0; i < w.branches().size(); ++i) {
            const AvroNode& branch = *w.branches()[i];
            location.push_back(Token{nullptr, static_cast<uint32_t>(i)});
            uint32_t c = GetFresh(r, rk, branch, ChildKey(branch, w, i));
            if (error_.has_value()) return kCompatible;
            if (c != kCompatible) {
              RawIncompatibility inc = Make(Kind::kMissingUnionBranch, r, w, location);
              inc.writer_branch = &branch;
              result = Merge(result, Leaf(inc));
            }
            location.pop_back();
          }
          return result;
        }
      }
      return kCompatible;
    }

    // A reader that can read every branch of the writer's union can read the union.
    if (w.is_union()) {
      uint32_t result = kCompatible;
      for (size_t i = 0; i < w.branches().size(); ++i) {
        const AvroNode& branch = *w.branches()[i];
        result = Merge(result, Get(Token{nullptr, static_cast<uint32_t>(i)}, r, rk, branch,
                                   ChildKey(branch, w, i), location));
        if (error_.has_value()) return kCompatible;
      }
      return result;
    }

    switch (r.type()) {
      case AvroType::kLong:
        return w.type() == AvroType::kInt ? kCompatible : Mismatch(r, w, location);
      case AvroType::kFloat:
        return w.type() == AvroType::kInt || w.type() == AvroType::kLong ? kCompatible
                                                                         : Mismatch(r, w, location);
      case AvroType::kDouble:
        return w.type() == AvroType::kInt || w.type() == AvroType::kLong ||
                       w.type() == AvroType::kFloat
                   ? kCompatible
                   : Mismatch(r, w, location);
      case AvroType::kBytes:
        return w.type() == AvroType::kString ? kCompatible : Mismatch(r, w, location);
      case AvroType::kString:
        return w.type() == AvroType::kBytes ? kCompatible : Mismatch(r, w, location);
      case AvroType::kUnion: {
        // Some reader branch must read the writer's type; the first that does ends the search.
        // Branches that cannot (see Unreadable) are passed over without a comparison, and a wide
        // union finds the others through an index, so unions of many branches stay linear.
        auto try_branch = [&](size_t i) {
          const AvroNode& branch = *r.branches()[i];
          return GetFresh(branch, ChildKey(branch, r, i), w, wk);
        };
        // A copy: comparing a branch may come back to this union with another writer type.
        if (std::optional<std::vector<size_t>> candidates = Candidates(r, w)) {
          for (size_t i : *candidates) {
            uint32_t c = try_branch(i);
            if (error_.has_value()) return kCompatible;
            if (c == kCompatible) return kCompatible;
          }
          return Leaf(Make(Kind::kMissingUnionBranch, r, w, location));
        }
        for (size_t i = 0; i < r.branches().size(); ++i) {
          if (Unreadable(*r.branches()[i], w)) continue;
          uint32_t c = try_branch(i);
          if (error_.has_value()) return kCompatible;
          if (c == kCompatible) return kCompatible;
        }
        return Leaf(Make(Kind::kMissingUnionBranch, r, w, location));
      }
      case AvroType::kNull:
      case AvroType::kBoolean:
      case AvroType::kInt:
      case AvroType::kArray:
      case AvroType::kMap:
      case AvroType::kFixed:
      case AvroType::kEnum:
      case AvroType::kRecord:
        return Mismatch(r, w, location);
    }
    return Mismatch(r, w, location);
  }

  // Java's checkReaderWriterRecordFields.
  uint32_t CheckFields(const AvroNode& r, const AvroNode& w, OccurrenceKey wk,
                       std::vector<Token>& location) {
    uint32_t result = kCompatible;
    location.push_back(Token{"fields"});
    const std::vector<AvroField>& fields = r.fields();
    for (size_t i = 0; i < fields.size(); ++i) {
      const AvroField& rf = fields[i];
      location.push_back(Token{nullptr, static_cast<uint32_t>(i)});
      const AvroField* wf = LookupWriterField(w, rf, i, location);
      if (error_.has_value()) return kCompatible;
      if (wf == nullptr) {
        if (!rf.default_value().has_value()) {
          const AvroNode& type = rf.type();
          if (type.type() == AvroType::kEnum && type.enum_default().has_value()) {
            // Java compares the enum with the writer record itself, a certain TYPE_MISMATCH.
            const AvroField* outer = enum_default_field_;
            enum_default_field_ = &rf;
            result = Merge(result, Get(Token{"type"}, type, ChildKey(type, r, i), w, wk, location));
            enum_default_field_ = outer;
          } else {
            RawIncompatibility inc = Make(Kind::kReaderFieldMissingDefaultValue, r, w, location);
            inc.reader_field = &rf;
            result = Merge(result, Leaf(inc));
          }
        }
      } else {
        // The position from the address: position() sits on another cache line of the field.
        size_t wi = static_cast<size_t>(wf - w.fields().data());
        result = Merge(result, Get(Token{"type"}, rf.type(), ChildKey(rf.type(), r, i), wf->type(),
                                   ChildKey(wf->type(), w, wi), location));
      }
      if (error_.has_value()) return kCompatible;
      location.pop_back();
    }
    location.pop_back();
    return result;
  }

  // ---------------------------------------------------------------------------------------
  // Reader unions. Java tries every reader branch in order until one reads the writer's type.
  // A branch whose comparison is certain to fail, and whose comparison leaves nothing behind
  // that a later comparison could see differently, is passed over: the first branch that
  // reads the type is the same, and so is every remembered result. That holds for a branch of
  // another type that no promotion bridges (a type mismatch, no recursion), for an enum or fixed
  // of another name (no recursion), and for a record of another name when neither record holds a
  // record (their fields' comparisons cannot meet a comparison in progress). Java's literal memo
  // (memoise_every_pair_, for tests) compares every branch.

  // Whether Java's rules let a reader of type `reader` read a writer of type `writer` at all.
  static bool ReadsType(AvroType reader, AvroType writer) {
    if (reader == writer) return true;
    switch (reader) {
      case AvroType::kLong:
        return writer == AvroType::kInt;
      case AvroType::kFloat:
        return writer == AvroType::kInt || writer == AvroType::kLong;
      case AvroType::kDouble:
        return writer == AvroType::kInt || writer == AvroType::kLong || writer == AvroType::kFloat;
      case AvroType::kBytes:
        return writer == AvroType::kString;
      case AvroType::kString:
        return writer == AvroType::kBytes;
      case AvroType::kNull:
      case AvroType::kBoolean:
      case AvroType::kInt:
      case AvroType::kArray:
      case AvroType::kMap:
      case AvroType::kFixed:
      case AvroType::kEnum:
      case AvroType::kRecord:
      case AvroType::kUnion:
        return false;
    }
    return false;
  }

  // No record anywhere in `t` (t included). Memoised per node.
  bool RecordFree(const AvroNode& t) {
    auto [it, inserted] = record_free_.try_emplace(&t, false);
    if (!inserted) return it->second;
    bool free = true;
    switch (t.type()) {
      case AvroType::kRecord:
        free = false;
        break;
      case AvroType::kArray:
        free = RecordFree(t.items());
        break;
      case AvroType::kMap:
        free = RecordFree(t.values());
        break;
      case AvroType::kUnion:
        for (const AvroNode* b : t.branches()) free = free && RecordFree(*b);
        break;
      case AvroType::kNull:
      case AvroType::kBoolean:
      case AvroType::kInt:
      case AvroType::kLong:
      case AvroType::kFloat:
      case AvroType::kDouble:
      case AvroType::kBytes:
      case AvroType::kString:
      case AvroType::kFixed:
      case AvroType::kEnum:
        break;
    }
    record_free_[&t] = free;
    return free;
  }

  // A record none of whose fields holds a record.
  bool FlatRecord(const AvroNode& r) {
    if (r.type() != AvroType::kRecord) return false;
    auto [it, inserted] = flat_.try_emplace(&r, false);
    if (!inserted) return it->second;
    bool flat = true;
    for (const AvroField& f : r.fields()) flat = flat && RecordFree(f.type());
    flat_[&r] = flat;
    return flat;
  }

  // Whether reader branch `b` certainly cannot read `w`, and may be passed over (see above).
  bool Unreadable(const AvroNode& b, const AvroNode& w) {
    if (memoise_every_pair_) return false;
    if (!ReadsType(b.type(), w.type())) return true;
    if (b.type() != w.type() || !b.is_named() || AvroSchemaNameEquals(b, w)) return false;
    return b.type() != AvroType::kRecord || (FlatRecord(b) && FlatRecord(w));
  }

  // A wide reader union's branches by type and by name, so that the branches that might read a
  // writer type are found without a pass over all of them.
  struct UnionIndex {
    std::unordered_map<int, std::vector<size_t>> by_type;
    std::unordered_map<std::string_view, std::vector<size_t>> by_name;   // name()
    std::unordered_map<std::string_view, std::vector<size_t>> by_alias;  // aliases()
    bool records_flat = true;
  };

  // The positions, in order, of the branches of the wide reader union `r` that might read `w`:
  // every other branch is Unreadable. Nullopt when `r` is narrow (a pass over it is as cheap),
  // or when an other-named record branch might have to be compared.
  std::optional<std::vector<size_t>> Candidates(const AvroNode& r, const AvroNode& w) {
    if (memoise_every_pair_ || r.branches().size() <= 8) return std::nullopt;
    auto [it, inserted] = unions_.try_emplace(&r);
    UnionIndex& index = it->second;
    if (inserted) {
      for (size_t i = 0; i < r.branches().size(); ++i) {
        const AvroNode& b = *r.branches()[i];
        index.by_type[static_cast<int>(b.type())].push_back(i);
        if (!b.is_named()) continue;
        index.by_name[b.name()].push_back(i);
        for (const std::string& a : b.aliases()) index.by_alias[a].push_back(i);
        if (b.type() == AvroType::kRecord && !FlatRecord(b)) index.records_flat = false;
      }
    }
    std::vector<size_t> out;
    if (w.is_named()) {
      if (w.type() == AvroType::kRecord && !(index.records_flat && FlatRecord(w))) {
        return std::nullopt;
      }
      auto add = [&](const auto& map, std::string_view key) {
        auto found = map.find(key);
        if (found == map.end()) return;
        for (size_t i : found->second) {
          if (r.branches()[i]->type() == w.type()) out.push_back(i);
        }
      };
      add(index.by_name, w.name());
      add(index.by_alias, w.full_name());
    } else {
      for (const auto& [type, positions] : index.by_type) {
        if (!ReadsType(static_cast<AvroType>(type), w.type())) continue;
        out.insert(out.end(), positions.begin(), positions.end());
      }
    }
    std::sort(out.begin(), out.end());
    out.erase(std::unique(out.begin(), out.end()), out.end());
    return out;
  }

  // Java's lookupWriterField: the writer field named like the reader field or like one of its
  // aliases (a set in Java, so a repeated alias counts once); more than one match is an error.
  const AvroField* LookupWriterField(const AvroNode& w, const AvroField& rf, size_t position,
                                     const std::vector<Token>& location) {
    const AvroField* found = FindWriterField(w, rf.name(), position);
    const std::vector<std::string>& aliases = rf.aliases();
    if (aliases.empty()) return found;
    size_t matches = found != nullptr ? 1 : 0;
    std::string names = found != nullptr ? found->name() : std::string();
    std::unordered_set<std::string_view> seen;  // for many aliases; a few are scanned
    for (size_t a = 0; a < aliases.size(); ++a) {
      if (aliases.size() > 8) {
        if (!seen.insert(aliases[a]).second) continue;
      } else if (std::find(aliases.begin(), aliases.begin() + static_cast<std::ptrdiff_t>(a),
                           aliases[a]) != aliases.begin() + static_cast<std::ptrdiff_t>(a)) {
        continue;
      }
      const AvroField* by_alias = FindWriterField(w, aliases[a], position);
      if (by_alias == nullptr) continue;
      ++matches;
      if (found == nullptr) found = by_alias;
      names += (names.empty() ? "" : "`, `") + by_alias->name();
    }
    if (matches > 1) {
      SetError(fmt::format("reader record field `{}` matches multiple fields in writer record "
                           "schema {} (`{}`) through its name and aliases; Java's "
                           "SchemaCompatibility rejects such a pair",
                           rf.name(), w.full_name(), names),
               location);
      return nullptr;
    }
    return found;
  }

  const AvroField* FindWriterField(const AvroNode& w, std::string_view name, size_t hint) {
    const std::vector<AvroField>& fields = w.fields();
    // Evolved records mostly keep their fields in place.
    if (hint < fields.size() && fields[hint].name() == name) return &fields[hint];
    if (fields.size() <= 8) return w.FindField(name);
    if (index_owner_ != &w) {
      // References into an unordered_map stay valid when it grows.
      auto it = indexes_.find(&w);
      if (it == indexes_.end()) it = indexes_.emplace(&w, FieldIndex(w)).first;
      index_owner_ = &w;
      index_ = &it->second;
    }
    return index_->Find(name);
  }

  // Java's checkSchemaNames.
  uint32_t CheckNames(const AvroNode& r, const AvroNode& w, std::vector<Token>& location) {
    if (AvroSchemaNameEquals(r, w)) return kCompatible;
    location.push_back(Token{"name"});
    uint32_t result = Leaf(Make(Kind::kNameMismatch, r, w, location));
    location.pop_back();
    return result;
  }

  // Java's checkFixedSize.
  uint32_t CheckFixedSize(const AvroNode& r, const AvroNode& w, std::vector<Token>& location) {
    if (r.size() == w.size()) return kCompatible;
    location.push_back(Token{"size"});
    uint32_t result = Leaf(Make(Kind::kFixedSizeMismatch, r, w, location));
    location.pop_back();
    return result;
  }

  // Java's checkReaderEnumContainsAllWriterEnumSymbols: every writer symbol is a reader symbol,
  // unless the reader enum has a default (one of its own symbols, as Parse guarantees).
  uint32_t CheckEnumSymbols(const AvroNode& r, const AvroNode& w, std::vector<Token>& location) {
    if (WriterSymbolsNotInReader(r, w, /*first_only=*/true).empty()) return kCompatible;
    if (r.enum_default().has_value() &&
        std::find(r.symbols().begin(), r.symbols().end(), *r.enum_default()) != r.symbols().end()) {
      return kCompatible;
    }
    location.push_back(Token{"symbols"});
    uint32_t result = Leaf(Make(Kind::kMissingEnumSymbols, r, w, location));
    location.pop_back();
    return result;
  }

  // Java's typeMismatch.
  uint32_t Mismatch(const AvroNode& r, const AvroNode& w, const std::vector<Token>& location) {
    RawIncompatibility inc = Make(Kind::kTypeMismatch, r, w, location);
    if (r.type() == AvroType::kEnum && w.type() == AvroType::kRecord) {
      inc.reader_field = enum_default_field_;
    }
    return Leaf(inc);
  }

  RawIncompatibility Make(Kind kind, const AvroNode& r, const AvroNode& w,
                          const std::vector<Token>& location) {
    RawIncompatibility inc;
    inc.kind = kind;
    inc.reader = &r;
    inc.writer = &w;
    inc.location_begin = static_cast<uint32_t>(tokens_.size());
    inc.location_size = static_cast<uint32_t>(location.size());
    tokens_.insert(tokens_.end(), location.begin(), location.end());
    return inc;
  }

  // Java's Incompatibility.getLocation(): the stack without its root token, as a JSON pointer.
  // The tokens are fixed words and numbers, so there is nothing to escape.
  static std::string Render(const Token* tokens, size_t size) {
    std::string out;
    out.reserve(8 * size);
    out += '/';
    for (size_t i = 1; i < size; ++i) {
      if (i > 1) out += '/';
      if (tokens[i].word != nullptr) {
        out += tokens[i].word;
      } else {
        out += std::to_string(tokens[i].index);
      }
    }
    return out;
  }

  void SetError(std::string message, const std::vector<Token>& location) {
    if (!error_.has_value()) {
      error_.emplace(ErrorCode::kInvalidArgument,
                     fmt::format("{} (at {} of the reader schema)", message,
                                 Render(location.data(), location.size())));
    }
  }

  uint32_t Leaf(const RawIncompatibility& inc) {
    leaves_.push_back(inc);
    RopeNode node;
    node.leaf = static_cast<uint32_t>(leaves_.size() - 1);
    node.count = 1;
    rope_.push_back(node);
    return static_cast<uint32_t>(rope_.size() - 1);
  }

  // Java's mergedWith: a's incompatibilities, then b's.
  uint32_t Merge(uint32_t a, uint32_t b) {
    if (a == kCompatible) return b;
    if (b == kCompatible) return a;
    RopeNode node;
    node.left = a;
    node.right = b;
    node.count = SaturatingAdd(rope_[a].count, rope_[b].count);
    rope_.push_back(node);
    return static_cast<uint32_t>(rope_.size() - 1);
  }

  AvroCompatibilityOptions options_;
  // Java's literal memo, on every pair and with every in-progress mark (for tests).
  bool memoise_every_pair_ = false;
  PairMemo& memo_;
  std::vector<RopeNode>& rope_;
  std::vector<RawIncompatibility>& leaves_;
  std::vector<Token>& tokens_;
  std::deque<std::vector<Token>>& fresh_;
  std::vector<std::pair<uint32_t, size_t>>& written_;
  std::vector<uint32_t>& stack_;
  std::vector<Token>* location_ = nullptr;
  size_t fresh_depth_ = 0;
  std::optional<Error> error_;
  size_t depth_ = 0;
  size_t pairs_ = 0;
  // The reader field whose enum default sent Java to compare the enum with the writer record.
  const AvroField* enum_default_field_ = nullptr;
  std::unordered_map<const AvroNode*, FieldIndex> indexes_;
  std::unordered_map<const AvroNode*, bool> record_free_;
  std::unordered_map<const AvroNode*, bool> flat_;
  std::unordered_map<const AvroNode*, UnionIndex> unions_;
  const AvroNode* index_owner_ = nullptr;
  const FieldIndex* index_ = nullptr;
};

}  // namespace

namespace {

Result<AvroCompatibility> Check(const AvroNode& reader, const AvroNode& writer,
                                const AvroCompatibilityOptions& options, bool memoise_every_pair) {
  thread_local Scratch scratch;
  if (scratch.in_use) {
    // Not reached today (a check never starts another), but a private scratch keeps it correct.
    Scratch own;
    return Checker(options, own, memoise_every_pair).Run(reader, writer);
  }
  scratch.in_use = true;
  Result<AvroCompatibility> result =
      Checker(options, scratch, memoise_every_pair).Run(reader, writer);
  scratch.in_use = false;
  return result;
}

}  // namespace

Result<AvroCompatibility> CheckCompatibility(const AvroNode& reader, const AvroNode& writer,
                                             const AvroCompatibilityOptions& options) {
  return Check(reader, writer, options, false);
}

namespace internal {

Result<AvroCompatibility> CheckCompatibilityMemoisingEveryPair(
    const AvroNode& reader, const AvroNode& writer, const AvroCompatibilityOptions& options) {
  return Check(reader, writer, options, true);
}

}  // namespace internal

Result<AvroCompatibility> CheckCompatibility(const AvroSchema& reader, const AvroSchema& writer,
                                             const AvroCompatibilityOptions& options) {
  return CheckCompatibility(reader.root(), writer.root(), options);
}

}  // namespace sluice::dialects::avro
