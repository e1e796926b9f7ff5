// Thrift's compact protocol, the encoding of Parquet's footer and page headers: a reader over a
// byte span that bounds every size by the bytes left and by MetadataLimits before it allocates,
// and a writer that appends to a string. No IDL, no generated code: metadata.cc (reading) and
// metadata_writer.cc (writing) spell out each struct's fields with these calls.
//
// The wire format (Apache Thrift's doc/specs/thrift-compact-protocol.md):
//  * integers: i8 is one byte; i16, i32 and i64 are zigzag varints (ULEB128, at most 10 bytes);
//  * double: 8 bytes, little-endian; binary and string: a varint length, then the bytes;
//  * struct: field headers, each a byte with the field id's delta from the previous field (1..15)
//    in the high nibble and the type in the low one, or delta 0 and the id as a zigzag varint
//    after it; a bool field's value is its type (1 true, 2 false); a 0 byte ends the struct;
//  * list and set: a byte with the size (0..14) in the high nibble and the element type in the
//    low one, or 15 there and the size as a varint after it; bool elements are a byte each;
//  * map: the size as a varint, then (if not 0) a byte with the key and value types.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "sluice/base/result.h"
#include "sluice/parquet/metadata.h"

namespace sluice::parquet::thrift {

/// The compact protocol's types. A bool is kBool wherever it appears (the wire's 1 and 2 in a
/// field header are its value).
enum class Type : uint8_t {
  kStop = 0,
  kBool = 1,
  kI8 = 3,
  kI16 = 4,
  kI32 = 5,
  kI64 = 6,
  kDouble = 7,
  kBinary = 8,
  kList = 9,
  kSet = 10,
  kMap = 11,
  kStruct = 12,
};
/// "bool", "i32", "struct", ...
std::string_view TypeName(Type type);

struct FieldHeader {
  Type type = Type::kStop;  // kStop: the struct has ended
  int16_t id = 0;
  size_t offset = 0;  // of the header's first byte
};

struct ListHeader {
  Type element = Type::kStop;
  uint32_t size = 0;
};

struct MapHeader {
  Type key = Type::kStop;
  Type value = Type::kStop;
  uint32_t size = 0;
};

/// Reads values in order from a byte span it does not own. Every error is kInvalidArgument with
/// the message "byte N: ...", N the offset into the span. Not thread-safe; cheap to create.
class CompactReader {
 public:
  /// `bytes` and `limits` must outlive the reader.
  CompactReader(std::string_view bytes, const MetadataLimits& limits);

  size_t offset() const { return pos_; }
  size_t remaining() const { return bytes_.size() - pos_; }

  /// Enter a struct (its field ids start again from 0). Fails beyond limits.max_nesting.
  Status BeginStruct();
  /// Leave the struct entered last; call after ReadFieldHeader returned kStop.
  void EndStruct();
  /// Read the next field header of the current struct; type kStop at its end.
  Result<FieldHeader> ReadFieldHeader();

  /// A bool field's value (from its header) or, inside a list, set or map, one byte.
  Result<bool> ReadBool();
  Result<int8_t> ReadI8();
  Result<int16_t> ReadI16();
  Result<int32_t> ReadI32();
  Result<int64_t> ReadI64();
  Result<double> ReadDouble();
  /// Binary or string: at most limits.max_string_size bytes, counted against max_total_bytes.
  Result<std::string> ReadBinary();
  /// A list or set header. The size is at most limits.max_list_size and no more elements than
  /// the bytes left could hold; allocation for them is still the caller's to Charge.
  Result<ListHeader> ReadListHeader();
  /// A map header, bounded as a list's.
  Result<MapHeader> ReadMapHeader();

  /// Skip a value of `type` (the value of the field whose header was read last, or an element),
  /// whatever it nests, within limits.max_nesting.
  Status Skip(Type type);

  /// Count `bytes` of memory the caller is about to allocate against limits.max_total_bytes.
  Status Charge(size_t bytes);
  /// Charge for `count` elements of `element_size` bytes each.
  Status ChargeElements(size_t count, size_t element_size);

  /// An error at byte `at`: "byte <at>: <message>".
  Unexpected<Error> Fail(size_t at, std::string_view message) const;

 private:
  Result<uint64_t> ReadVarint();
  Result<Type> ElementType(uint8_t nibble, size_t at) const;
  Result<uint32_t> ReadSize(std::string_view what);
  Status CheckElements(uint64_t count, size_t min_bytes_each, size_t at, std::string_view what);
  Status SkipValue(Type type, size_t depth);
  Status SkipStruct(size_t depth);

  std::string_view bytes_;
  const MetadataLimits& limits_;
  size_t pos_ = 0;
  size_t total_ = 0;               // bytes charged so far
  std::vector<int16_t> last_ids_;  // per open struct, the id of its last field
  int8_t pending_bool_ = -1;       // a bool field's value, from its header; -1 when none
};

/// Appends the compact encoding of values to a string. The caller writes fields in the order it
/// wants them; any order reads back, ascending ids take the one-byte header.
class CompactWriter {
 public:
  /// `out` must outlive the writer; bytes are appended.
  explicit CompactWriter(std::string& out) : out_(out) {}

  void BeginStruct() { last_ids_.push_back(0); }
  /// Write the stop byte and leave the struct.
  void EndStruct();
  /// A field header for any type but kBool (use BoolField); the value follows.
  void BeginField(Type type, int16_t id);

  void BoolField(int16_t id, bool value);
  void I8Field(int16_t id, int8_t value);
  void I16Field(int16_t id, int16_t value);
  void I32Field(int16_t id, int32_t value);
  void I64Field(int16_t id, int64_t value);
  void DoubleField(int16_t id, double value);
  void BinaryField(int16_t id, std::string_view value);

  /// Values, as list elements or after BeginField.
  void Bool(bool value) { out_.push_back(value ? '\x01' : '\x02'); }
  void I8(int8_t value) { out_.push_back(static_cast<char>(value)); }
  void I16(int16_t value) { I64(value); }
  void I32(int32_t value) { I64(value); }
  void I64(int64_t value);
  void Double(double value);
  void Binary(std::string_view value);
  /// A list header; `size` elements follow.
  void BeginList(Type element, size_t size);
  /// A map header; `size` key and value pairs follow.
  void BeginMap(Type key, Type value, size_t size);

 private:
  void Varint(uint64_t value);

  std::string& out_;
  std::vector<int16_t> last_ids_;
};

}  // namespace sluice::parquet::thrift
