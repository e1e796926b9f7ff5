// JSON text as the data plane's own scanners read and write it: the bytes that end a token,
// string escapes (checking, resolving and writing them) and UTF-8 sequences. Shared by the
// validator's scanner, the inference scanner and the rescued-data writer.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#if defined(__AVX2__)
#include <immintrin.h>
#endif

namespace sluice::data::internal {

/// The first byte at or after `p` that is '"', '\\', a control character or non-ASCII, or
/// `end`. May read up to 31 bytes past `end` (the caller's padding). With AVX2 (the SIMD flags
/// of src/sluice/data/CMakeLists.txt) 32 bytes at a time; static, so that a translation unit
/// built without those flags has its own copy rather than sharing another's.
static inline const char* FindStringSpecial(const char* p, const char* end) {
#if defined(__AVX2__)
  const __m256i quote = _mm256_set1_epi8('"');
  const __m256i backslash = _mm256_set1_epi8('\\');
  const __m256i control_max = _mm256_set1_epi8(0x1F);
  while (p < end) {
    __m256i v = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p));
    __m256i m = _mm256_or_si256(_mm256_cmpeq_epi8(v, quote), _mm256_cmpeq_epi8(v, backslash));
    m = _mm256_or_si256(m, _mm256_cmpeq_epi8(_mm256_min_epu8(v, control_max), v));
    uint32_t mask = static_cast<uint32_t>(_mm256_movemask_epi8(m)) |
                    static_cast<uint32_t>(_mm256_movemask_epi8(v));
    if (mask != 0) {
      const char* q = p + __builtin_ctz(mask);
      return q < end ? q : end;
    }
    p += 32;
  }
  return end;
#else
  for (; p < end; ++p) {
    unsigned char c = static_cast<unsigned char>(*p);
    if (c == '"' || c == '\\' || c < 0x20 || c >= 0x80) return p;
  }
  return end;
#endif
}

inline bool IsJsonSpace(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

/// Bytes that end a bare JSON token (a number or literal): structure, quotes and whitespace.
inline constexpr std::array<bool, 256> kJsonDelimiter = [] {
  std::array<bool, 256> t{};
  for (char c : std::string_view("{}[]:,\" \t\r\n")) t[static_cast<unsigned char>(c)] = true;
  return t;
}();

/// Past the JSON whitespace at `p` (at most to `end`). The scanners keep their position in a
/// member; stepping a local here lets the compiler keep it in a register, where a loop over
/// the member would store it back after every byte (a char read may alias it).
inline const char* SkipJsonSpace(const char* p, const char* end) {
  while (p < end && IsJsonSpace(*p)) ++p;
  return p;
}

/// The end of the bare token (a number or literal) at `p`: the first delimiter, or `end`. Reads
/// nothing past `end`. With AVX2, 16 bytes at a time while 16 remain: a byte is a delimiter when
/// the class of its low nibble and the class of its high nibble share a bit (one table lookup
/// each, pshufb). The classes: bit 0 for 0x09 0x0A 0x0D, bit 1 for 0x20 0x22 0x2C, bit 2 for
/// 0x3A, bit 3 for 0x5B 0x5D 0x7B 0x7D.
static inline const char* FindTokenEnd(const char* p, const char* end) {
#if defined(__AVX2__)
  const __m128i low_class = _mm_setr_epi8(2, 0, 2, 0, 0, 0, 0, 0, 0, 1, 5, 8, 2, 9, 0, 0);
  const __m128i high_class = _mm_setr_epi8(1, 0, 2, 4, 0, 8, 0, 8, 0, 0, 0, 0, 0, 0, 0, 0);
  const __m128i nibble = _mm_set1_epi8(0x0F);
  while (end - p >= 16) {
    const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
    const __m128i lo = _mm_shuffle_epi8(low_class, _mm_and_si128(v, nibble));
    const __m128i hi = _mm_shuffle_epi8(high_class, _mm_and_si128(_mm_srli_epi16(v, 4), nibble));
    const __m128i none = _mm_cmpeq_epi8(_mm_and_si128(lo, hi), _mm_setzero_si128());
    const uint32_t mask = static_cast<uint32_t>(_mm_movemask_epi8(none)) ^ 0xFFFFu;
    if (mask != 0) return p + __builtin_ctz(mask);
    p += 16;
  }
#endif
  while (p < end && !kJsonDelimiter[static_cast<unsigned char>(*p)]) ++p;
  return p;
}

/// JSON number grammar: 0 when `t` is not a number, 1 for an integer, 2 for a fraction or
/// exponent form.
inline int NumberShape(std::string_view t) {
  size_t i = 0;
  const size_t n = t.size();
  if (i < n && t[i] == '-') ++i;
  if (i >= n) return 0;
  auto digit = [&](size_t k) { return t[k] >= '0' && t[k] <= '9'; };
  if (t[i] == '0') {
    ++i;
  } else if (t[i] >= '1' && t[i] <= '9') {
    while (i < n && digit(i)) ++i;
  } else {
    return 0;
  }
  int shape = 1;
  if (i < n && t[i] == '.') {
    ++i;
    size_t s = i;
    while (i < n && digit(i)) ++i;
    if (i == s) return 0;
    shape = 2;
  }
  if (i < n && (t[i] == 'e' || t[i] == 'E')) {
    ++i;
    if (i < n && (t[i] == '+' || t[i] == '-')) ++i;
    size_t s = i;
    while (i < n && digit(i)) ++i;
    if (i == s) return 0;
    shape = 2;
  }
  return i == n ? shape : 0;
}

/// Jackson's non-numeric number tokens (allowNonNumericNumbers).
inline bool IsNonNumericToken(std::string_view t) {
  return t == "NaN" || t == "Infinity" || t == "+Infinity" || t == "-Infinity";
}

/// Bytes that AppendJsonString writes escaped: '"', '\\' and control bytes.
inline constexpr std::array<bool, 256> kJsonEscapedByte = [] {
  std::array<bool, 256> t{};
  for (int c = 0; c < 0x20; ++c) t[static_cast<size_t>(c)] = true;
  t['"'] = true;
  t['\\'] = true;
  return t;
}();

/// Append what AppendJsonString(s) writes between its quotes (its default, non-ASCII bytes as
/// they are) to `out`, a std::string or any output with `+=` of a char and a string_view. Byte
/// by byte, so a string may be escaped in pieces.
template <typename Out>
void AppendJsonEscaped(Out& out, std::string_view s) {
  static constexpr char kHex[] = "0123456789abcdef";
  size_t run = 0;
  for (size_t i = 0; i < s.size(); ++i) {
    const auto c = static_cast<unsigned char>(s[i]);
    if (!kJsonEscapedByte[c]) continue;
    if (i > run) out += s.substr(run, i - run);
    run = i + 1;
    switch (c) {
      case '"':
        out += std::string_view("\\\"");
        break;
      case '\\':
        out += std::string_view("\\\\");
        break;
      case '\n':
        out += std::string_view("\\n");
        break;
      case '\r':
        out += std::string_view("\\r");
        break;
      case '\t':
        out += std::string_view("\\t");
        break;
      case '\b':
        out += std::string_view("\\b");
        break;
      case '\f':
        out += std::string_view("\\f");
        break;
      default: {
        const char u[6] = {'\\', 'u', '0', '0', kHex[c >> 4], kHex[c & 15]};
        out += std::string_view(u, sizeof u);
        break;
      }
    }
  }
  if (s.size() > run) out += s.substr(run);
}

/// Append `s` as a quoted JSON string: the bytes AppendJsonString writes.
template <typename Out>
void AppendJsonQuoted(Out& out, std::string_view s) {
  out += '"';
  AppendJsonEscaped(out, s);
  out += '"';
}

/// Call `emit(piece)` for consecutive pieces that together are `raw` (checked JSON text) with
/// Jackson's bare NaN/Infinity tokens, which no strict reader takes, written as JSON strings.
template <typename Emit>
void ForEachStrictJsonPiece(std::string_view raw, Emit&& emit) {
  if (raw.find_first_of("NI") == std::string_view::npos) {
    emit(raw);
    return;
  }
  size_t run = 0;  // start of the bytes not yet emitted
  size_t i = 0;
  while (i < raw.size()) {
    const char c = raw[i];
    if (c == '"') {  // a string, whole
      size_t j = i + 1;
      while (j < raw.size() && raw[j] != '"') j += raw[j] == '\\' ? 2 : 1;
      i = j + 1;
      continue;
    }
    if (kJsonDelimiter[static_cast<unsigned char>(c)]) {
      ++i;
      continue;
    }
    size_t j = i;
    while (j < raw.size() && !kJsonDelimiter[static_cast<unsigned char>(raw[j])]) ++j;
    const std::string_view atom = raw.substr(i, j - i);
    if (IsNonNumericToken(atom)) {
      if (i > run) emit(raw.substr(run, i - run));
      emit(std::string_view("\""));
      emit(atom);
      emit(std::string_view("\""));
      run = j;
    }
    i = j;
  }
  if (raw.size() > run) emit(raw.substr(run));
}

/// Length of the valid UTF-8 sequence at `p` (a byte >= 0x80, before `end`), or 0.
inline int Utf8Sequence(const char* p, const char* end) {
  auto b = [&](int i) { return static_cast<unsigned char>(p[i]); };
  auto cont = [&](int i) { return p + i < end && (b(i) & 0xC0) == 0x80; };
  unsigned char c = b(0);
  if (c >= 0xC2 && c <= 0xDF) return cont(1) ? 2 : 0;
  if (c >= 0xE0 && c <= 0xEF) {
    if (!cont(1) || !cont(2)) return 0;
    if (c == 0xE0 && b(1) < 0xA0) return 0;
    if (c == 0xED && b(1) > 0x9F) return 0;
    return 3;
  }
  if (c >= 0xF0 && c <= 0xF4) {
    if (!cont(1) || !cont(2) || !cont(3)) return 0;
    if (c == 0xF0 && b(1) < 0x90) return 0;
    if (c == 0xF4 && b(1) > 0x8F) return 0;
    return 4;
  }
  return 0;
}

inline int HexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

/// Four hex digits at p (p + 4 <= end checked by the caller), or -1.
inline int Hex4(const char* p) {
  int v = 0;
  for (int i = 0; i < 4; ++i) {
    int h = HexValue(p[i]);
    if (h < 0) return -1;
    v = (v << 4) | h;
  }
  return v;
}

/// What the escape sequence at a backslash in a JSON string is.
enum class JsonEscape : uint8_t {
  kValid,
  kUnterminated,
  kInvalid,
  kInvalidUnicode,
  kLoneSurrogate
};

/// Check the escape at `q` (a backslash, before `end`); for kValid, `*length` is its length
/// (a surrogate pair is one escape of 12 bytes).
inline JsonEscape CheckJsonEscape(const char* q, const char* end, size_t* length) {
  if (q + 1 >= end) return JsonEscape::kUnterminated;
  const char e = q[1];
  if (e == '"' || e == '\\' || e == '/' || e == 'b' || e == 'f' || e == 'n' || e == 'r' ||
      e == 't') {
    *length = 2;
    return JsonEscape::kValid;
  }
  if (e != 'u') return JsonEscape::kInvalid;
  if (end - q < 6) return JsonEscape::kUnterminated;
  const int cp = Hex4(q + 2);
  if (cp < 0) return JsonEscape::kInvalidUnicode;
  if (cp >= 0xDC00 && cp <= 0xDFFF) return JsonEscape::kLoneSurrogate;
  if (cp >= 0xD800 && cp <= 0xDBFF) {
    if (end - q < 12 || q[6] != '\\' || q[7] != 'u') return JsonEscape::kLoneSurrogate;
    const int lo = Hex4(q + 8);
    if (lo < 0xDC00 || lo > 0xDFFF) return JsonEscape::kLoneSurrogate;
    *length = 12;
    return JsonEscape::kValid;
  }
  *length = 6;
  return JsonEscape::kValid;
}

/// The content of a string (the bytes between its quotes) whose escapes were checked, with the
/// escapes resolved, into `out` (replaced).
void UnescapeJsonString(std::string_view body, std::string& out);

}  // namespace sluice::data::internal
