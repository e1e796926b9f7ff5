#include "sluice/parquet/record_assembler.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstring>

#include "sluice/parquet/row_screen.h"
#include "sluice/parquet/worker_pool_internal.h"

namespace sluice::parquet {
namespace {

// Rows assembled per batch: enough to amortise the per-batch work over every leaf, small enough
// that the buffered levels and text of a wide schema stay a few megabytes.
constexpr size_t kBatchRows = 4096;
// Level entries a repeated leaf decodes per call while filling a batch.
constexpr size_t kRepeatedEntriesPerRead = 8192;

}  // namespace

Status ValidatePlan(const AssemblyPlan& plan) {
  if (plan.nodes.empty() || plan.nodes[0].kind != AssemblyNode::Kind::kStruct) {
    return Internal("assembly plan without a root struct");
  }
  for (size_t i = 0; i < plan.nodes.size(); ++i) {
    const AssemblyNode& n = plan.nodes[i];
    const bool absent = n.kind == AssemblyNode::Kind::kAbsent;
    if (n.leaf_begin > n.leaf_end || (n.leaf_begin == n.leaf_end) != absent ||
        n.leaf_end > plan.leaf_columns.size()) {
      return Internal(
          fmt::format("assembly node {}: leaf range [{}, {})", i, n.leaf_begin, n.leaf_end));
    }
    uint32_t next_leaf = n.leaf_begin;
    for (uint32_t c : n.children) {
      if (c <= i || c >= plan.nodes.size()) {
        return Internal(fmt::format("assembly node {}: child {}", i, c));
      }
      const AssemblyNode& child = plan.nodes[c];
      if (child.leaf_begin != next_leaf || child.def < n.def) {
        return Internal(fmt::format("assembly node {}: child {} out of order", i, c));
      }
      next_leaf = child.leaf_end;
    }
    switch (n.kind) {
      case AssemblyNode::Kind::kLeaf:
        if (!n.children.empty() || n.leaf_end != n.leaf_begin + 1) {
          return Internal(fmt::format("assembly node {}: a leaf with children", i));
        }
        break;
      case AssemblyNode::Kind::kAbsent:
        if (!n.children.empty()) {
          return Internal(fmt::format("assembly node {}: an absent node with children", i));
        }
        break;
      case AssemblyNode::Kind::kStruct:
        if (n.children.empty() || next_leaf != n.leaf_end) {
          return Internal(fmt::format("assembly node {}: struct leaves", i));
        }
        break;
      case AssemblyNode::Kind::kList:
      case AssemblyNode::Kind::kMap:
        if (n.children.empty() || n.children.size() > 2 || next_leaf != n.leaf_end || n.rep <= 0) {
          return Internal(fmt::format("assembly node {}: list or map shape", i));
        }
        for (uint32_t c : n.children) {
          if (plan.nodes[c].def <= n.def) {
            return Internal(fmt::format("assembly node {}: element levels", i));
          }
        }
        break;
    }
  }
  return Ok();
}

RecordAssembler::RecordAssembler(const AssemblyPlan& plan, std::vector<ColumnChunkReader*> readers,
                                 std::string context, int threads)
    : plan_(plan),
      readers_(std::move(readers)),
      context_(std::move(context)),
      cursors_(readers_.size()) {
  const int useful = static_cast<int>(std::min<size_t>(readers_.size(), 64));
  if (threads > 1 && useful > 1) {
    pool_ = std::make_unique<internal::WorkerPool>(std::min(threads, useful));
  }
  is_flat_ = true;
  for (uint32_t i : plan_.nodes[0].children) {
    const AssemblyNode& n = plan_.nodes[i];
    const bool absent = n.kind == AssemblyNode::Kind::kAbsent;
    if (!absent &&
        (n.kind != AssemblyNode::Kind::kLeaf || readers_[n.leaf_begin]->leaf().max_rep != 0)) {
      is_flat_ = false;
    }
    flat_.push_back({n.key, n.def, n.null_def, n.leaf_begin, absent, &n});
    const bool flat_leaf =
        n.kind == AssemblyNode::Kind::kLeaf && readers_[n.leaf_begin]->leaf().max_rep == 0;
    (flat_leaf ? flat_leaves_ : nested_fields_).push_back(i);
  }
}

void RecordAssembler::Grow(size_t n) {
  const size_t size = std::max(used_ + n, std::max<size_t>(out_.size() * 2, 1 << 16));
  // The bytes past used_ are overwritten before they are read.
  out_.resize_and_overwrite(size, [](char*, size_t m) { return m; });
}

bool RecordAssembler::WriteFlatBatch(size_t batch) {
  // The batch's text is at most: per row '{', '}' and '\n'; per field a comma, its key, and
  // "null" or its value; so one allocation and no checks while writing.
  size_t bound = batch * 3;
  for (const FlatField& f : flat_) {
    bound += batch * (f.key.size() + 5);
    if (f.absent) continue;
    const Cursor& c = cursors_[f.leaf];
    const size_t vend = std::min(c.vend, c.vpos + batch);
    for (size_t v = c.vpos; v < vend; ++v) bound += c.values[v].size;
  }
  bool ok = true;
  out_.resize_and_overwrite(bound, [&](char* buf, size_t) {
    char* p = buf;
    for (size_t r = 0; r < batch && ok; ++r) {
      row_failed_ = false;
      *p++ = '{';
      for (size_t k = 0; k < flat_.size(); ++k) {
        const FlatField& f = flat_[k];
        if (k > 0) *p++ = ',';
        p = CopyBytes(p, f.key.data(), f.key.size());
        if (f.absent) {
          p = CopyBytes(p, "null", 4);
          continue;
        }
        Cursor& c = cursors_[f.leaf];
        if (c.pos == c.end) {
          ok = OutOfLevels(f.leaf);
          break;
        }
        const int16_t d = c.def[c.pos++];
        if (d == f.def) {
          if (c.vpos == c.vend) {
            ok = OutOfValues(f.leaf);
            break;
          }
          const ValueRef& v = c.values[c.vpos++];
          if (f.node->screen.check != ScreenCheck::kNone) ScreenValue(*f.node, v);
          p = CopyBytes(p, v.data, v.size);
        } else if (d == f.null_def) {
          ScreenNull(*f.node);
          p = CopyBytes(p, "null", 4);
        } else {
          ok = BadDefinition(*f.node, d);
          break;
        }
      }
      *p++ = '}';
      *p++ = '\n';
      if (row_failed_) failed_.push_back(static_cast<uint32_t>(r));
      ++row_;
    }
    return static_cast<size_t>(p - buf);
  });
  return ok;
}

bool RecordAssembler::Mismatch(uint32_t leaf, std::string what) {
  error_ = Error(ErrorCode::kInvalidArgument, fmt::format("{}: column {}: row {}: {}", context_,
                                                          readers_[leaf]->leaf().path, row_, what));
  return false;
}

void RecordAssembler::ScreenValue(const AssemblyNode& n, const ValueRef& v) {
  if (!PassesScreen(n.screen.check, n.screen.arg, v.data, v.size)) row_failed_ = true;
}

bool RecordAssembler::Peek(const AssemblyNode& n, int16_t* def) {
  const Cursor& c = cursors_[n.leaf_begin];
  if (c.pos == c.end) return OutOfLevels(n.leaf_begin);
  *def = c.def[c.pos];
  return true;
}

bool RecordAssembler::TakeNull(const AssemblyNode& n, int16_t def, int16_t rep) {
  // A null or empty value takes exactly one entry, with the same levels, in every leaf below.
  for (uint32_t l = n.leaf_begin; l < n.leaf_end; ++l) {
    Cursor& c = cursors_[l];
    if (c.pos == c.end) return OutOfLevels(l);
    if (c.rep[c.pos] != rep || c.def[c.pos] != def) {
      return Mismatch(l, fmt::format("levels (rep {}, def {}) where (rep {}, def {}) were expected",
                                     c.rep[c.pos], c.def[c.pos], rep, def));
    }
    ++c.pos;
  }
  return true;
}

bool RecordAssembler::WriteNull(const AssemblyNode& n, int16_t def, int16_t rep,
                                std::string_view text) {
  if (!TakeNull(n, def, rep)) return false;
  Put(text.data(), text.size());
  return true;
}

bool RecordAssembler::OutOfLevels(uint32_t leaf) {
  return Mismatch(leaf, "the column ran out of levels within the row");
}

bool RecordAssembler::OutOfValues(uint32_t leaf) {
  return Mismatch(leaf, "more present levels than values");
}

bool RecordAssembler::BadRepetition(uint32_t leaf, int16_t got, int16_t want) {
  return Mismatch(leaf, fmt::format("repetition level {} where {} was expected", got, want));
}

bool RecordAssembler::BadDefinition(const AssemblyNode& n, int16_t got) {
  return Mismatch(n.leaf_begin, fmt::format("definition level {} where {} or {} was expected", got,
                                            n.def, n.null_def));
}

bool RecordAssembler::TakeLeaf(const AssemblyNode& n, int16_t rep, const ValueRef** value) {
  Cursor& c = cursors_[n.leaf_begin];
  if (c.pos == c.end) return OutOfLevels(n.leaf_begin);
  const int16_t d = c.def[c.pos];
  if (c.rep[c.pos] != rep) return BadRepetition(n.leaf_begin, c.rep[c.pos], rep);
  ++c.pos;
  if (d == n.def) {
    if (c.vpos == c.vend) return OutOfValues(n.leaf_begin);
    *value = &c.values[c.vpos++];
    return true;
  }
  if (d == n.null_def) {
    ScreenNull(n);
    *value = nullptr;
    return true;
  }
  return BadDefinition(n, d);
}

bool RecordAssembler::CheckFlatLeaves(size_t batch) {
  batch_failed_.assign(batch, 0);
  const int64_t first = row_;
  for (uint32_t index : flat_leaves_) {
    const AssemblyNode& n = plan_.nodes[index];
    Cursor& c = cursors_[n.leaf_begin];
    size_t pos = c.pos, vpos = c.vpos;
    for (size_t i = 0; i < batch; ++i, ++pos) {
      row_ = first + static_cast<int64_t>(i);  // for messages
      if (pos == c.end) return OutOfLevels(n.leaf_begin);
      if (c.rep[pos] != 0) return BadRepetition(n.leaf_begin, c.rep[pos], 0);
      const int16_t d = c.def[pos];
      if (d == n.def) {
        if (vpos == c.vend) return OutOfValues(n.leaf_begin);
        batch_failed_[i] |= c.values[vpos++].size != 0;
      } else if (d == n.null_def) {
        batch_failed_[i] |= n.screen_null;
      } else {
        return BadDefinition(n, d);
      }
    }
    c.pos = pos;
    c.vpos = vpos;
  }
  row_ = first;
  return true;
}

bool RecordAssembler::TakeLevel(const AssemblyNode& n, int16_t rep, int16_t* def, bool* null) {
  if (!Peek(n, def)) return false;
  *null = *def < n.def;
  if (!*null) return true;
  if (*def != n.null_def) {
    return Mismatch(n.leaf_begin,
                    fmt::format("definition level {} for a {} that cannot be null", *def,
                                n.kind == AssemblyNode::Kind::kStruct ? "struct" : "list or map"));
  }
  ScreenNull(n);
  return TakeNull(n, *def, rep);
}

bool RecordAssembler::WriteNode(const AssemblyNode& n, int16_t rep) {
  switch (n.kind) {
    case AssemblyNode::Kind::kLeaf: {
      const ValueRef* v;
      if (!TakeLeaf(n, rep, &v)) return false;
      if (v == nullptr) {
        Put("null", 4);
        return true;
      }
      if (n.screen.check != ScreenCheck::kNone) ScreenValue(n, *v);
      Put(v->data, v->size);
      return true;
    }
    case AssemblyNode::Kind::kStruct: {
      int16_t d;
      bool null;
      if (!TakeLevel(n, rep, &d, &null)) return false;
      if (null) {
        Put("null", 4);
        return true;
      }
      Put('{');
      bool first = true;
      for (uint32_t i : n.children) {
        const AssemblyNode& child = plan_.nodes[i];
        if (!first) Put(',');
        first = false;
        Put(child.key.data(), child.key.size());
        if (!WriteNode(child, rep)) return false;
      }
      Put('}');
      return true;
    }
    case AssemblyNode::Kind::kList:
    case AssemblyNode::Kind::kMap:
      return WriteList(n, rep);
    case AssemblyNode::Kind::kAbsent:
      Put("null", 4);
      return true;
  }
  return false;
}

bool RecordAssembler::WriteList(const AssemblyNode& n, int16_t rep) {
  int16_t d;
  bool null;
  if (!TakeLevel(n, rep, &d, &null)) return false;
  if (null) {
    Put("null", 4);
    return true;
  }
  const bool object = maps_as_objects_ && n.kind == AssemblyNode::Kind::kMap;
  if (d == n.def) return WriteNull(n, d, rep, object ? "{}" : "[]");
  Put(object ? '{' : '[');
  if (!WriteElement(n, rep)) return false;
  // Further elements of this list start with its own repetition level in every leaf; the
  // first leaf decides, and the others are checked as their entries are consumed.
  const Cursor& c = cursors_[n.leaf_begin];
  while (c.pos < c.end && c.rep[c.pos] == n.rep) {
    Put(',');
    if (!WriteElement(n, n.rep)) return false;
  }
  Put(object ? '}' : ']');
  return true;
}

bool RecordAssembler::CheckNode(const AssemblyNode& n, int16_t rep) {
  int16_t d;
  bool null;
  switch (n.kind) {
    case AssemblyNode::Kind::kLeaf: {
      const ValueRef* v;
      if (!TakeLeaf(n, rep, &v)) return false;
      if (v != nullptr) row_failed_ |= v->size != 0;  // the reader's verdict (ValueScreen)
      return true;
    }
    case AssemblyNode::Kind::kStruct:
      if (!TakeLevel(n, rep, &d, &null)) return false;
      if (null) return true;
      for (uint32_t i : n.children) {
        if (!CheckNode(plan_.nodes[i], rep)) return false;
      }
      return true;
    case AssemblyNode::Kind::kList:
    case AssemblyNode::Kind::kMap: {
      if (!TakeLevel(n, rep, &d, &null)) return false;
      if (null) return true;
      if (d == n.def) return TakeNull(n, d, rep);
      const Cursor& c = cursors_[n.leaf_begin];
      int16_t at = rep;
      do {
        for (uint32_t i : n.children) {
          if (!CheckNode(plan_.nodes[i], at)) return false;
        }
        at = n.rep;
      } while (c.pos < c.end && c.rep[c.pos] == n.rep);
      return true;
    }
    case AssemblyNode::Kind::kAbsent:
      return true;
  }
  return false;
}

bool RecordAssembler::WriteElement(const AssemblyNode& n, int16_t rep) {
  if (n.kind == AssemblyNode::Kind::kList) return WriteNode(plan_.nodes[n.children[0]], rep);
  if (maps_as_objects_) {
    // The key as a member name: a string as it is, any other value's JSON text quoted.
    const size_t at = used_;
    if (!WriteNode(plan_.nodes[n.children[0]], rep)) return false;
    if (out_[at] != '"') {
      const std::string text = out_.substr(at, used_ - at);
      used_ = at;
      Put('"');
      for (char ch : text) {
        if (ch == '"' || ch == '\\') Put('\\');
        Put(ch);
      }
      Put('"');
    }
    Put(':');
    if (n.children.size() > 1) return WriteNode(plan_.nodes[n.children[1]], rep);
    Put("null", 4);
    return true;
  }
  Put("{\"key\":", 7);
  if (!WriteNode(plan_.nodes[n.children[0]], rep)) return false;
  Put(",\"value\":", 9);
  if (n.children.size() > 1) {
    if (!WriteNode(plan_.nodes[n.children[1]], rep)) return false;
  } else {
    Put("null", 4);
  }
  Put('}');
  return true;
}

bool RecordAssembler::WriteRow() {
  const AssemblyNode& root = plan_.nodes[0];
  Put('{');
  bool first = true;
  for (uint32_t i : root.children) {
    const AssemblyNode& child = plan_.nodes[i];
    if (!first) Put(',');
    first = false;
    Put(child.key.data(), child.key.size());
    if (!WriteNode(child, 0)) return false;
  }
  Put('}');
  return true;
}

RecordAssembler::~RecordAssembler() = default;

Status RecordAssembler::Fill(size_t want) {
  auto fill = [&](size_t l) -> Status {
    ColumnChunkReader* r = readers_[l];
    while (r->complete_rows() < want && !r->exhausted()) {
      const size_t entries =
          r->leaf().max_rep == 0 ? want - r->complete_rows() : kRepeatedEntriesPerRead;
      SLUICE_TRY(r->ReadMore(entries));
    }
    return Ok();
  };
  if (pool_) return pool_->ForEach(readers_.size(), fill);
  for (size_t l = 0; l < readers_.size(); ++l) SLUICE_TRY(fill(l));
  return Ok();
}

Status RecordAssembler::Run(int64_t num_rows, const RowBatchCallback& each) {
  return Run(num_rows, [&each](std::string_view rows, size_t count, const std::vector<uint32_t>&) {
    return each(rows, count);
  });
}

Status RecordAssembler::Run(int64_t num_rows, const ScreenedBatchCallback& each) {
  row_ = 0;
  while (row_ < num_rows) {
    const size_t want = static_cast<size_t>(std::min<int64_t>(num_rows - row_, kBatchRows));
    SLUICE_TRY(Fill(want));
    size_t batch = want;
    for (size_t l = 0; l < readers_.size(); ++l) {
      ColumnChunkReader* r = readers_[l];
      batch = std::min(batch, r->complete_rows());
      Cursor& c = cursors_[l];
      c = {r->def_levels(), r->rep_levels(), r->values(),   r->level_pos(),
           r->level_end(),  r->value_pos(),  r->value_end()};
    }
    if (batch == 0) {
      for (ColumnChunkReader* r : readers_) {
        if (r->complete_rows() == 0) {
          return InvalidArgument(
              fmt::format("{}: column {}: the column chunk holds {} rows, the "
                          "row group {}",
                          context_, r->leaf().path, row_, num_rows));
        }
      }
    }
    failed_.clear();
    if (text_free_) {
      // The top-level leaves without repetition a column at a time, then the rest a row at a
      // time (a file whose levels disagree in several places may so name another first).
      used_ = 0;
      if (!CheckFlatLeaves(batch)) return Fail(error_);
      for (size_t i = 0; i < batch; ++i) {
        row_failed_ = batch_failed_[i] != 0;
        for (uint32_t c : nested_fields_) {
          if (!CheckNode(plan_.nodes[c], 0)) return Fail(error_);
        }
        if (row_failed_) failed_.push_back(static_cast<uint32_t>(i));
        ++row_;
      }
    } else if (is_flat_) {
      out_.clear();
      if (!WriteFlatBatch(batch)) return Fail(error_);
      used_ = out_.size();
    } else {
      // out_'s size is its capacity here: rows go to out_[0, used_).
      used_ = 0;
      for (size_t i = 0; i < batch; ++i) {
        row_failed_ = false;
        if (!WriteRow()) return Fail(error_);
        Put('\n');
        if (row_failed_) failed_.push_back(static_cast<uint32_t>(i));
        ++row_;
      }
    }
    for (size_t l = 0; l < readers_.size(); ++l) {
      readers_[l]->Consume(cursors_[l].pos, cursors_[l].vpos, batch);
      readers_[l]->Compact();
    }
    if (batch > 0) SLUICE_TRY(each(std::string_view(out_.data(), used_), batch, failed_));
  }
  return FinalCheck(num_rows);
}

Status RecordAssembler::FinalCheck(int64_t num_rows) {
  for (ColumnChunkReader* r : readers_) {
    if (r->level_pos() == r->level_end() && !r->exhausted()) SLUICE_TRY(r->ReadMore(1));
    if (r->level_pos() != r->level_end() || !r->exhausted()) {
      return InvalidArgument(
          fmt::format("{}: column {}: the column chunk holds more than the "
                      "row group's {} rows",
                      context_, r->leaf().path, num_rows));
    }
    if (r->value_pos() != r->value_end()) {
      return Internal(
          fmt::format("{}: column {}: values left after the last row", context_, r->leaf().path));
    }
  }
  return Ok();
}

}  // namespace sluice::parquet
