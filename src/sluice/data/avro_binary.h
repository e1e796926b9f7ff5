// Avro's binary encoding of one datum, to and from Avro's JSON encoding of it (the form
// kafka-avro-console-consumer prints and kafka-avro-console-producer reads), with the spec's
// schema resolution when the reader's schema differs from the writer's.
//
// The JSON form, as the spec defines it:
//  * null, boolean, int, long, float, double: JSON null, true/false, numbers. Floats and doubles
//    that JSON cannot hold are the strings "NaN", "Infinity" and "-Infinity" (what Jackson, under
//    Avro's Java JsonEncoder, writes).
//  * string: a JSON string. bytes and fixed: a JSON string whose code points U+0000..U+00FF are
//    the bytes (ISO-8859-1).
//  * record: an object with the fields in schema order; enum: the symbol; array: an array;
//    map: an object.
//  * union: null for the null branch, else an object with one member named after the branch
//    (the full name of a record, enum or fixed; "int", "string", "array", "map", ... otherwise)
//    whose value is the branch's value.
// Logical types are carried as their underlying values: a decimal is its two's-complement bytes
// (bytes or fixed), a date an int, times and timestamps ints or longs, a uuid a string, a
// duration its 12 fixed bytes. Nothing is converted to calendar or decimal text.
//
// The encoder also takes, for convenience (Avro's own JSON decoder does not):
//  * a union value written bare, when exactly one branch accepts it (`"x"` for ["null",
//    "string"]); an object with one member named after a branch is always the wrapped form;
//  * a union branch named by its unqualified name when no other branch has that name;
//  * a record without a field that has a default (the default is written).
// A record member that is not a field of the schema is an error, so nothing is dropped silently.
//
// Every error names the place in the datum (`items[2].qty`, `attributes["color"]`); decoding
// errors also the byte offset. Decoding takes hostile input: truncated data, lengths and block
// counts beyond the remaining bytes, negative lengths, bad union and enum indexes, over-long
// varints, invalid UTF-8 in strings and trailing bytes are errors; nesting is bounded; nothing
// is allocated ahead of the bytes that back it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "sluice/base/json.h"
#include "sluice/base/result.h"
#include "sluice/dialects/avro/avro_schema.h"

namespace sluice::data {

namespace internal {
struct AvroDecodePlan;
}  // namespace internal

/// Bounds for decoding hostile input. The defaults are far above what real data needs.
struct AvroDecodeOptions {
  /// Records, arrays, maps and unions nested inside each other (a recursive linked list counts
  /// two levels per element: the record and the union around the next one).
  size_t max_depth = 512;
  /// Items that take no bytes at all (nulls, empty records, fixed of size 0) in one datum: a
  /// block count is otherwise bounded by the bytes that remain, these are bounded by this.
  uint64_t max_zero_byte_items = uint64_t{1} << 20;
};

/// Bounds for encoding. The input is a JsonValue, already bounded by its parser.
struct AvroEncodeOptions {
  size_t max_depth = 512;
};

/// Return the binary encoding of `datum` (Avro's JSON encoding, with the conveniences above)
/// under `schema`: zigzag varints, little-endian IEEE floats, length-prefixed bytes and strings,
/// arrays and maps as one block and the end marker. kInvalidArgument names the datum's path:
/// `items[2].qty: expected int, got string`.
Result<std::string> EncodeAvro(const dialects::avro::AvroSchema& schema, const JsonValue& datum,
                               const AvroEncodeOptions& options = {});
/// The same for one node of a schema (a field's type, a union branch).
Result<std::string> EncodeAvro(const dialects::avro::AvroNode& node, const JsonValue& datum,
                               const AvroEncodeOptions& options = {});
/// Append the encoding to `out`; on error `out` is left as it was.
Status AppendAvro(const dialects::avro::AvroNode& node, const JsonValue& datum, std::string& out,
                  const AvroEncodeOptions& options = {});

/// Decodes datums written with one schema and read with another (or the same), from a plan
/// compiled once: reader fields matched to writer fields by name or reader alias, reader
/// defaults for the fields the writer lacks, writer-only fields skipped, int -> long -> float ->
/// double and string <-> bytes promoted, enum symbols mapped (to the reader's enum default when
/// the reader lacks one), union branches chosen by the writer's index and matched to the reader's
/// (the first reader branch of the same type and name, else the first the writer's branch can be
/// read as). The output is the reader's JSON encoding.
///
/// Holds pointers into both schemas, which must outlive it. Decode is const and thread-safe.
class AvroDecoder {
 public:
  /// Decode with the writer's own schema.
  static Result<AvroDecoder> Make(const dialects::avro::AvroSchema& writer,
                                  const AvroDecodeOptions& options = {});
  /// Resolve `writer` to `reader`. A pair dialects::avro::CheckCompatibility finds incompatible
  /// is refused up front: kIncompatible with its first incompatibilities (kind, location,
  /// message); its own errors (a reader field matching two writer fields) come back as they are.
  static Result<AvroDecoder> Make(const dialects::avro::AvroSchema& writer,
                                  const dialects::avro::AvroSchema& reader,
                                  const AvroDecodeOptions& options = {});

  AvroDecoder(AvroDecoder&&) noexcept;
  AvroDecoder& operator=(AvroDecoder&&) noexcept;
  ~AvroDecoder();

  /// Decode exactly one datum that fills `bytes`. kParseError with the byte offset and the
  /// datum's path: `byte 14: items[2].qty: truncated int`, `byte 9: 3 bytes after the datum`.
  Result<JsonValue> Decode(std::string_view bytes) const;
  /// Decode the one datum that starts `bytes` and may be followed by others (an object container
  /// file's block holds datums back to back); `*consumed` gets its length. Errors as Decode's.
  Result<JsonValue> DecodePrefix(std::string_view bytes, size_t* consumed) const;

 private:
  explicit AvroDecoder(std::unique_ptr<internal::AvroDecodePlan> plan);
  std::unique_ptr<internal::AvroDecodePlan> plan_;
};

/// Decode one datum written with `writer` (see AvroDecoder). Compiles a plan on every call:
/// decoding many datums, make an AvroDecoder once.
Result<JsonValue> DecodeAvro(const dialects::avro::AvroSchema& writer, std::string_view bytes,
                             const AvroDecodeOptions& options = {});
/// Decode one datum written with `writer` as `reader` reads it (see AvroDecoder::Make).
Result<JsonValue> DecodeAvro(const dialects::avro::AvroSchema& writer,
                             const dialects::avro::AvroSchema& reader, std::string_view bytes,
                             const AvroDecodeOptions& options = {});

/// The name that tags a union branch in the JSON encoding: the full name of a named type, else
/// the type's name ("int", "array", "map").
std::string AvroBranchName(const dialects::avro::AvroNode& branch);

/// Convert a field default, written in the schema's default form (a union's default is its
/// first branch's value, unwrapped), to the JSON encoding of the datum (the union wrapped).
/// Record defaults missing a field take that field's own default. kInvalidArgument when the
/// value does not fit (AvroSchema's parser has already checked the schema's own defaults).
Result<JsonValue> AvroDefaultToJsonEncoding(const dialects::avro::AvroNode& node,
                                            const JsonValue& value);

}  // namespace sluice::data
