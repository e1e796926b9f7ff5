// Parquet's value encodings: the value types decoders produce, the interface every decoder of a
// page's values implements, and the factory that picks one by the page's Encoding.
//
// The encoders and decoders themselves live by concern: rle.h (the RLE/bit-packing hybrid, for
// levels, booleans and dictionary indexes), plain.h, dictionary.h, delta.h (DELTA_BINARY_PACKED,
// DELTA_LENGTH_BYTE_ARRAY, DELTA_BYTE_ARRAY) and byte_stream_split.h. Formats follow
// parquet-format's Encodings.md.
//
// Every decoder takes hostile bytes: a count the bytes cannot hold, a bit width wider than the
// type, a length past the end are kInvalidArgument errors that name the byte offset within the
// page (DecoderOptions::page_offset + the offset inside the bytes given), found before anything is
// allocated from them.
#pragma once

#include <array>
#include <cstdint>
#include <cstring>
#include <memory>
#include <span>
#include <string_view>
#include <vector>

#include "sluice/base/result.h"
#include "sluice/parquet/metadata.h"

namespace sluice::parquet {

/// An INT96 value as its 12 little-endian bytes (Impala and Spark timestamps: nanoseconds of the
/// day in bytes 0..7, the Julian day in bytes 8..11).
struct Int96 {
  std::array<uint8_t, 12> bytes{};

  int64_t nanos_of_day() const {
    int64_t v;
    std::memcpy(&v, bytes.data(), 8);
    return v;
  }
  int32_t julian_day() const {
    int32_t v;
    std::memcpy(&v, bytes.data() + 8, 4);
    return v;
  }
  bool operator==(const Int96&) const = default;
};

/// The C++ type each physical type decodes to: bool, int32_t, int64_t, Int96, float, double, and
/// std::string_view for BYTE_ARRAY and FIXED_LEN_BYTE_ARRAY. A string_view points into the page
/// bytes given to the decoder, or, for encodings that must rebuild values (DELTA_BYTE_ARRAY,
/// BYTE_STREAM_SPLIT of FIXED_LEN_BYTE_ARRAY), into storage the decoder owns; either way it stays
/// valid while both the page bytes and the decoder live.
struct DecoderOptions {
  PhysicalType type = PhysicalType::kInt32;
  /// FIXED_LEN_BYTE_ARRAY's width in bytes (must be positive for that type; ignored otherwise).
  int32_t type_length = 0;
  /// Offset of the first byte given to the decoder within its page; added to every offset an
  /// error message names.
  size_t page_offset = 0;
  /// Most bytes a decoder that rebuilds values may allocate for them (DELTA_BYTE_ARRAY's
  /// prefixes can make a small page expand without bound); past it decoding fails.
  size_t max_decoded_bytes = size_t{1} << 28;
};

/// Storage for values a decoder rebuilds: blocks that never move, so views into them stay valid
/// while the arena lives; at most `limit` bytes in all. Movable, not copyable.
class ValueArena {
 public:
  explicit ValueArena(size_t limit) : limit_(limit) {}
  /// `size` bytes, or nullptr past the limit.
  char* Allocate(size_t size);
  size_t allocated() const { return allocated_; }

 private:
  std::vector<std::unique_ptr<char[]>> blocks_;
  char* next_ = nullptr;
  size_t left_ = 0;
  size_t allocated_ = 0;
  size_t limit_;
};

/// Decodes the values of one page, in batches. Not thread-safe; one per page.
template <class T>
class ValueDecoder {
 public:
  virtual ~ValueDecoder() = default;
  /// Decode the next `n` values into `out`. kInvalidArgument (with the byte offset within the
  /// page) when fewer than `n` values remain or the bytes are malformed; after an error the
  /// decoder's state is unspecified and it must not be used again.
  virtual Status Decode(T* out, size_t n) = 0;
};

/// Return a decoder for `data`, a page's value section in `encoding`. T must be the type
/// `options.type` decodes to (see DecoderOptions). Dictionary encodings (RLE_DICTIONARY and the
/// deprecated PLAIN_DICTIONARY) look values up in `dictionary`, which must outlive the decoder;
/// BOOLEAN's RLE is the length-prefixed form. kInvalidArgument for a bad header or an encoding the
/// type cannot have; kUnimplemented for BIT_PACKED (deprecated, for levels only), ALP and
/// dictionary-encoded BOOLEAN.
/// Instantiated for bool, int32_t, int64_t, Int96, float, double and std::string_view.
template <class T>
Result<std::unique_ptr<ValueDecoder<T>>> MakeDecoder(Encoding encoding, std::string_view data,
                                                     const DecoderOptions& options,
                                                     std::span<const T> dictionary = {});

}  // namespace sluice::parquet
