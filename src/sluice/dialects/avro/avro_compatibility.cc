#include "sluice/dialects/avro/avro_compatibility.h"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <functional>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include "sluice/dialects/avro/avro_compat_internal.h"
#include "sluice/dialects/avro/avro_compat_memo.h"
#include "sluice/dialects/avro/avro_compat_report.h"
#include "sluice/dialects/avro/avro_layout.h"

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

// Java memoises on Schema object identity. Its parser makes a new Schema for every occurrence of
// a primitive, while sluice shares one node per primitive type, so a primitive is identified by
// where it occurs (its parent and slot); every other node is already one per occurrence (unions,
// arrays, maps) or one per definition (named types), as in Java. Parents are never primitives,
// and node ids stay below 2^32 (an arena that large would not fit in memory), so the two forms
// cannot collide.
using OccurrenceKey = uint64_t;

using internal::AvroLayout;
using internal::LayoutField;
using internal::LayoutNode;

// The key of node `child` (packed as `node`) found at `slot` of node `parent`.
OccurrenceKey ChildKey(const LayoutNode& node, uint32_t child, uint32_t parent, size_t slot) {
  if (!node.is_primitive()) return child;
  return ((static_cast<uint64_t>(parent) + 1) << 32) | (slot & 0xffffffffu);
}

// A result is a node of a shared tree of incompatibilities (memoised results are reused by
// reference, as Java reuses its result objects); kCompatible is the empty list.
using internal::Describe;
using internal::Hint;
using internal::kCompatible;
using internal::kInProgress;
using internal::Message;
using internal::PairMemo;
using internal::RawIncompatibility;
using internal::WriterSymbolsNotInReader;

struct RopeNode {
  uint32_t left = kCompatible;
  uint32_t right = kCompatible;
  uint32_t leaf = kCompatible;
  uint64_t count = 0;
};

// One entry of Java's location stack: a fixed word, or a field position or branch index.
struct Token {
  // A word, spelled as a literal: Token::Word("items").
  template <size_t N>
  static constexpr Token Word(const char (&word)[N]) {
    return Token{word, 0, N - 1};
  }
  static constexpr Token Index(uint32_t index) { return Token{nullptr, index, 0}; }

  const char* word = nullptr;
  uint32_t index = 0;
  uint32_t size = 0;  // of word
};
constexpr Token kRoot = Token::Word("");

// Java's location stack, kept on the call stack: each step of the walk that adds a token holds
// a frame naming its token and the frame before it. Nothing is pushed or popped per pair; the
// tokens are collected only for an incompatibility or an error.
struct Where {
  Where(Token t, const Where* outer) : token(t), parent(outer) {}

  // The tokens from the root to this frame, appended to `out`; returns how many.
  uint32_t AppendTo(std::vector<Token>& out) const {
    uint32_t n = 0;
    for (const Where* step = this; step != nullptr; step = step->parent) ++n;
    out.resize(out.size() + n);
    Token* at = out.data() + out.size();
    for (const Where* step = this; step != nullptr; step = step->parent) *--at = step->token;
    return n;
  }
  Token token;
  const Where* parent;
};

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
  // Run's walk over the result tree.
  std::vector<std::pair<uint32_t, size_t>> written;
  std::vector<uint32_t> stack;
  bool in_use = false;

  void Reset() {
    memo.Reset();
    Trim(rope);
    Trim(leaves);
    Trim(tokens);
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
  Checker(const AvroCompatibilityOptions& options, Scratch& scratch, bool memoise_every_pair,
          const AvroLayout& reader, const AvroLayout& writer)
      : options_(options),
        memoise_every_pair_(memoise_every_pair),
        rl_(reader),
        wl_(writer),
        rnodes_(reader.nodes.data()),
        wnodes_(writer.nodes.data()),
        rfields_(reader.fields.data()),
        wfields_(writer.fields.data()),
        rbranches_(reader.branches.data()),
        wbranches_(writer.branches.data()),
        memo_(scratch.memo),
        rope_(scratch.rope),
        leaves_(scratch.leaves),
        tokens_(scratch.tokens),
        written_(scratch.written),
        stack_(scratch.stack) {
    scratch.Reset();
  }

  // Reader node `reader` of the reader layout against writer node `writer` of the writer's.
  Result<AvroCompatibility> Run(uint32_t reader, uint32_t writer) {
    uint32_t result = Get(kRoot, reader, reader, writer, writer, nullptr);
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
      // Built from its parts: emplace_back() would value-initialise (zero) it first.
      AvroIncompatibility& inc = out.incompatibilities.emplace_back(AvroIncompatibility{
          .kind = raw.kind,
          .location = Render(&tokens_[raw.location_begin], raw.location_size),
          .message = Message(raw),
          .reader = raw.reader,
          .writer = raw.writer,
      });
      if (options_.explain) {
        inc.reader_type = Describe(*raw.reader);
        inc.writer_type = Describe(*raw.writer);
        inc.hint = Hint(raw);
      }
    }
    return out;
  }

 private:
  // Nodes are node ids: `r` and reader-side names index the reader's layout, `w` the writer's.
  const LayoutNode& R(uint32_t r) const { return rnodes_[r]; }
  const LayoutNode& W(uint32_t w) const { return wnodes_[w]; }
  const AvroNode& RSource(uint32_t r) const { return *rl_.sources[r]; }
  const AvroNode& WSource(uint32_t w) const { return *wl_.sources[w]; }
  uint32_t RBranch(const LayoutNode& r, size_t i) const { return rbranches_[r.first + i]; }
  uint32_t WBranch(const LayoutNode& w, size_t i) const { return wbranches_[w.first + i]; }

  // Java's getCompatibility(referenceToken, reader, writer, location).
  uint32_t Get(Token token, uint32_t r, OccurrenceKey rk, uint32_t w, OccurrenceKey wk,
               const Where* outer) {
    if (error_.has_value()) return kCompatible;
    const Where here(token, outer);
    uint32_t result = kCompatible;
    const LayoutNode& rn = R(r);
    const LayoutNode& wn = W(w);
    // Only a pair with a named type on one side can be requested twice: every other node occurs
    // once, and its pair is requested only from its parents' pair, itself computed once. (Cycles
    // run through named types too.) So the memo, Java's on every pair, is consulted for those.
    // A pair is claimed (marked in progress) when first met. A pair can meet itself again while
    // it is being computed only if it descends: two records, or a union against a named type;
    // other pairs never see their mark.
    const bool memoise = memoise_every_pair_ || rn.is_named() || wn.is_named();
    PairMemo::Claim claim = memoise ? memo_.FindOrClaim(rk, wk) : PairMemo::Claim{};
    if (claim.found) {
      // A pair still being computed is an ancestor of this one: compatible unless proven not.
      result = claim.value == kInProgress ? kCompatible : claim.value;
    } else if (++pairs_ > options_.max_pairs) {
      SetError(fmt::format("more than {} reader/writer type pairs to compare", options_.max_pairs),
               &here);
    } else if (depth_ >= options_.max_depth) {
      SetError(fmt::format("schemas nest more than {} levels deep", options_.max_depth), &here);
    } else {
      ++depth_;
      result = Calculate(r, rk, w, wk, &here);
      --depth_;
      if (memoise) memo_.Settle(claim, rk, wk, result);
    }
    return result;
  }

  // Java's public getCompatibility(reader, writer): a fresh location stack, the same memo.
  uint32_t GetFresh(uint32_t r, OccurrenceKey rk, uint32_t w, OccurrenceKey wk) {
    return Get(kRoot, r, rk, w, wk, nullptr);
  }

  uint32_t Calculate(uint32_t r, OccurrenceKey rk, uint32_t w, OccurrenceKey wk, const Where* at) {
    const LayoutNode& rn = R(r);
    const LayoutNode& wn = W(w);
    if (rn.type == wn.type) return CalculateSameType(r, rk, w, wk, at);
    // A reader that can read every branch of the writer's union can read the union.
    if (wn.is_union()) {
      uint32_t result = kCompatible;
      for (size_t i = 0; i < wn.count; ++i) {
        uint32_t branch = WBranch(wn, i);
        if (PrimitiveReads(r, branch)) continue;
        result = Merge(result, Get(Token::Index(static_cast<uint32_t>(i)), r, rk, branch,
                                   ChildKey(W(branch), branch, w, i), at));
        if (error_.has_value()) return kCompatible;
      }
      return result;
    }
    if (rn.is_union()) return ReaderUnion(r, w, wk, at);
    return ReadsType(rn.type, wn.type) ? kCompatible : Mismatch(r, w, at);
  }

  uint32_t CalculateSameType(uint32_t r, OccurrenceKey rk, uint32_t w, OccurrenceKey wk,
                             const Where* at) {
    const LayoutNode& rn = R(r);
    const LayoutNode& wn = W(w);
    switch (rn.type) {
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
        return Get(Token::Word("items"), rn.first, ChildKey(R(rn.first), rn.first, r, 0), wn.first,
                   ChildKey(W(wn.first), wn.first, w, 0), at);
      case AvroType::kMap:
        return Get(Token::Word("values"), rn.first, ChildKey(R(rn.first), rn.first, r, 0), wn.first,
                   ChildKey(W(wn.first), wn.first, w, 0), at);
      case AvroType::kFixed:
        return Merge(CheckNames(r, w, at), CheckFixedSize(r, w, at));
      case AvroType::kEnum:
        return Merge(CheckNames(r, w, at), CheckEnumSymbols(r, w, at));
      case AvroType::kRecord: {
        uint32_t names = CheckNames(r, w, at);
        return Merge(names, CheckFields(r, w, wk, at));
      }
      case AvroType::kUnion: {
        // Every writer branch must be readable by the reader union; Java checks each with a
        // fresh location and reports only the missing branch.
        uint32_t result = kCompatible;
        for (size_t i = 0; i < wn.count; ++i) {
          uint32_t branch = WBranch(wn, i);
          if (UnionReadsPrimitive(r, branch)) continue;
          const Where branch_at(Token::Index(static_cast<uint32_t>(i)), at);
          uint32_t c = GetFresh(r, rk, branch, ChildKey(W(branch), branch, w, i));
          if (error_.has_value()) return kCompatible;
          if (c != kCompatible) {
            RawIncompatibility inc = Make(Kind::kMissingUnionBranch, r, w, &branch_at);
            inc.writer_branch = &WSource(branch);
            inc.branch_type = W(branch).type;
            result = Merge(result, Leaf(inc));
          }
        }
        return result;
      }
    }
    return kCompatible;
  }

  // A reader union and a writer of another type: some reader branch must read the writer's
  // type; the first that does ends the search. Branches that cannot (see Unreadable) are passed
  // over without a comparison, and a wide union finds the others through an index, so unions of
  // many branches stay linear.
  uint32_t ReaderUnion(uint32_t r, uint32_t w, OccurrenceKey wk, const Where* at) {
    const LayoutNode& rn = R(r);
    auto try_branch = [&](size_t i) {
      uint32_t branch = RBranch(rn, i);
      if (PrimitiveReads(branch, w)) return kCompatible;
      return GetFresh(branch, ChildKey(R(branch), branch, r, i), w, wk);
    };
    // A copy: comparing a branch may come back to this union with another writer type.
    if (std::optional<std::vector<size_t>> candidates = Candidates(r, w)) {
      for (size_t i : *candidates) {
        uint32_t c = try_branch(i);
        if (error_.has_value()) return kCompatible;
        if (c == kCompatible) return kCompatible;
      }
      return Leaf(Make(Kind::kMissingUnionBranch, r, w, at));
    }
    for (size_t i = 0; i < rn.count; ++i) {
      if (Unreadable(RBranch(rn, i), w)) continue;
      uint32_t c = try_branch(i);
      if (error_.has_value()) return kCompatible;
      if (c == kCompatible) return kCompatible;
    }
    return Leaf(Make(Kind::kMissingUnionBranch, r, w, at));
  }

  // Whether primitive `r` reads primitive `w`, as Get would find, without its bookkeeping (the
  // location, the memo, a call per pair): most pairs of evolved records are such. The pair still
  // counts towards max_pairs; a pair Get would fail on, or report, is left to Get.
  bool PrimitiveReads(uint32_t r, uint32_t w) {
    const LayoutNode& rn = R(r);
    const LayoutNode& wn = W(w);
    if (memoise_every_pair_ || !rn.is_primitive() || !wn.is_primitive() ||
        !ReadsType(rn.type, wn.type) || pairs_ >= options_.max_pairs ||
        depth_ >= options_.max_depth) {
      return false;
    }
    ++pairs_;
    return true;
  }

  // Whether reader union `r` reads primitive `w` through one of its primitive branches, as Get
  // would find (ReaderUnion, where the first branch that reads `w` ends the search), counting
  // the same two pairs. When no branch does, or at the bounds, Get decides and reports.
  bool UnionReadsPrimitive(uint32_t r, uint32_t w) {
    const LayoutNode& rn = R(r);
    const LayoutNode& wn = W(w);
    if (memoise_every_pair_ || !rn.is_union() || !wn.is_primitive() || rn.count > 8 ||
        pairs_ + 2 > options_.max_pairs || depth_ + 1 >= options_.max_depth) {
      return false;
    }
    for (uint32_t i = 0; i < rn.count; ++i) {
      if (ReadsType(R(RBranch(rn, i)).type, wn.type)) {
        pairs_ += 2;
        return true;
      }
    }
    return false;
  }

  // Java's checkReaderWriterRecordFields.
  uint32_t CheckFields(uint32_t r, uint32_t w, OccurrenceKey wk, const Where* at) {
    uint32_t result = kCompatible;
    const Where fields_at(Token::Word("fields"), at);
    const LayoutNode& rn = R(r);
    const LayoutNode& wn = W(w);
    for (uint32_t i = 0; i < rn.count; ++i) {
      const LayoutField& rf = rfields_[rn.first + i];
      const Where field_at(Token::Index(i), &fields_at);
      int64_t wi = LookupWriterField(w, r, i, &field_at);
      if (error_.has_value()) return kCompatible;
      if (wi >= 0) {
        uint32_t wtype = wfields_[wn.first + static_cast<size_t>(wi)].type;
        if (PrimitiveReads(rf.type, wtype)) continue;
        result = Merge(result,
                       Get(Token::Word("type"), rf.type, ChildKey(R(rf.type), rf.type, r, i), wtype,
                           ChildKey(W(wtype), wtype, w, static_cast<size_t>(wi)), &field_at));
      } else if (!rf.has(LayoutField::kHasDefault)) {
        const AvroField& field = *rl_.field_sources[rn.first + i];
        if (rf.has(LayoutField::kEnumWithDefault)) {
          // Java compares the enum with the writer record itself, a certain TYPE_MISMATCH.
          const AvroField* outer = enum_default_field_;
          enum_default_field_ = &field;
          result = Merge(result, Get(Token::Word("type"), rf.type,
                                     ChildKey(R(rf.type), rf.type, r, i), w, wk, &field_at));
          enum_default_field_ = outer;
        } else {
          RawIncompatibility inc = Make(Kind::kReaderFieldMissingDefaultValue, r, w, &field_at);
          inc.reader_field = &field;
          inc.field_name = rl_.Text(rf.name);
          result = Merge(result, Leaf(inc));
        }
      }
      if (error_.has_value()) return kCompatible;
    }
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

  // Whether reader branch `b` certainly cannot read `w`, and may be passed over (see above).
  bool Unreadable(uint32_t b, uint32_t w) {
    if (memoise_every_pair_) return false;
    const LayoutNode& bn = R(b);
    const LayoutNode& wn = W(w);
    if (!ReadsType(bn.type, wn.type)) return true;
    if (bn.type != wn.type || !bn.is_named() || NameEquals(b, w)) return false;
    return bn.type != AvroType::kRecord ||
           (bn.has(LayoutNode::kFlatRecord) && wn.has(LayoutNode::kFlatRecord));
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
  std::optional<std::vector<size_t>> Candidates(uint32_t r, uint32_t w) {
    const LayoutNode& rn = R(r);
    const LayoutNode& wn = W(w);
    if (memoise_every_pair_ || rn.count <= 8) return std::nullopt;
    if (unions_ == nullptr) unions_ = std::make_unique<std::unordered_map<uint32_t, UnionIndex>>();
    auto [it, inserted] = unions_->try_emplace(r);
    UnionIndex& index = it->second;
    if (inserted) {
      for (size_t i = 0; i < rn.count; ++i) {
        const LayoutNode& b = R(RBranch(rn, i));
        index.by_type[static_cast<int>(b.type)].push_back(i);
        if (!b.is_named()) continue;
        index.by_name[rl_.Text(b.name)].push_back(i);
        for (const internal::LayoutName& a : rl_.NodeAliases(RBranch(rn, i)))
          index.by_alias[rl_.Text(a)].push_back(i);
        if (b.type == AvroType::kRecord && !b.has(LayoutNode::kFlatRecord)) {
          index.records_flat = false;
        }
      }
    }
    std::vector<size_t> out;
    if (wn.is_named()) {
      if (wn.type == AvroType::kRecord &&
          !(index.records_flat && wn.has(LayoutNode::kFlatRecord))) {
        return std::nullopt;
      }
      auto add = [&](const auto& map, std::string_view key) {
        auto found = map.find(key);
        if (found == map.end()) return;
        for (size_t i : found->second) {
          if (R(RBranch(rn, i)).type == wn.type) out.push_back(i);
        }
      };
      add(index.by_name, wl_.Text(wn.name));
      add(index.by_alias, wl_.Text(wl_.FullName(w)));
    } else {
      for (const auto& [type, positions] : index.by_type) {
        if (!ReadsType(static_cast<AvroType>(type), wn.type)) continue;
        out.insert(out.end(), positions.begin(), positions.end());
      }
    }
    std::sort(out.begin(), out.end());
    out.erase(std::unique(out.begin(), out.end()), out.end());
    return out;
  }

  // Java's lookupWriterField for field `position` of reader record `r`: the position of the
  // writer field named like it or like one of its aliases (a set in Java, so a repeated alias
  // counts once), or -1; more than one match is an error.
  int64_t LookupWriterField(uint32_t w, uint32_t r, uint32_t position, const Where* at) {
    const LayoutField& rf = rfields_[R(r).first + position];
    int64_t found = FindWriterField(w, rl_.Text(rf.name), rf.name.hash, position);
    if (!rf.has(LayoutField::kHasAliases)) return found;
    return LookupWriterFieldByAliases(w, r, position, found, at);
  }

  // The rest of LookupWriterField for a reader field with aliases, out of line: few fields have
  // them. `found` is the writer field of the reader field's own name, or -1.
  [[gnu::noinline]] int64_t LookupWriterFieldByAliases(uint32_t w, uint32_t r, uint32_t position,
                                                       int64_t found, const Where* at) {
    const LayoutField& rf = rfields_[R(r).first + position];
    const LayoutNode& wn = W(w);
    auto writer_field = [&](int64_t i) {
      return wl_.Text(wfields_[wn.first + static_cast<size_t>(i)].name);
    };
    std::span<const internal::LayoutName> aliases = rl_.FieldAliases(R(r).first + position);
    size_t matches = found >= 0 ? 1 : 0;
    std::string names = found >= 0 ? std::string(writer_field(found)) : std::string();
    std::unordered_set<std::string_view> seen;  // for many aliases; a few are scanned
    for (size_t a = 0; a < aliases.size(); ++a) {
      if (aliases.size() > 8) {
        if (!seen.insert(rl_.Text(aliases[a])).second) continue;
      } else if (std::any_of(aliases.begin(), aliases.begin() + static_cast<std::ptrdiff_t>(a),
                             [&](const internal::LayoutName& before) {
                               return rl_.SameName(before, rl_, aliases[a]);
                             })) {
        continue;
      }
      int64_t by_alias = FindWriterField(w, rl_.Text(aliases[a]), aliases[a].hash, position);
      if (by_alias < 0) continue;
      ++matches;
      if (found < 0) found = by_alias;
      if (!names.empty()) names += "`, `";
      names += writer_field(by_alias);
    }
    if (matches > 1) {
      SetError(fmt::format("reader record field `{}` matches multiple fields in writer record "
                           "schema {} (`{}`) through its name and aliases; Java's "
                           "SchemaCompatibility rejects such a pair",
                           rl_.Text(rf.name), wl_.Text(wl_.FullName(w)), names),
               at);
      return -1;
    }
    return found;
  }

  int64_t FindWriterField(uint32_t w, std::string_view name, uint64_t hash, uint32_t hint) {
    const LayoutNode& wn = W(w);
    // Evolved records mostly keep their fields in place.
    if (hint < wn.count && wl_.IsName(wfields_[wn.first + hint].name, name, hash)) return hint;
    return wl_.FindField(wn, name, hash);
  }

  // Java's schemaNameEquals (AvroSchemaNameEquals), from the packed names first.
  bool NameEquals(uint32_t r, uint32_t w) const {
    const LayoutNode& rn = R(r);
    if (rl_.SameName(rn.name, wl_, W(w).name)) return true;
    return rn.has(LayoutNode::kHasAliases) && ReaderAliasNamesWriter(r, w);
  }

  // Whether an alias of reader node `r` is the full name of writer node `w`.
  [[gnu::noinline]] bool ReaderAliasNamesWriter(uint32_t r, uint32_t w) const {
    const internal::LayoutName& full = wl_.FullName(w);
    for (const internal::LayoutName& alias : rl_.NodeAliases(r)) {
      if (rl_.SameName(alias, wl_, full)) return true;
    }
    return false;
  }

  // Java's checkSchemaNames.
  uint32_t CheckNames(uint32_t r, uint32_t w, const Where* at) {
    if (NameEquals(r, w)) return kCompatible;
    const Where name_at(Token::Word("name"), at);
    return Leaf(Make(Kind::kNameMismatch, r, w, &name_at));
  }

  // Java's checkFixedSize.
  uint32_t CheckFixedSize(uint32_t r, uint32_t w, const Where* at) {
    if (RSource(r).size() == WSource(w).size()) return kCompatible;
    const Where size_at(Token::Word("size"), at);
    return Leaf(Make(Kind::kFixedSizeMismatch, r, w, &size_at));
  }

  // Java's checkReaderEnumContainsAllWriterEnumSymbols: every writer symbol is a reader symbol,
  // unless the reader enum has a default (one of its own symbols, as Parse guarantees).
  uint32_t CheckEnumSymbols(uint32_t r, uint32_t w, const Where* at) {
    if (R(r).has(LayoutNode::kEnumDefault) || ReaderHasWriterSymbols(r, w)) return kCompatible;
    const Where symbols_at(Token::Word("symbols"), at);
    return Leaf(Make(Kind::kMissingEnumSymbols, r, w, &symbols_at));
  }

  // Whether every writer symbol is a reader symbol. Symbols mostly stay in place, so the packed
  // names are compared position by position; from the first that differs, the sets decide.
  bool ReaderHasWriterSymbols(uint32_t r, uint32_t w) const {
    const LayoutNode& rn = R(r);
    const LayoutNode& wn = W(w);
    for (uint32_t i = 0; i < wn.count; ++i) {
      if (i < rn.count && rl_.SameName(rl_.symbols[rn.first + i], wl_, wl_.symbols[wn.first + i])) {
        continue;
      }
      return WriterSymbolsNotInReader(RSource(r), WSource(w), /*first_only=*/true).empty();
    }
    return true;
  }

  // Java's typeMismatch.
  uint32_t Mismatch(uint32_t r, uint32_t w, const Where* at) {
    RawIncompatibility inc = Make(Kind::kTypeMismatch, r, w, at);
    if (R(r).type == AvroType::kEnum && W(w).type == AvroType::kRecord) {
      inc.reader_field = enum_default_field_;
    }
    return Leaf(inc);
  }

  RawIncompatibility Make(Kind kind, uint32_t r, uint32_t w, const Where* at) {
    RawIncompatibility inc;
    inc.kind = kind;
    inc.reader = &RSource(r);
    inc.writer = &WSource(w);
    inc.reader_type = R(r).type;
    inc.writer_type = W(w).type;
    inc.location_begin = static_cast<uint32_t>(tokens_.size());
    inc.location_size = at->AppendTo(tokens_);
    return inc;
  }

  // Java's Incompatibility.getLocation(): the stack without its root token, as a JSON pointer.
  // The tokens are fixed words and numbers, so there is nothing to escape.
  // Written through a buffer on the stack, so that a short pointer costs no allocation.
  static std::string Render(const Token* tokens, size_t size) {
    std::string out;
    char buffer[160];
    size_t used = 0;
    auto put = [&](std::string_view part) {
      if (used + part.size() > sizeof(buffer)) {
        out.append(buffer, used);
        used = 0;
      }
      if (part.size() > sizeof(buffer)) {
        out.append(part);
        return;
      }
      // Words and numbers are short: a loop, not a call.
      for (char c : part) buffer[used++] = c;
    };
    put("/");
    for (size_t i = 1; i < size; ++i) {
      if (i > 1) put("/");
      if (tokens[i].word != nullptr) {
        put(std::string_view(tokens[i].word, tokens[i].size));
      } else {
        char digits[16];
        auto [end, ec] = std::to_chars(digits, digits + sizeof(digits), tokens[i].index);
        put(std::string_view(digits, static_cast<size_t>(end - digits)));
      }
    }
    out.append(buffer, used);
    return out;
  }

  void SetError(std::string message, const Where* at) {
    if (!error_.has_value()) {
      std::vector<Token> tokens;
      at->AppendTo(tokens);
      error_.emplace(ErrorCode::kInvalidArgument,
                     fmt::format("{} (at {} of the reader schema)", message,
                                 Render(tokens.data(), tokens.size())));
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
  const AvroLayout& rl_;
  const AvroLayout& wl_;
  // The layouts' arrays the walk reads most, one load away.
  const LayoutNode* rnodes_;
  const LayoutNode* wnodes_;
  const LayoutField* rfields_;
  const LayoutField* wfields_;
  const uint32_t* rbranches_;
  const uint32_t* wbranches_;
  PairMemo& memo_;
  std::vector<RopeNode>& rope_;
  std::vector<RawIncompatibility>& leaves_;
  std::vector<Token>& tokens_;
  std::vector<std::pair<uint32_t, size_t>>& written_;
  std::vector<uint32_t>& stack_;
  std::optional<Error> error_;
  size_t depth_ = 0;
  size_t pairs_ = 0;
  // The reader field whose enum default sent Java to compare the enum with the writer record.
  const AvroField* enum_default_field_ = nullptr;
  // Built for the first wide reader union a check meets; most checks meet none.
  std::unique_ptr<std::unordered_map<uint32_t, UnionIndex>> unions_;
};

Unexpected<Error> TooLarge() {
  return InvalidArgument("a schema whose names add up to 4 GiB or more cannot be compared");
}

// Node `r` of layout `rl` reads node `w` of layout `wl`.
Result<AvroCompatibility> Check(const AvroLayout& rl, uint32_t r, const AvroLayout& wl, uint32_t w,
                                const AvroCompatibilityOptions& options, bool memoise_every_pair) {
  thread_local Scratch scratch;
  if (scratch.in_use) {
    // Not reached today (a check never starts another), but a private scratch keeps it correct.
    Scratch own;
    return Checker(options, own, memoise_every_pair, rl, wl).Run(r, w);
  }
  scratch.in_use = true;
  Result<AvroCompatibility> result =
      Checker(options, scratch, memoise_every_pair, rl, wl).Run(r, w);
  scratch.in_use = false;
  return result;
}

Result<AvroCompatibility> Check(const AvroNode& reader, const AvroNode& writer,
                                const AvroCompatibilityOptions& options, bool memoise_every_pair) {
  const AvroLayout* rl = internal::LayoutOf(reader);
  const AvroLayout* wl = internal::LayoutOf(writer);
  if (rl == nullptr || wl == nullptr) return TooLarge();
  return Check(*rl, static_cast<uint32_t>(reader.id()), *wl, static_cast<uint32_t>(writer.id()),
               options, memoise_every_pair);
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

// From the schemas' layouts, without reading their root nodes.
Result<AvroCompatibility> CheckCompatibility(const AvroSchema& reader, const AvroSchema& writer,
                                             const AvroCompatibilityOptions& options) {
  const AvroLayout* rl = internal::LayoutOf(reader);
  const AvroLayout* wl = internal::LayoutOf(writer);
  if (rl == nullptr || wl == nullptr) return TooLarge();
  return Check(*rl, rl->root, *wl, wl->root, options, false);
}

}  // namespace sluice::dialects::avro
