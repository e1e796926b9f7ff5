// Hash maps and sets keyed by std::string that are looked up with a std::string_view, without
// building a string per lookup: the name indexes of the data plane (wide structs, CSV headers,
// Avro records and enums), which keep every lookup by name constant-time however wide the input.
#pragma once

#include <cstddef>
#include <functional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>

namespace sluice::data::internal {

struct StringViewHash {
  using is_transparent = void;
  size_t operator()(std::string_view s) const noexcept { return std::hash<std::string_view>{}(s); }
};

/// std::string -> V, found by std::string_view.
template <typename V>
using StringMap = std::unordered_map<std::string, V, StringViewHash, std::equal_to<>>;
/// std::string, found by std::string_view.
using StringSet = std::unordered_set<std::string, StringViewHash, std::equal_to<>>;

}  // namespace sluice::data::internal
