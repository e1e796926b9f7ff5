#include "sluice/parquet/thrift_compact.h"

#include <fmt/format.h>

#include <bit>
#include <cstring>
#include <limits>

namespace sluice::parquet::thrift {
namespace {

// Wire type nibbles that are not a Type value: the field header's "bool false".
constexpr uint8_t kWireBoolFalse = 2;

// The fewest bytes one element of `type` takes, so that a size can be checked against the bytes
// left before anything is allocated for it.
size_t MinEncodedSize(Type type) { return type == Type::kDouble ? 8 : 1; }

// A wire type nibble as a Type, or kStop for a nibble no type has.
Type FromNibble(uint8_t nibble) {
  switch (nibble) {
    case 1:
    case kWireBoolFalse:
      return Type::kBool;
    case 3:
    case 4:
    case 5:
    case 6:
    case 7:
    case 8:
    case 9:
    case 10:
    case 11:
    case 12:
      return static_cast<Type>(nibble);
    default:
      return Type::kStop;
  }
}

int64_t Unzigzag(uint64_t v) { return static_cast<int64_t>(v >> 1) ^ -static_cast<int64_t>(v & 1); }
uint64_t Zigzag(int64_t v) {
  return (static_cast<uint64_t>(v) << 1) ^ static_cast<uint64_t>(v >> 63);
}

}  // namespace

std::string_view TypeName(Type type) {
  switch (type) {
    case Type::kStop:
      return "stop";
    case Type::kBool:
      return "bool";
    case Type::kI8:
      return "i8";
    case Type::kI16:
      return "i16";
    case Type::kI32:
      return "i32";
    case Type::kI64:
      return "i64";
    case Type::kDouble:
      return "double";
    case Type::kBinary:
      return "binary";
    case Type::kList:
      return "list";
    case Type::kSet:
      return "set";
    case Type::kMap:
      return "map";
    case Type::kStruct:
      return "struct";
  }
  return "unknown";
}

CompactReader::CompactReader(std::string_view bytes, const MetadataLimits& limits)
    : bytes_(bytes), limits_(limits) {}

Unexpected<Error> CompactReader::Fail(size_t at, std::string_view message) const {
  return InvalidArgument(fmt::format("byte {}: {}", at, message));
}

Status CompactReader::Charge(size_t bytes) {
  if (bytes > limits_.max_total_bytes - total_) {
    return Fail(pos_, fmt::format("decoding needs more than the limit of {} bytes in all",
                                  limits_.max_total_bytes));
  }
  total_ += bytes;
  return Ok();
}

Status CompactReader::ChargeElements(size_t count, size_t element_size) {
  if (element_size != 0 && count > std::numeric_limits<size_t>::max() / element_size) {
    return Fail(pos_, fmt::format("{} elements overflow the memory limit", count));
  }
  return Charge(count * element_size);
}

Result<uint64_t> CompactReader::ReadVarint() {
  const size_t start = pos_;
  uint64_t value = 0;
  // Ten 7-bit groups hold 64 bits; the tenth may only carry the top bit.
  for (int i = 0; i < 10; ++i) {
    if (pos_ >= bytes_.size()) return Fail(start, "the input ends inside a varint");
    const auto b = static_cast<uint8_t>(bytes_[pos_++]);
    if (i == 9 && b > 1) return Fail(start, "varint longer than 10 bytes or over 64 bits");
    value |= static_cast<uint64_t>(b & 0x7f) << (7 * i);
    if ((b & 0x80) == 0) return value;
  }
  return Fail(start, "varint longer than 10 bytes");  // not reached: the tenth byte is checked
}

Status CompactReader::BeginStruct() {
  if (last_ids_.size() >= limits_.max_nesting) {
    return Fail(pos_, fmt::format("structs nested deeper than {}", limits_.max_nesting));
  }
  last_ids_.push_back(0);
  return Ok();
}

void CompactReader::EndStruct() {
  if (!last_ids_.empty()) last_ids_.pop_back();
}

Result<FieldHeader> CompactReader::ReadFieldHeader() {
  pending_bool_ = -1;
  FieldHeader header;
  header.offset = pos_;
  if (pos_ >= bytes_.size()) return Fail(pos_, "the input ends inside a struct");
  const auto b = static_cast<uint8_t>(bytes_[pos_++]);
  if (b == 0) return header;
  const uint8_t nibble = b & 0x0f;
  const Type type = FromNibble(nibble);
  if (type == Type::kStop) {
    return Fail(header.offset, fmt::format("unknown field type {}", nibble));
  }
  const int delta = b >> 4;
  int id = 0;
  if (delta == 0) {
    SLUICE_ASSIGN_OR_RETURN(id, ReadI16());
  } else {
    id = (last_ids_.empty() ? 0 : last_ids_.back()) + delta;
    if (id > std::numeric_limits<int16_t>::max()) {
      return Fail(header.offset, "field id over 32767");
    }
  }
  if (!last_ids_.empty()) last_ids_.back() = static_cast<int16_t>(id);
  if (type == Type::kBool) pending_bool_ = nibble == kWireBoolFalse ? 0 : 1;
  header.type = type;
  header.id = static_cast<int16_t>(id);
  return header;
}

Result<bool> CompactReader::ReadBool() {
  if (pending_bool_ >= 0) {
    const bool value = pending_bool_ == 1;
    pending_bool_ = -1;
    return value;
  }
  if (pos_ >= bytes_.size()) return Fail(pos_, "the input ends inside a bool");
  const auto b = static_cast<uint8_t>(bytes_[pos_]);
  // 1 is true and 2 false; the spec once said 0 for false, and some writers still do.
  if (b > 2) return Fail(pos_, fmt::format("bad bool byte {}", b));
  ++pos_;
  return b == 1;
}

Result<int8_t> CompactReader::ReadI8() {
  if (pos_ >= bytes_.size()) return Fail(pos_, "the input ends inside an i8");
  return static_cast<int8_t>(bytes_[pos_++]);
}

Result<int16_t> CompactReader::ReadI16() {
  const size_t start = pos_;
  SLUICE_ASSIGN_OR_RETURN(const uint64_t v, ReadVarint());
  if (v > std::numeric_limits<uint16_t>::max()) return Fail(start, "i16 out of range");
  return static_cast<int16_t>(Unzigzag(v));
}

Result<int32_t> CompactReader::ReadI32() {
  const size_t start = pos_;
  SLUICE_ASSIGN_OR_RETURN(const uint64_t v, ReadVarint());
  if (v > std::numeric_limits<uint32_t>::max()) return Fail(start, "i32 out of range");
  return static_cast<int32_t>(Unzigzag(v));
}

Result<int64_t> CompactReader::ReadI64() {
  SLUICE_ASSIGN_OR_RETURN(const uint64_t v, ReadVarint());
  return Unzigzag(v);
}

Result<double> CompactReader::ReadDouble() {
  if (remaining() < 8) return Fail(pos_, "the input ends inside a double");
  uint64_t bits = 0;
  for (int i = 7; i >= 0; --i) bits = (bits << 8) | static_cast<uint8_t>(bytes_[pos_ + i]);
  pos_ += 8;
  return std::bit_cast<double>(bits);
}

// Sizes are i32 on the wire (Thrift's Java and C++ read them so): above 2^31 - 1 they are
// negative there, and an error here.
Result<uint32_t> CompactReader::ReadSize(std::string_view what) {
  const size_t start = pos_;
  SLUICE_ASSIGN_OR_RETURN(const uint64_t v, ReadVarint());
  if (v > static_cast<uint64_t>(std::numeric_limits<int32_t>::max())) {
    return Fail(start, fmt::format("negative or oversized {} size", what));
  }
  return static_cast<uint32_t>(v);
}

Result<std::string> CompactReader::ReadBinary() {
  const size_t start = pos_;
  SLUICE_ASSIGN_OR_RETURN(const uint32_t size, ReadSize("binary"));
  if (size > remaining()) {
    return Fail(start, fmt::format("binary of {} bytes but {} bytes are left", size, remaining()));
  }
  if (size > limits_.max_string_size) {
    return Fail(start, fmt::format("binary of {} bytes is over the limit of {}", size,
                                   limits_.max_string_size));
  }
  SLUICE_TRY(Charge(size));
  std::string value(bytes_.substr(pos_, size));
  pos_ += size;
  return value;
}

Result<Type> CompactReader::ElementType(uint8_t nibble, size_t at) const {
  const Type type = FromNibble(nibble);
  if (type == Type::kStop) return Fail(at, fmt::format("unknown element type {}", nibble));
  return type;
}

Status CompactReader::CheckElements(uint64_t count, size_t min_bytes_each, size_t at,
                                    std::string_view what) {
  // count < 2^31 and min_bytes_each <= 16: the product fits.
  if (count * min_bytes_each > remaining()) {
    return Fail(at,
                fmt::format("{} of {} elements but {} bytes are left", what, count, remaining()));
  }
  if (count > limits_.max_list_size) {
    return Fail(at, fmt::format("{} of {} elements is over the limit of {}", what, count,
                                limits_.max_list_size));
  }
  return Ok();
}

Result<ListHeader> CompactReader::ReadListHeader() {
  pending_bool_ = -1;
  const size_t start = pos_;
  if (pos_ >= bytes_.size()) return Fail(pos_, "the input ends at a list header");
  const auto b = static_cast<uint8_t>(bytes_[pos_++]);
  ListHeader header;
  SLUICE_ASSIGN_OR_RETURN(header.element, ElementType(b & 0x0f, start));
  header.size = b >> 4;
  if (header.size == 15) {
    SLUICE_ASSIGN_OR_RETURN(header.size, ReadSize("list"));
  }
  SLUICE_TRY(CheckElements(header.size, MinEncodedSize(header.element), start, "list"));
  return header;
}

Result<MapHeader> CompactReader::ReadMapHeader() {
  pending_bool_ = -1;
  const size_t start = pos_;
  MapHeader header;
  SLUICE_ASSIGN_OR_RETURN(header.size, ReadSize("map"));
  if (header.size == 0) return header;
  if (pos_ >= bytes_.size()) return Fail(pos_, "the input ends at a map's types");
  const auto b = static_cast<uint8_t>(bytes_[pos_]);
  SLUICE_ASSIGN_OR_RETURN(header.key, ElementType(b >> 4, pos_));
  SLUICE_ASSIGN_OR_RETURN(header.value, ElementType(b & 0x0f, pos_));
  ++pos_;
  SLUICE_TRY(CheckElements(header.size, MinEncodedSize(header.key) + MinEncodedSize(header.value),
                           start, "map"));
  return header;
}

Status CompactReader::Skip(Type type) {
  if (type == Type::kBool && pending_bool_ >= 0) {
    pending_bool_ = -1;
    return Ok();
  }
  pending_bool_ = -1;
  return SkipValue(type, last_ids_.size());
}

// Every value skipped takes at least one byte, so skipping is linear in the input; `depth`
// counts the open structs, lists and maps, bounded as decoding is.
Status CompactReader::SkipValue(Type type, size_t depth) {
  switch (type) {
    case Type::kStop:
      return Fail(pos_, "cannot skip a value of type stop");
    case Type::kBool: {
      SLUICE_TRY(ReadBool());
      return Ok();
    }
    case Type::kI8:
      if (pos_ >= bytes_.size()) return Fail(pos_, "the input ends inside an i8");
      ++pos_;
      return Ok();
    case Type::kI16:
    case Type::kI32:
    case Type::kI64: {
      SLUICE_TRY(ReadVarint());
      return Ok();
    }
    case Type::kDouble:
      if (remaining() < 8) return Fail(pos_, "the input ends inside a double");
      pos_ += 8;
      return Ok();
    case Type::kBinary: {
      const size_t start = pos_;
      SLUICE_ASSIGN_OR_RETURN(const uint32_t size, ReadSize("binary"));
      if (size > remaining()) {
        return Fail(start,
                    fmt::format("binary of {} bytes but {} bytes are left", size, remaining()));
      }
      pos_ += size;
      return Ok();
    }
    case Type::kList:
    case Type::kSet:
    case Type::kMap: {
      if (depth >= limits_.max_nesting) {
        return Fail(pos_, fmt::format("values nested deeper than {}", limits_.max_nesting));
      }
      if (type == Type::kMap) {
        SLUICE_ASSIGN_OR_RETURN(const MapHeader map, ReadMapHeader());
        for (uint32_t i = 0; i < map.size; ++i) {
          SLUICE_TRY(SkipValue(map.key, depth + 1));
          SLUICE_TRY(SkipValue(map.value, depth + 1));
        }
        return Ok();
      }
      SLUICE_ASSIGN_OR_RETURN(const ListHeader list, ReadListHeader());
      for (uint32_t i = 0; i < list.size; ++i) SLUICE_TRY(SkipValue(list.element, depth + 1));
      return Ok();
    }
    case Type::kStruct:
      return SkipStruct(depth);
  }
  return Fail(pos_, "cannot skip a value of an unknown type");
}

// Field ids do not matter here, but the long form's id still has to be read past.
Status CompactReader::SkipStruct(size_t depth) {
  if (depth >= limits_.max_nesting) {
    return Fail(pos_, fmt::format("structs nested deeper than {}", limits_.max_nesting));
  }
  while (true) {
    const size_t start = pos_;
    if (pos_ >= bytes_.size()) return Fail(pos_, "the input ends inside a struct");
    const auto b = static_cast<uint8_t>(bytes_[pos_++]);
    if (b == 0) return Ok();
    const Type type = FromNibble(b & 0x0f);
    if (type == Type::kStop) return Fail(start, fmt::format("unknown field type {}", b & 0x0f));
    if ((b >> 4) == 0) SLUICE_TRY(ReadI16());
    if (type != Type::kBool) SLUICE_TRY(SkipValue(type, depth + 1));
  }
}

void CompactWriter::EndStruct() {
  out_.push_back('\0');
  if (!last_ids_.empty()) last_ids_.pop_back();
}

void CompactWriter::BeginField(Type type, int16_t id) {
  int16_t& last = last_ids_.back();
  const int delta = id - last;
  const auto nibble = static_cast<uint8_t>(type);
  if (delta > 0 && delta <= 15) {
    out_.push_back(static_cast<char>((delta << 4) | nibble));
  } else {
    out_.push_back(static_cast<char>(nibble));
    I64(id);
  }
  last = id;
}

void CompactWriter::BoolField(int16_t id, bool value) {
  // The header carries the value: type 1 for true, 2 for false.
  BeginField(value ? Type::kBool : static_cast<Type>(kWireBoolFalse), id);
}

void CompactWriter::I8Field(int16_t id, int8_t value) {
  BeginField(Type::kI8, id);
  I8(value);
}
void CompactWriter::I16Field(int16_t id, int16_t value) {
  BeginField(Type::kI16, id);
  I16(value);
}
void CompactWriter::I32Field(int16_t id, int32_t value) {
  BeginField(Type::kI32, id);
  I32(value);
}
void CompactWriter::I64Field(int16_t id, int64_t value) {
  BeginField(Type::kI64, id);
  I64(value);
}
void CompactWriter::DoubleField(int16_t id, double value) {
  BeginField(Type::kDouble, id);
  Double(value);
}
void CompactWriter::BinaryField(int16_t id, std::string_view value) {
  BeginField(Type::kBinary, id);
  Binary(value);
}

void CompactWriter::Varint(uint64_t value) {
  while (value >= 0x80) {
    out_.push_back(static_cast<char>((value & 0x7f) | 0x80));
    value >>= 7;
  }
  out_.push_back(static_cast<char>(value));
}

void CompactWriter::I64(int64_t value) { Varint(Zigzag(value)); }

void CompactWriter::Double(double value) {
  const auto bits = std::bit_cast<uint64_t>(value);
  for (int i = 0; i < 8; ++i) out_.push_back(static_cast<char>(bits >> (8 * i)));
}

void CompactWriter::Binary(std::string_view value) {
  Varint(value.size());
  out_.append(value);
}

void CompactWriter::BeginList(Type element, size_t size) {
  const auto nibble = static_cast<uint8_t>(element);
  if (size < 15) {
    out_.push_back(static_cast<char>((size << 4) | nibble));
  } else {
    out_.push_back(static_cast<char>(0xf0 | nibble));
    Varint(size);
  }
}

void CompactWriter::BeginMap(Type key, Type value, size_t size) {
  Varint(size);
  if (size > 0) {
    out_.push_back(
        static_cast<char>((static_cast<uint8_t>(key) << 4) | static_cast<uint8_t>(value)));
  }
}

}  // namespace sluice::parquet::thrift
