// Record assembly: rebuilding rows from the leaf columns' repetition and definition levels (the
// Dremel scheme of parquet-format's README), each row printed as one canonical JSON object.
//
// The assembler walks an AssemblyPlan, a tree of the (projected) schema in which every node knows
// the definition level at which it is present and, for lists and maps, the repetition level of
// its repeated group. Each leaf column has a cursor into its reader's buffers; writing a node
// consumes exactly one level entry from every leaf below it for a null or empty value, and the
// entries of each element for a list. Every entry consumed is checked against the levels the
// node expects, so a file whose columns disagree is an error, never a read out of bounds.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "sluice/base/result.h"
#include "sluice/base/strings.h"
#include "sluice/parquet/column_reader.h"

namespace sluice::parquet::internal {
class WorkerPool;
}  // namespace sluice::parquet::internal

namespace sluice::parquet {

/// One node of the schema as assembly sees it.
struct AssemblyNode {
  /// kAbsent: a field the file does not hold (a map's missing values), always null.
  enum class Kind : uint8_t { kLeaf, kStruct, kList, kMap, kAbsent };
  Kind kind = Kind::kLeaf;
  /// `"name":` for a struct's fields (the name JSON-escaped); empty for elements, keys, values.
  std::string key;
  /// The definition level at which the node is present (not null). A list or map with exactly
  /// this level is empty; one element needs def + 1.
  int16_t def = 0;
  /// The definition level that says "this node is null, its parent is not": def - 1 for an
  /// optional node, -1 for one that is never null.
  int16_t null_def = -1;
  /// Lists and maps: the repetition level of their repeated group.
  int16_t rep = 0;
  /// Leaves below the node (itself for a leaf) are plan leaves [leaf_begin, leaf_end); empty
  /// only for kAbsent.
  uint32_t leaf_begin = 0;
  uint32_t leaf_end = 0;
  /// Struct: its fields; list: {element}; map: {key, value}. Indexes into AssemblyPlan::nodes.
  std::vector<uint32_t> children;
  /// Row screening (row_screen.h): a null here fails the row; a value here must pass `screen`.
  bool screen_null = false;
  ValueScreen screen;
};

/// The tree of a (projected) schema. nodes[0] is the row: a struct that is never null.
struct AssemblyPlan {
  std::vector<AssemblyNode> nodes;
  /// For each plan leaf, in order, the index of its column among the file's leaf columns.
  std::vector<size_t> leaf_columns;
};

/// Check a plan's shape: children in range and after their parent, leaf ranges nested and
/// contiguous, levels non-decreasing downwards. kInternal when it is malformed.
Status ValidatePlan(const AssemblyPlan& plan);

/// Receives `count` rows, each one JSON text followed by '\n' (a row never holds a raw newline:
/// strings escape theirs); valid during the call. An error stops the read and is returned as it
/// is.
using RowBatchCallback = std::function<Status(std::string_view rows, size_t count)>;
/// As RowBatchCallback, with the rows of the batch (0-based, increasing) that did not pass the
/// plan's row screen (row_screen.h); empty when the plan screens nothing.
using ScreenedBatchCallback =
    std::function<Status(std::string_view rows, size_t count, const std::vector<uint32_t>& failed)>;

/// Assembles rows from one reader per plan leaf. Not thread-safe.
class RecordAssembler {
 public:
  /// `readers[i]` reads plan leaf i; the readers must outlive the assembler. `context` starts
  /// the messages of the errors it finds (the file and row group).
  RecordAssembler(const AssemblyPlan& plan, std::vector<ColumnChunkReader*> readers,
                  std::string context, int threads = 1);
  ~RecordAssembler();
  /// Maps as JSON objects keyed by the key's text (ReaderOptions::maps_as_objects).
  void set_maps_as_objects(bool on) { maps_as_objects_ = on; }
  /// The readers screen values without text (ValueScreen): a value fails when its ref is not
  /// empty, and the rows' text means nothing (only `failed` does).
  void set_text_free(bool on) { text_free_ = on; }

  /// Assemble `num_rows` rows, calling `each` with them a batch at a time. Fails with
  /// kInvalidArgument when the columns do not hold exactly `num_rows` rows or their levels
  /// disagree; stops at the first error `each` returns.
  Status Run(int64_t num_rows, const RowBatchCallback& each);
  Status Run(int64_t num_rows, const ScreenedBatchCallback& each);

 private:
  struct Cursor {
    const int16_t* def;
    const int16_t* rep;
    const ValueRef* values;
    size_t pos, end, vpos, vend;
  };

  // A row field of a flat plan: a leaf without repetition, or an absent field.
  struct FlatField {
    std::string_view key;
    int16_t def;
    int16_t null_def;
    uint32_t leaf;
    bool absent;
    const AssemblyNode* node;
  };

  Status Fill(size_t want);
  bool WriteFlatBatch(size_t batch);
  bool WriteRow();
  // Append to out_[0, used_), which the generic path keeps larger than what it wrote.
  void Grow(size_t n);
  void Put(const char* s, size_t n) {
    if (out_.size() - used_ < n) Grow(n);
    CopyBytes(out_.data() + used_, s, n);
    used_ += n;
  }
  void Put(char c) {
    if (out_.size() == used_) Grow(1);
    out_[used_++] = c;
  }
  bool WriteNode(const AssemblyNode& n, int16_t rep);
  bool WriteList(const AssemblyNode& n, int16_t rep);
  bool WriteElement(const AssemblyNode& n, int16_t rep);
  bool WriteNull(const AssemblyNode& n, int16_t def, int16_t rep, std::string_view text);
  // The levels of a row, consumed and checked without writing (shared by both walks): a null or
  // empty value's entries; a leaf's entry (*value null for a null); a struct, list or map's
  // definition level (*null: it is null, its entries consumed).
  bool TakeNull(const AssemblyNode& n, int16_t def, int16_t rep);
  bool TakeLeaf(const AssemblyNode& n, int16_t rep, const ValueRef** value);
  bool TakeLevel(const AssemblyNode& n, int16_t rep, int16_t* def, bool* null);
  // The walk of WriteNode without text (text-free reads): the same levels and errors, only the
  // row's verdict.
  bool CheckNode(const AssemblyNode& n, int16_t rep);
  // Text-free reads: the batch's top-level leaves without repetition, a column at a time, their
  // verdicts into batch_failed_.
  bool CheckFlatLeaves(size_t batch);
  // The errors of levels that disagree (Mismatch), for one leaf.
  bool OutOfLevels(uint32_t leaf);
  bool OutOfValues(uint32_t leaf);
  bool BadRepetition(uint32_t leaf, int16_t got, int16_t want);
  bool BadDefinition(const AssemblyNode& n, int16_t got);
  bool Peek(const AssemblyNode& n, int16_t* def);
  bool Mismatch(uint32_t leaf, std::string what);
  // The screen's verdicts on a value and a null at `n`.
  void ScreenValue(const AssemblyNode& n, const ValueRef& v);
  void ScreenNull(const AssemblyNode& n) { row_failed_ |= n.screen_null; }
  Status FinalCheck(int64_t num_rows);

  const AssemblyPlan& plan_;
  bool maps_as_objects_ = false;
  bool text_free_ = false;
  std::vector<ColumnChunkReader*> readers_;
  std::string context_;
  std::vector<Cursor> cursors_;
  // Set when every field of the row is a leaf without repetition: rows are written by one loop.
  std::vector<FlatField> flat_;
  bool is_flat_ = false;
  std::string out_;
  size_t used_ = 0;
  std::unique_ptr<internal::WorkerPool> pool_;  // when decoding on several threads
  Error error_{ErrorCode::kInternal, ""};
  int64_t row_ = 0;  // rows written so far, for messages
  // Row screening: whether the row being written failed, and the batch's failed rows.
  bool row_failed_ = false;
  std::vector<uint32_t> failed_;
  // Text-free reads: the row's top-level fields split into leaves without repetition (checked
  // a column at a time) and the others, as plan node indexes; the batch's verdicts so far.
  std::vector<uint32_t> flat_leaves_;
  std::vector<uint32_t> nested_fields_;
  std::vector<uint8_t> batch_failed_;
};

}  // namespace sluice::parquet
