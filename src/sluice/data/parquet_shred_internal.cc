#include "sluice/data/parquet_shred_internal.h"

#include <simdjson.h>

#include <charconv>
#include <cstring>

#if defined(__AVX2__)
#include <immintrin.h>
#endif

#include "sluice/base/powers_of_ten.h"
#include "sluice/base/strings.h"
#include "sluice/data/json_text_internal.h"
#include "sluice/data/parquet_values_internal.h"

namespace sluice::data::internal {

using parquet::SchemaNode;

// The walk of one line: a JSON scanner over the line and the node tree at the same time.
struct LineShredder::Walk {
  using Node = ParquetRecordPlan::Node;

  const std::vector<SchemaNode>* snodes = nullptr;
  const std::vector<Node>* pnodes = nullptr;
  parquet::ColumnWriter* cols = nullptr;  // the record's columns, one writer per leaf
  const char* p = nullptr;                // the scanner's position in the line
  const char* begin = nullptr;            // the line
  const char* end = nullptr;
  std::string key_scratch;                 // an escaped key, resolved
  std::string text_scratch;                // an escaped string value, resolved
  std::string scratch;                     // decoded bytes of one value
  std::vector<std::vector<uint8_t>> seen;  // per depth: which fields of a struct were seen
  int64_t line = 0;

  const Node& P(const SchemaNode& n) const {
    return (*pnodes)[static_cast<size_t>(&n - snodes->data())];
  }
  const SchemaNode& Child(const SchemaNode& n, int32_t k) const {
    return (*snodes)[static_cast<size_t>(n.first_child + k)];
  }

  Unexpected<Error> Bad(const SchemaNode& n, std::string_view what) const {
    const std::string& path = P(n).path;
    return InvalidArgument("line " + std::to_string(line) + (path.empty() ? "" : ": " + path) +
                           ": " + std::string(what));
  }
  // Malformed JSON at the scanner's position.
  Unexpected<Error> Json(const SchemaNode& n, std::string_view what) const {
    return Bad(n, "malformed JSON at byte " + std::to_string(p - begin) + ": " + std::string(what));
  }
  Unexpected<Error> Unconvertible(const SchemaNode& n, std::string_view text,
                                  std::string_view why) const {
    return Fail(ErrorCode::kInternal,
                "line " + std::to_string(line) + ": " + P(n).path + ": cannot write " +
                    EscapeForMessage(text, 60) + " as " + n.type->ToString() +
                    (why.empty() ? "" : ": " + std::string(why)) + " (the validator accepted it)");
  }

  Status Shred(std::string_view text, int64_t line_number, parquet::ColumnWriter* columns) {
    line = line_number;
    cols = columns;
    begin = p = text.data();
    end = text.data() + text.size();
    const SchemaNode& root = snodes->front();
    if (!simdjson::validate_utf8(text.data(), text.size())) {
      p = begin + FindInvalidUtf8(text);
      return Json(root, "invalid UTF-8");
    }
    p = SkipJsonSpace(p, end);
    if (p == end || *p != '{') return Json(root, "a record must be an object");
    ++p;
    SLUICE_TRY(Struct(root, 0, 0));
    p = SkipJsonSpace(p, end);
    if (p != end) return Json(root, "text after the record");
    return Ok();
  }

  // A record from its tape: each entry's value appended as the validator read it, or
  // converted from its text (in the record's text or the output line), with the level the
  // validator noted; the line's structure is not read again.
  Status ShredTaped(std::string_view text, std::string_view input,
                    std::span<const TapeEntry> entries, int64_t line_number,
                    parquet::ColumnWriter* columns) {
    line = line_number;
    cols = columns;
    begin = text.data();
    const SchemaNode* const nodes = snodes->data();
    const Node* const leaves = pnodes->data();
    const size_t num_nodes = snodes->size();
    for (const TapeEntry& e : entries) {
      if (e.node >= num_nodes) return OutsideTheLine();
      const SchemaNode& n = nodes[e.node];
      // The common entries, appended here: a string's text, a long, a date's or timestamp's
      // stored value, a decimal's unscaled long. Anything else, and every check that fails,
      // takes the general way below.
      if (n.kind == SchemaNode::Kind::kLeaf) {
        const LeafKind leaf = leaves[e.node].leaf;
        parquet::ColumnWriter& col = cols[n.leaf];
        if (e.op == TapeOp::kText && leaf == LeafKind::kString) {
          const std::string_view base = e.in_record ? input : text;
          if (e.begin <= base.size() && e.size <= base.size() - e.begin) {
            col.AppendBytes(std::string_view(base.data() + e.begin, e.size), e.rep);
            continue;
          }
        } else if (e.op == TapeOp::kInt && leaf == LeafKind::kInt64) {
          col.AppendInt64(e.value(), e.rep);
          continue;
        } else if (e.op == TapeOp::kStored &&
                   (leaf == LeafKind::kTimestamp || leaf == LeafKind::kTimestampNtz)) {
          col.AppendInt64(e.value(), e.rep);
          continue;
        } else if (e.op == TapeOp::kDecimal && leaf == LeafKind::kDecimalInt64 &&
                   UnscaledFits(e.value(), leaves[e.node].precision)) {
          col.AppendInt64(e.value(), e.rep);
          continue;
        }
      }
      // The operations that carry one value need a leaf to put it in.
      const bool one_value = e.op == TapeOp::kText || e.op == TapeOp::kInt ||
                             e.op == TapeOp::kDecimal || e.op == TapeOp::kStored ||
                             e.op == TapeOp::kBool;
      if (one_value && n.kind != SchemaNode::Kind::kLeaf) {
        return Bad(n, "a single value in a place that holds a group");
      }
      switch (e.op) {
        case TapeOp::kText: {
          const std::string_view base = e.in_record ? input : text;
          if (e.begin > base.size() || e.size > base.size() - e.begin) return OutsideTheLine();
          SLUICE_TRY(LeafText(n, base.substr(e.begin, e.size), e.rep, /*is_key=*/false));
          break;
        }
        case TapeOp::kInt:
          SLUICE_TRY(LeafInteger(n, e.value(), e.rep));
          break;
        case TapeOp::kDecimal:
          SLUICE_TRY(LeafUnscaled(n, e.value(), e.rep));
          break;
        case TapeOp::kStored:
          SLUICE_TRY(LeafStored(n, e.value(), e.rep));
          break;
        case TapeOp::kBool:
          if (P(n).leaf != LeafKind::kBoolean) return Bad(n, "a boolean does not fit");
          cols[n.leaf].AppendBool(e.value() != 0, e.rep);
          break;
        case TapeOp::kNull:
          SLUICE_TRY(Null(n, e.rep));
          break;
        case TapeOp::kEmpty:
          if (n.kind != SchemaNode::Kind::kList && n.kind != SchemaNode::Kind::kMap) {
            return Bad(n, "an empty array or map in a place that holds neither");
          }
          Empty(n, e.rep);
          break;
        case TapeOp::kValue:
        case TapeOp::kKey:
          if (e.in_record || e.begin > text.size() || e.size > text.size() - e.begin) {
            return OutsideTheLine();
          }
          SLUICE_TRY(TapedText(n, e, text));
          break;
      }
    }
    return Ok();
  }

  Unexpected<Error> OutsideTheLine() const {
    return Fail(ErrorCode::kInternal,
                "line " + std::to_string(line) + ": a tape entry outside the line or the schema");
  }

  // An entry whose span is JSON of the output line: a value, or a map key.
  Status TapedText(const SchemaNode& n, const TapeEntry& e, std::string_view text) {
    // The scanner may look as far as the line's end (its string search reads 32 bytes at a
    // time), and must stop where the entry does.
    p = text.data() + e.begin;
    end = text.data() + text.size();
    if (e.op == TapeOp::kValue) {
      SLUICE_TRY(Value(n, e.rep, 0));
      if (SkipJsonSpace(p, end) != text.data() + e.begin + e.size) {
        return Json(n, "the value does not end where the tape says");
      }
      return Ok();
    }
    if (n.kind != SchemaNode::Kind::kLeaf) return Bad(n, "map keys must be atomic");
    if (!Expect('"')) return Json(n, "expected a key");
    SLUICE_ASSIGN_OR_RETURN(std::string_view key, String(n, key_scratch));
    return LeafText(n, key, e.rep, /*is_key=*/true);
  }

  // Past whitespace, then `c`.
  bool Expect(char c) {
    p = SkipJsonSpace(p, end);
    if (p == end || *p != c) return false;
    ++p;
    return true;
  }

  // The first '"', '\\' or control character at or after `q`, or `end`; 32 bytes at a time
  // while 32 remain (the line is read where it lies, without padding).
  static const char* FindQuoteOrEscape(const char* q, const char* end) {
#if defined(__AVX2__)
    const __m256i quote = _mm256_set1_epi8('"');
    const __m256i backslash = _mm256_set1_epi8('\\');
    const __m256i control_max = _mm256_set1_epi8(0x1F);
    while (end - q >= 32) {
      const __m256i v = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(q));
      __m256i m = _mm256_or_si256(_mm256_cmpeq_epi8(v, quote), _mm256_cmpeq_epi8(v, backslash));
      m = _mm256_or_si256(m, _mm256_cmpeq_epi8(_mm256_min_epu8(v, control_max), v));
      const uint32_t mask = static_cast<uint32_t>(_mm256_movemask_epi8(m));
      if (mask != 0) return q + __builtin_ctz(mask);
      q += 32;
    }
#endif
    for (; q < end; ++q) {
      const unsigned char c = static_cast<unsigned char>(*q);
      if (c == '"' || c == '\\' || c < 0x20) return q;
    }
    return end;
  }

  // The string whose opening quote is at p - 1: its content as written, and whether it holds
  // escapes (each checked). p ends past the closing quote.
  Status ScanString(const SchemaNode& n, std::string_view* raw, bool* escaped) {
    const char* start = p;
    *escaped = false;
    while (true) {
      p = FindQuoteOrEscape(p, end);
      if (p == end) return Json(n, "unterminated string");
      const char c = *p;
      if (c == '"') break;
      if (c == '\\') {
        size_t length = 0;
        if (CheckJsonEscape(p, end, &length) != JsonEscape::kValid) {
          return Json(n, "invalid escape in a string");
        }
        *escaped = true;
        p += length;
        continue;
      }
      return Json(n, "control character in a string");
    }
    *raw = std::string_view(start, static_cast<size_t>(p - start));
    ++p;
    return Ok();
  }

  // A string's content with its escapes resolved (in `into` when it has any).
  Result<std::string_view> String(const SchemaNode& n, std::string& into) {
    std::string_view raw;
    bool escaped = false;
    SLUICE_TRY(ScanString(n, &raw, &escaped));
    if (!escaped) return raw;
    UnescapeJsonString(raw, into);
    return std::string_view(into);
  }

  // Whether the key at p (past its opening quote) is, as written, the name of child `k` (the
  // one after the last key seen, as records usually come in schema order): compared in place.
  bool KeyIs(const SchemaNode& n, int32_t k) const {
    if (k >= n.num_children) return false;
    const Node& c = P(Child(n, k));
    if (c.short_name && end - p >= 16) {
      uint64_t w[2];
      std::memcpy(w, p, 16);
      return (((w[0] ^ c.key_words[0]) & c.key_masks[0]) |
              ((w[1] ^ c.key_words[1]) & c.key_masks[1])) == 0;
    }
    if (!c.plain_name) return false;
    const size_t size = c.name.size();
    return static_cast<size_t>(end - p) > size && std::memcmp(p, c.name.data(), size) == 0 &&
           p[size] == '"';
  }

  int32_t FindChild(const SchemaNode& n, std::string_view key, int32_t hint) const {
    if (hint < n.num_children && P(Child(n, hint)).name == key) return hint;
    const Node& pn = P(n);
    if (!pn.by_name.empty()) {
      auto it = pn.by_name.find(key);
      return it == pn.by_name.end() ? -1 : static_cast<int32_t>(it->second);
    }
    for (int32_t k = 0; k < n.num_children; ++k) {
      if (P(Child(n, k)).name == key) return k;
    }
    return -1;
  }

  // Past the ',' between members or items (true), or the closing `close` (false, and *done).
  Status Next(const SchemaNode& n, char close, bool* done) {
    p = SkipJsonSpace(p, end);
    if (p != end && *p == ',') {
      ++p;
      *done = false;
      return Ok();
    }
    if (p != end && *p == close) {
      ++p;
      *done = true;
      return Ok();
    }
    return Json(n, close == '}' ? "expected ',' or '}'" : "expected ',' or ']'");
  }

  // The members of an object whose '{' was read.
  Status Struct(const SchemaNode& n, int16_t rep, size_t depth) {
    // Which fields were seen: bits for up to 64 fields, bytes for wider structs.
    uint64_t bits = 0;
    std::vector<uint8_t>* wide = nullptr;
    if (n.num_children > 64) {
      if (seen.size() <= depth) seen.resize(depth + 1);
      seen[depth].assign(static_cast<size_t>(n.num_children), 0);
      wide = &seen[depth];
    }
    auto was_seen = [&](int32_t k) -> bool {
      return wide ? (*wide)[static_cast<size_t>(k)] != 0 : ((bits >> k) & 1) != 0;
    };
    p = SkipJsonSpace(p, end);
    bool done = p != end && *p == '}';
    if (done) ++p;
    int32_t hint = 0;
    while (!done) {
      if (!Expect('"')) return Json(n, "expected a key");
      int32_t k = hint;
      if (KeyIs(n, hint)) {
        p += P(Child(n, hint)).name.size() + 1;
      } else {
        SLUICE_ASSIGN_OR_RETURN(std::string_view key, String(n, key_scratch));
        k = FindChild(n, key, hint);
        if (k < 0) {
          return Bad(n, "`" + EscapeForMessage(key, 60) + "` is not a field of the schema");
        }
      }
      if (was_seen(k)) return Bad(Child(n, k), "the key appears twice in one object");
      if (wide) {
        (*wide)[static_cast<size_t>(k)] = 1;
      } else {
        bits |= uint64_t{1} << k;
      }
      hint = k + 1;
      if (!Expect(':')) return Json(n, "expected ':'");
      SLUICE_TRY(Value(Child(n, k), rep, depth + 1));
      SLUICE_TRY(Next(n, '}', &done));
    }
    for (int32_t k = 0; k < n.num_children; ++k) {
      if (!was_seen(k)) SLUICE_TRY(Null(Child(n, k), rep));
    }
    return Ok();
  }

  // A null (or absent) value at `n`: each leaf below it stops at n's parent's level.
  Status Null(const SchemaNode& n, int16_t rep) {
    if (n.kind == SchemaNode::Kind::kAbsent) return Ok();
    if (!n.nullable) return Bad(n, "null in a place that cannot be null");
    const int16_t def = static_cast<int16_t>(n.def_level - 1);
    for (int32_t l = n.first_leaf; l < n.first_leaf + n.num_leaves; ++l)
      cols[l].AppendNull(def, rep);
    return Ok();
  }

  // An empty list or map: present, without entries.
  void Empty(const SchemaNode& n, int16_t rep) {
    for (int32_t l = n.first_leaf; l < n.first_leaf + n.num_leaves; ++l) {
      cols[l].AppendNull(n.def_level, rep);
    }
  }

  // The literal `word` at p.
  bool Literal(std::string_view word) {
    if (static_cast<size_t>(end - p) < word.size() ||
        std::memcmp(p, word.data(), word.size()) != 0) {
      return false;
    }
    p += word.size();
    return p == end || kJsonDelimiter[static_cast<unsigned char>(*p)];
  }

  // The number token at p, checked against JSON's grammar.
  Result<std::string_view> Number(const SchemaNode& n) {
    const char* token_end = FindTokenEnd(p, end);
    const std::string_view token(p, static_cast<size_t>(token_end - p));
    if (NumberShape(token) == 0) return Json(n, "invalid number");
    p = token_end;
    return token;
  }

  // Skip a value of any shape where the schema stores nothing (a null-typed field), checking
  // its syntax; `depth` bounds the nesting.
  Status Skip(const SchemaNode& n, size_t depth) {
    if (depth > 1000) return Json(n, "nested too deeply");
    p = SkipJsonSpace(p, end);
    if (p == end) return Json(n, "expected a value");
    switch (*p) {
      case '"': {
        ++p;
        std::string_view raw;
        bool escaped = false;
        return ScanString(n, &raw, &escaped);
      }
      case '{':
      case '[': {
        const char close = *p == '{' ? '}' : ']';
        ++p;
        p = SkipJsonSpace(p, end);
        if (p != end && *p == close) {
          ++p;
          return Ok();
        }
        bool done = false;
        while (!done) {
          if (close == '}') {
            if (!Expect('"')) return Json(n, "expected a key");
            std::string_view raw;
            bool escaped = false;
            SLUICE_TRY(ScanString(n, &raw, &escaped));
            if (!Expect(':')) return Json(n, "expected ':'");
          }
          SLUICE_TRY(Skip(n, depth + 1));
          SLUICE_TRY(Next(n, close, &done));
        }
        return Ok();
      }
      case 't':
        return Literal("true") ? Ok() : Json(n, "invalid literal");
      case 'f':
        return Literal("false") ? Ok() : Json(n, "invalid literal");
      case 'n':
        return Literal("null") ? Ok() : Json(n, "invalid literal");
      default: {
        SLUICE_ASSIGN_OR_RETURN(std::string_view token, Number(n));
        (void)token;
        return Ok();
      }
    }
  }

  Status Value(const SchemaNode& n, int16_t rep, size_t depth) {
    p = SkipJsonSpace(p, end);
    if (p == end) return Json(n, "expected a value");
    if (n.kind == SchemaNode::Kind::kAbsent) return Skip(n, depth);  // null-typed: not stored
    if (*p == 'n') {
      if (!Literal("null")) return Json(n, "invalid literal");
      return Null(n, rep);
    }
    switch (n.kind) {
      case SchemaNode::Kind::kLeaf:
        return Leaf(n, rep);
      case SchemaNode::Kind::kStruct:
        if (*p != '{') return SkipThenBad(n, depth, "expected an object");
        ++p;
        return Struct(n, rep, depth);
      case SchemaNode::Kind::kList:
        if (*p != '[') return SkipThenBad(n, depth, "expected an array");
        ++p;
        return List(n, rep, depth);
      case SchemaNode::Kind::kMap:
        if (*p != '{') return SkipThenBad(n, depth, "expected an object");
        ++p;
        return Map(n, rep, depth);
      case SchemaNode::Kind::kAbsent:
        break;
    }
    return Ok();
  }

  // A value of the wrong shape: malformed JSON is reported as such, a well-formed one as `what`.
  Status SkipThenBad(const SchemaNode& n, size_t depth, std::string_view what) {
    SLUICE_TRY(Skip(n, depth));
    return Bad(n, what);
  }

  Status List(const SchemaNode& n, int16_t rep, size_t depth) {
    const SchemaNode& element = Child(n, 0);
    p = SkipJsonSpace(p, end);
    if (p != end && *p == ']') {
      ++p;
      Empty(n, rep);
      return Ok();
    }
    int16_t r = rep;
    bool done = false;
    while (!done) {
      SLUICE_TRY(Value(element, r, depth));
      r = static_cast<int16_t>(n.rep_level + 1);
      SLUICE_TRY(Next(n, ']', &done));
    }
    return Ok();
  }

  Status Map(const SchemaNode& n, int16_t rep, size_t depth) {
    const SchemaNode& key_node = Child(n, 0);
    const SchemaNode& value_node = Child(n, 1);
    if (key_node.kind != SchemaNode::Kind::kLeaf) return Bad(n, "map keys must be atomic");
    p = SkipJsonSpace(p, end);
    if (p != end && *p == '}') {
      ++p;
      Empty(n, rep);
      return Ok();
    }
    int16_t r = rep;
    bool done = false;
    while (!done) {
      if (!Expect('"')) return Json(n, "expected a key");
      SLUICE_ASSIGN_OR_RETURN(std::string_view key, String(n, key_scratch));
      SLUICE_TRY(LeafText(key_node, key, r, /*is_key=*/true));
      if (!Expect(':')) return Json(n, "expected ':'");
      SLUICE_TRY(Value(value_node, r, depth));
      r = static_cast<int16_t>(n.rep_level + 1);
      SLUICE_TRY(Next(n, '}', &done));
    }
    return Ok();
  }

  // A leaf's value at p (not null).
  Status Leaf(const SchemaNode& n, int16_t rep) {
    switch (*p) {
      case '"': {
        ++p;
        SLUICE_ASSIGN_OR_RETURN(std::string_view s, String(n, text_scratch));
        return LeafText(n, s, rep, /*is_key=*/false);
      }
      case 't':
      case 'f': {
        const bool b = *p == 't';
        if (!Literal(b ? "true" : "false")) return Json(n, "invalid literal");
        if (P(n).leaf != LeafKind::kBoolean) return Bad(n, "a boolean does not fit");
        cols[n.leaf].AppendBool(b, rep);
        return Ok();
      }
      case '{':
      case '[':
        return SkipThenBad(n, 0, "expected a single value, not an object or array");
      default: {
        SLUICE_ASSIGN_OR_RETURN(std::string_view token, Number(n));
        return LeafNumber(n, token, rep);
      }
    }
  }
  Status LeafNumber(const SchemaNode& n, std::string_view token, int16_t rep) {
    const Node& p = P(n);
    parquet::ColumnWriter& col = cols[n.leaf];
    switch (p.leaf) {
      case LeafKind::kInt32:
      case LeafKind::kInt64:
      case LeafKind::kTimestamp: {
        int64_t v = 0;
        auto [end, ec] = std::from_chars(token.data(), token.data() + token.size(), v);
        if (ec != std::errc() || end != token.data() + token.size()) {
          return Unconvertible(n, token, "not an integer in range");
        }
        return LeafInteger(n, v, rep);
      }
      case LeafKind::kFloat:
      case LeafKind::kDouble:
      case LeafKind::kDecimalInt32:
      case LeafKind::kDecimalInt64:
      case LeafKind::kDecimalBytes:
        return LeafText(n, token, rep, /*is_key=*/false);
      case LeafKind::kString:
        // Spark keeps a number read into a string column as its text.
        col.AppendBytes(token, rep);
        return Ok();
      case LeafKind::kNone:
      case LeafKind::kBoolean:
      case LeafKind::kBinary:
      case LeafKind::kDate:
      case LeafKind::kTimestampNtz:
      case LeafKind::kTimeInt32:
      case LeafKind::kTimeInt64:
      case LeafKind::kUuid:
        break;
    }
    return Bad(n, "a number does not fit");
  }

  // An integer for an integer leaf (range-checked), or a timestamp's seconds since the epoch.
  Status LeafInteger(const SchemaNode& n, int64_t v, int16_t rep) {
    const Node& p = P(n);
    parquet::ColumnWriter& col = cols[n.leaf];
    if (p.leaf == LeafKind::kInt64) {
      col.AppendInt64(v, rep);
      return Ok();
    }
    if (p.leaf == LeafKind::kInt32) {
      if (v < p.min || v > p.max) return Unconvertible(n, std::to_string(v), "out of range");
      col.AppendInt32(static_cast<int32_t>(v), rep);
      return Ok();
    }
    if (p.leaf == LeafKind::kTimestamp) {
      int64_t t = 0;
      if (!TimestampFromSeconds(v, p.unit, &t)) {
        return Unconvertible(n, std::to_string(v), "out of range");
      }
      col.AppendInt64(t, rep);
      return Ok();
    }
    return Bad(n, "an integer does not fit");
  }

  // A date's days or a timestamp in its leaf's unit, as the validator converted it.
  Status LeafStored(const SchemaNode& n, int64_t v, int16_t rep) {
    parquet::ColumnWriter& col = cols[n.leaf];
    const LeafKind kind = P(n).leaf;
    if (kind == LeafKind::kDate) {
      if (v < INT32_MIN || v > INT32_MAX) return Unconvertible(n, std::to_string(v), "");
      col.AppendInt32(static_cast<int32_t>(v), rep);
      return Ok();
    }
    if (kind == LeafKind::kTimestamp || kind == LeafKind::kTimestampNtz) {
      col.AppendInt64(v, rep);
      return Ok();
    }
    return Bad(n, "a date or timestamp does not fit");
  }

  // Whether an unscaled value has at most `precision` (at most 18) digits.
  static bool UnscaledFits(int64_t v, int precision) {
    const uint64_t magnitude = v < 0 ? 0 - static_cast<uint64_t>(v) : static_cast<uint64_t>(v);
    return precision <= 18 && magnitude < kPowersOfTen[static_cast<size_t>(precision)];
  }

  // A decimal's unscaled value (at most 18 digits, checked again) for a decimal leaf.
  Status LeafUnscaled(const SchemaNode& n, int64_t v, int16_t rep) {
    const Node& p = P(n);
    parquet::ColumnWriter& col = cols[n.leaf];
    if (!UnscaledFits(v, p.precision)) {
      return Unconvertible(n, std::to_string(v), "not a decimal of that precision");
    }
    if (p.leaf == LeafKind::kDecimalInt32) {
      col.AppendInt32(static_cast<int32_t>(v), rep);
    } else if (p.leaf == LeafKind::kDecimalInt64) {
      col.AppendInt64(v, rep);
    } else if (p.leaf == LeafKind::kDecimalBytes) {
      char bytes[16];
      DecimalToBytes(v, p.width, bytes);
      col.AppendBytes(std::string_view(bytes, std::min(static_cast<size_t>(p.width), sizeof bytes)),
                      rep);  // a decimal is at most 16 bytes
    } else {
      return Bad(n, "a decimal does not fit");
    }
    return Ok();
  }

  // A value given as text: a JSON string's content, a number token of a float or decimal, or a
  // map key (`is_key`: keys of any type are strings in JSON).
  Status LeafText(const SchemaNode& n, std::string_view s, int16_t rep, bool is_key) {
    const Node& p = P(n);
    parquet::ColumnWriter& col = cols[n.leaf];
    switch (p.leaf) {
      case LeafKind::kString:
        col.AppendBytes(s, rep);
        return Ok();
      case LeafKind::kFloat: {
        float f = 0;
        if (!FloatFromText(s, &f)) return Unconvertible(n, s, "");
        col.AppendFloat(f, rep);
        return Ok();
      }
      case LeafKind::kDouble: {
        double d = 0;
        if (!DoubleFromText(s, &d)) return Unconvertible(n, s, "");
        col.AppendDouble(d, rep);
        return Ok();
      }
      case LeafKind::kDecimalInt32:
      case LeafKind::kDecimalInt64:
      case LeafKind::kDecimalBytes: {
        Int128 v = 0;
        if (!DecimalFromText(s, p.precision, p.scale, &v)) {
          return Unconvertible(n, s, "not a decimal of that precision");
        }
        if (p.leaf == LeafKind::kDecimalInt32) {
          col.AppendInt32(static_cast<int32_t>(v), rep);
        } else if (p.leaf == LeafKind::kDecimalInt64) {
          col.AppendInt64(static_cast<int64_t>(v), rep);
        } else {
          char bytes[16];
          DecimalToBytes(v, p.width, bytes);
          col.AppendBytes(
              std::string_view(bytes, std::min(static_cast<size_t>(p.width), sizeof bytes)),
              rep);  // a decimal is at most 16 bytes
        }
        return Ok();
      }
      case LeafKind::kBinary:
        if (!Base64FromText(s, scratch)) return Unconvertible(n, s, "not base64");
        col.AppendBytes(scratch, rep);
        return Ok();
      case LeafKind::kDate: {
        int32_t days = 0;
        if (!DateFromText(s, &days)) return Unconvertible(n, s, "");
        col.AppendInt32(days, rep);
        return Ok();
      }
      case LeafKind::kTimestamp:
      case LeafKind::kTimestampNtz: {
        int64_t t = 0;
        const char* why = "";
        if (!TimestampFromText(s, p.unit, p.leaf == LeafKind::kTimestampNtz, &t, &why)) {
          return Unconvertible(n, s, why);
        }
        col.AppendInt64(t, rep);
        return Ok();
      }
      case LeafKind::kTimeInt32:
      case LeafKind::kTimeInt64: {
        int64_t t = 0;
        if (!TimeFromText(s, p.unit, &t)) return Unconvertible(n, s, "");
        if (p.leaf == LeafKind::kTimeInt32) {
          col.AppendInt32(static_cast<int32_t>(t), rep);
        } else {
          col.AppendInt64(t, rep);
        }
        return Ok();
      }
      case LeafKind::kUuid: {
        char bytes[16];
        if (!UuidFromText(s, bytes)) return Unconvertible(n, s, "");
        col.AppendBytes(std::string_view(bytes, 16), rep);
        return Ok();
      }
      case LeafKind::kBoolean:
        if (is_key && (s == "true" || s == "false")) {
          col.AppendBool(s == "true", rep);
          return Ok();
        }
        break;
      case LeafKind::kInt32:
      case LeafKind::kInt64:
        if (is_key) return LeafNumber(n, s, rep);
        break;
      case LeafKind::kNone:
        break;
    }
    return Bad(n, "a string does not fit");
  }
};

LineShredder::LineShredder(const ParquetRecordPlan& plan) : walk_(std::make_unique<Walk>()) {
  walk_->snodes = &plan.parquet_schema().nodes();
  walk_->pnodes = &plan.nodes();
}
LineShredder::~LineShredder() = default;
LineShredder::LineShredder(LineShredder&&) noexcept = default;
LineShredder& LineShredder::operator=(LineShredder&&) noexcept = default;

Status LineShredder::Shred(std::string_view line, int64_t line_number,
                           parquet::ColumnWriter* columns) {
  return walk_->Shred(line, line_number, columns);
}

Status LineShredder::ShredTaped(std::string_view line, std::string_view input,
                                std::span<const TapeEntry> entries, int64_t line_number,
                                parquet::ColumnWriter* columns) {
  return walk_->ShredTaped(line, input, entries, line_number, columns);
}

}  // namespace sluice::data::internal
