// The values of the validator's output lines, for a writer that stores records by column.
// While the validator checks a JSON record it writes the record's output line; with a tape it
// also notes, for each value it writes, the writer's schema node the value fills, its
// repetition level and the value: an integer or boolean as the validator read it, or where its
// text lies (in the record, or in the output line). A ParquetFragment then appends the values
// in the tape's order instead of parsing the line a second time: keys, objects, arrays and
// most values are read once, by the validator.
//
// The tape is a hand-over inside the data module: the validator (validator.h) writes it, the
// Parquet fragment (parquet_sink.h) reads it, and ParquetRecordPlan::TapeMapFor says how the
// two plans' nodes correspond.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

namespace sluice::data {

/// What a tape entry stands for.
enum class TapeOp : uint8_t {
  /// The span is the JSON value of `node` as the output line has it: a leaf's value, or null.
  kValue,
  /// `node` is null (absent from its object, or a JSON null).
  kNull,
  /// `node` is an empty array or map.
  kEmpty,
  /// The span is a map key as written (a JSON string); `node` is the map's key node.
  kKey,
  /// `value()` is the integer the validator read for an integer leaf (or a timestamp's seconds).
  kInt,
  /// `value()` is a boolean leaf's value, 0 or 1.
  kBool,
  /// `value()` is the unscaled value of a decimal of at most 18 digits, at its scale.
  kDecimal,
  /// `value()` is the leaf's value as stored: a date's days since the epoch, a timestamp in
  /// the leaf's unit.
  kStored,
  /// The span is the text a leaf's value comes from, without escapes: a string's content, a
  /// number token of a float or decimal, the content of a date, timestamp, time, uuid or
  /// binary string.
  kText,
};

struct TapeEntry {
  uint32_t node = 0;  // the writer's node (an index in ParquetRecordPlan::nodes())
  int16_t rep = 0;    // the repetition level the value starts at
  TapeOp op = TapeOp::kValue;
  /// The span is in the record's text (TapeRecord::input), else in its output line.
  bool in_record = false;
  /// The span, as offsets; kInt and kBool keep their value in the same bits.
  uint32_t begin = 0;
  uint32_t size = 0;

  int64_t value() const {
    return static_cast<int64_t>((static_cast<uint64_t>(size) << 32) | begin);
  }
  void set_value(int64_t v) {
    begin = static_cast<uint32_t>(static_cast<uint64_t>(v));
    size = static_cast<uint32_t>(static_cast<uint64_t>(v) >> 32);
  }
};
static_assert(sizeof(TapeEntry) == 16);

/// How the nodes of a validation plan correspond to a writer's. Indexed by validation node.
struct TapeMap {
  /// The writer's node, or -1 for a place the writer does not store (below a null-typed one).
  std::vector<int32_t> node;
  /// Arrays and maps: the repetition level of their second and later entries.
  std::vector<int16_t> next_rep;
  /// Timestamps: the unit the writer stores them in (a schema::TimeUnit).
  std::vector<uint8_t> unit;
  /// The writer's node of the rescued-data column, or -1 when the lines carry none.
  int32_t rescued_node = -1;

  /// Whether the map is one for a validation plan of `nodes` nodes.
  bool Covers(size_t nodes) const {
    return node.size() == nodes && next_rep.size() == nodes && unit.size() == nodes;
  }
};

/// One kept record on a tape: its line's offset in the output buffer, the record's own text
/// (which must outlive the tape's use), and its entries.
struct TapeRecord {
  size_t line = 0;
  const char* input = nullptr;
  size_t input_size = 0;
  uint32_t first = 0;
  uint32_t count = 0;
};

/// The entries of the records a validator kept, in output order. A record with no TapeRecord
/// (its line was written some other way, or is too long for 32-bit offsets) is read from its
/// text. Clear it together with the output buffer it describes.
struct LeafTape {
  std::shared_ptr<const TapeMap> map;
  /// The entries are [0, used); the rest is room, kept between records and blocks.
  std::vector<TapeEntry> entries;
  size_t used = 0;
  std::vector<TapeRecord> records;

  /// Appends an entry field by field: an entry just built by scalar stores and copied whole
  /// would be read back as one 16-byte load that waits for those stores to retire.
  void Push(uint32_t node, int16_t rep, TapeOp op, bool in_record, uint32_t begin, uint32_t size) {
    if (used == entries.size()) [[unlikely]]
      Grow();
    TapeEntry& d = entries[used++];
    d.node = node;
    d.rep = rep;
    d.op = op;
    d.in_record = in_record;
    d.begin = begin;
    d.size = size;
  }
  void Push(const TapeEntry& e) { Push(e.node, e.rep, e.op, e.in_record, e.begin, e.size); }
  void Clear() {
    used = 0;
    records.clear();
  }

 private:
  __attribute__((noinline)) void Grow() {
    entries.resize(std::max<size_t>(256, 2 * entries.size()));
  }
};

}  // namespace sluice::data
