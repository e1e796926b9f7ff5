// The rescued-data object of one record, as the validator builds it: one member per value that
// did not fit, named after its place, each name unique in the record (`#2`, `#3`, ... for a
// place rescued again). Values stay views of the record's own text until the object is written,
// once, straight into the output line as a JSON string: nothing is copied or escaped twice, and
// names are checked for uniqueness with an index once a record rescues many values, so a record
// with 100k rescued keys costs time and memory in proportion to its size.
#pragma once

#include <array>
#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "sluice/data/name_index_internal.h"

namespace sluice::data::internal {

/// Bytes that end a bare JSON token (a number or literal): structure, quotes and whitespace.
inline constexpr std::array<bool, 256> kJsonDelimiter = [] {
  std::array<bool, 256> t{};
  for (char c : std::string_view("{}[]:,\" \t\r\n")) t[static_cast<unsigned char>(c)] = true;
  return t;
}();

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

/// The members of one record's rescued object. Not thread-safe; one per validator.
class RescuedObject {
 public:
  /// Forget every member. The name index of a record that had many is freed, so the records
  /// after it pay nothing for it.
  void Clear();
  bool empty() const { return members_.empty(); }
  size_t size() const { return members_.size(); }

  /// Add a member named `name` (made unique) whose value is the JSON text `raw`, a view that
  /// must stay valid until the members are written.
  void Add(std::string name, std::string_view raw);
  /// Add a member named `name` (made unique) whose value is `text` as a JSON string.
  void AddString(std::string name, std::string_view text);

  /// `name`, or `name#2`, `name#3`, ...: the first that no member is named.
  std::string UniqueName(const std::string& name) const;

  /// Append `"name":value,...` for every member, in the order they were added, escaped as the
  /// content of a JSON string (AppendJsonEscaped), with NaN/Infinity tokens made strings.
  template <typename Out>
  void AppendEscapedMembers(Out& out) {
    for (size_t i = 0; i < members_.size(); ++i) {
      const Member& m = members_[i];
      if (i > 0) out += ',';
      scratch_.clear();
      AppendJsonQuoted(scratch_, m.name);
      AppendJsonEscaped(out, scratch_);
      out += ':';
      ForEachStrictJsonPiece(Raw(m),
                             [&](std::string_view piece) { AppendJsonEscaped(out, piece); });
    }
  }

 private:
  struct Member {
    std::string name;
    // The value: `size` bytes at `data`, or, when it was made here, at owned_[owned_at].
    const char* data = nullptr;
    size_t size = 0;
    size_t owned_at = 0;
    bool owned = false;
  };
  // Below this many members a name is checked by a scan (most records rescue a few values).
  static constexpr size_t kIndexFrom = 16;

  bool Taken(std::string_view name) const;
  // The unique name for `name` and the suffix it took (0 for none).
  std::string Unique(const std::string& name, int* suffix) const;
  void Push(Member m);
  std::string_view Raw(const Member& m) const {
    return m.owned ? std::string_view(owned_).substr(m.owned_at, m.size)
                   : std::string_view(m.data, m.size);
  }

  std::vector<Member> members_;
  std::string owned_;
  // From kIndexFrom members on: every name, and per name given a suffix the next one to try
  // (all lower ones are taken, and names are only ever added).
  StringSet taken_;
  StringMap<int> next_suffix_;
  std::string scratch_;
};

}  // namespace sluice::data::internal
