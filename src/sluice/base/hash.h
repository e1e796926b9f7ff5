// Digests used for fingerprints: SHA-256 and MD5 (OpenSSL) and Avro's CRC-64-AVRO (Rabin).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace sluice {

/// Lower-case hex of the SHA-256 of `data`.
std::string Sha256Hex(std::string_view data);
/// Lower-case hex of the MD5 of `data`.
std::string Md5Hex(std::string_view data);
/// Avro's 64-bit Rabin fingerprint (CRC-64-AVRO) of `data`.
uint64_t Crc64Avro(std::string_view data);
/// Lower-case hex of raw bytes.
std::string HexEncode(std::string_view bytes);
/// The bytes of lower- or upper-case hex text; nullopt for an odd length or a non-hex digit.
std::optional<std::string> HexDecode(std::string_view hex);

}  // namespace sluice
