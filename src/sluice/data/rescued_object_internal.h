// The rescued-data object of one record, as the validator builds it: one member per value that
// did not fit, named after its place, each name unique in the record (`#2`, `#3`, ... for a
// place rescued again). Values stay views of the record's own text until the object is written,
// once, straight into the output line as a JSON string: nothing is copied or escaped twice, and
// names are checked for uniqueness with an index once a record rescues many values, so a record
// with 100k rescued keys costs time and memory in proportion to its size.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "sluice/data/json_text_internal.h"
#include "sluice/data/name_index_internal.h"

namespace sluice::data::internal {

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
