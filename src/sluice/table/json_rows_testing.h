// Rows of JSON lines compared as multisets of JSON values, for tests of readers: numbers by
// their exact decimal value (1.00 equals 1.0; 9223372036854775807 does not equal
// 9223372036854775806), objects regardless of member order. Needs only sluice::base.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "sluice/base/json.h"
#include "sluice/base/json_writer.h"

namespace sluice::table::testing {

/// A number's exact value as text: "-" when negative, the significant digits, "e" and the
/// position of the point (0.digits * 10^e). "0" for zero.
inline std::string ExactNumber(std::string_view s) {
  bool negative = false;
  size_t i = 0;
  if (i < s.size() && (s[i] == '-' || s[i] == '+')) negative = s[i++] == '-';
  std::string digits;
  long point = -1;
  for (; i < s.size() && ((s[i] >= '0' && s[i] <= '9') || s[i] == '.'); ++i) {
    if (s[i] == '.') {
      point = static_cast<long>(digits.size());
    } else {
      digits += s[i];
    }
  }
  long exp = 0;
  if (i < s.size() && (s[i] == 'e' || s[i] == 'E')) exp = std::stol(std::string(s.substr(i + 1)));
  if (point < 0) point = static_cast<long>(digits.size());
  size_t lead = 0;
  while (lead < digits.size() && digits[lead] == '0') ++lead;
  if (lead == digits.size()) return "0";
  std::string sig = digits.substr(lead);
  while (sig.back() == '0') sig.pop_back();
  return (negative ? "-" : "") + sig + "e" + std::to_string(point - static_cast<long>(lead) + exp);
}

/// A canonical text of a JSON value: members sorted by key, numbers exact.
inline std::string Canonical(const JsonValue& v) {
  switch (v.kind()) {
    case JsonValue::Kind::kNull:
      return "null";
    case JsonValue::Kind::kBool:
      return v.as_bool() ? "true" : "false";
    case JsonValue::Kind::kNumber:
      return "#" + ExactNumber(v.number_text());
    case JsonValue::Kind::kString:
      return ToJson(v);
    case JsonValue::Kind::kArray: {
      std::string out = "[";
      for (const JsonValue& item : v.items()) out += Canonical(item) + ",";
      return out + "]";
    }
    case JsonValue::Kind::kObject: {
      std::vector<std::string> members;
      for (const JsonMember& m : v.members()) {
        members.push_back(ToJson(JsonValue::String(m.key)) + ":" + Canonical(m.value));
      }
      std::sort(members.begin(), members.end());
      std::string out = "{";
      for (const std::string& m : members) out += m + ",";
      return out + "}";
    }
  }
  return "?";
}

/// The canonical texts of JSON lines, sorted: equal vectors are equal multisets of rows.
inline std::vector<std::string> CanonicalRows(const std::vector<std::string>& lines) {
  std::vector<std::string> out;
  for (const std::string& line : lines) {
    if (line.empty()) continue;
    auto v = ParseJson(line);
    EXPECT_TRUE(v.has_value()) << line;
    out.push_back(v.has_value() ? Canonical(*v) : "<bad json> " + line);
  }
  std::sort(out.begin(), out.end());
  return out;
}

inline std::vector<std::string> SplitLines(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    if (!line.empty()) out.push_back(line);
  }
  return out;
}

inline std::vector<std::string> ReadLines(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return SplitLines(ss.str());
}

}  // namespace sluice::table::testing
