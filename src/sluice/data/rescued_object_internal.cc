#include "sluice/data/rescued_object_internal.h"

#include <algorithm>
#include <utility>

#include "sluice/base/json_writer.h"

namespace sluice::data::internal {

void RescuedObject::Clear() {
  members_.clear();
  owned_.clear();
  if (!taken_.empty()) {
    // Fresh tables rather than clear(): clearing keeps every bucket, and would cost the size of
    // the largest record on every record after it.
    taken_ = StringSet();
    next_suffix_ = StringMap<int>();
  }
}

bool RescuedObject::Taken(std::string_view name) const {
  if (members_.size() >= kIndexFrom) return taken_.contains(name);
  return std::any_of(members_.begin(), members_.end(),
                     [&](const Member& m) { return m.name == name; });
}

std::string RescuedObject::Unique(const std::string& name, int* suffix) const {
  *suffix = 0;
  if (!Taken(name)) return name;
  int k = 2;
  if (members_.size() >= kIndexFrom) {
    if (auto it = next_suffix_.find(name); it != next_suffix_.end()) k = it->second;
  }
  for (;; ++k) {
    std::string candidate = name + "#" + std::to_string(k);
    if (!Taken(candidate)) {
      *suffix = k;
      return candidate;
    }
  }
}

std::string RescuedObject::UniqueName(const std::string& name) const {
  int suffix = 0;
  return Unique(name, &suffix);
}

void RescuedObject::Push(Member m) {
  int suffix = 0;
  std::string unique = Unique(m.name, &suffix);
  if (suffix > 0 && members_.size() >= kIndexFrom) next_suffix_[m.name] = suffix + 1;
  m.name = std::move(unique);
  members_.push_back(std::move(m));
  if (members_.size() == kIndexFrom) {
    for (const Member& each : members_) taken_.insert(each.name);
  } else if (members_.size() > kIndexFrom) {
    taken_.insert(members_.back().name);
  }
}

void RescuedObject::Add(std::string name, std::string_view raw) {
  Member m;
  m.name = std::move(name);
  m.data = raw.data();
  m.size = raw.size();
  Push(std::move(m));
}

void RescuedObject::AddString(std::string name, std::string_view text) {
  Member m;
  m.name = std::move(name);
  m.owned = true;
  m.owned_at = owned_.size();
  AppendJsonString(owned_, text);
  m.size = owned_.size() - m.owned_at;
  Push(std::move(m));
}

}  // namespace sluice::data::internal
