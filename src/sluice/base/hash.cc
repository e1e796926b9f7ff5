#include "sluice/base/hash.h"

#include <openssl/evp.h>

#include <array>

namespace sluice {

namespace {

std::string Digest(const EVP_MD* md, std::string_view data) {
  unsigned char out[EVP_MAX_MD_SIZE];
  unsigned int len = 0;
  EVP_Digest(data.data(), data.size(), out, &len, md, nullptr);
  return HexEncode(std::string_view(reinterpret_cast<const char*>(out), len));
}

constexpr uint64_t kCrc64AvroEmpty = 0xc15d213aa4d7a795ULL;

constexpr std::array<uint64_t, 256> MakeCrc64Table() {
  std::array<uint64_t, 256> table{};
  for (uint64_t i = 0; i < 256; ++i) {
    uint64_t fp = i;
    for (int j = 0; j < 8; ++j) fp = (fp >> 1) ^ (kCrc64AvroEmpty & (0 - (fp & 1)));
    table[i] = fp;
  }
  return table;
}

constexpr std::array<uint64_t, 256> kCrc64Table = MakeCrc64Table();

}  // namespace

std::string Sha256Hex(std::string_view data) { return Digest(EVP_sha256(), data); }
std::string Md5Hex(std::string_view data) { return Digest(EVP_md5(), data); }

uint64_t Crc64Avro(std::string_view data) {
  uint64_t fp = kCrc64AvroEmpty;
  for (char c : data) {
    fp = (fp >> 8) ^ kCrc64Table[(fp ^ static_cast<unsigned char>(c)) & 0xff];
  }
  return fp;
}

std::string HexEncode(std::string_view bytes) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string out;
  out.reserve(bytes.size() * 2);
  for (char c : bytes) {
    auto u = static_cast<unsigned char>(c);
    out += kDigits[u >> 4];
    out += kDigits[u & 0xf];
  }
  return out;
}

std::optional<std::string> HexDecode(std::string_view hex) {
  if (hex.size() % 2 != 0) return std::nullopt;
  auto digit = [](char c) -> int {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
  };
  std::string out;
  out.reserve(hex.size() / 2);
  for (size_t i = 0; i < hex.size(); i += 2) {
    const int hi = digit(hex[i]);
    const int lo = digit(hex[i + 1]);
    if (hi < 0 || lo < 0) return std::nullopt;
    out += static_cast<char>(hi << 4 | lo);
  }
  return out;
}

}  // namespace sluice
