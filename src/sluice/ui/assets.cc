#include "sluice/ui/assets.h"

#include <algorithm>

namespace sluice::ui {

const Asset* FindAsset(std::string_view name) {
  std::span<const Asset> all = Assets();
  auto it = std::lower_bound(all.begin(), all.end(), name,
                             [](const Asset& a, std::string_view n) { return a.name < n; });
  if (it == all.end() || it->name != name) return nullptr;
  return &*it;
}

}  // namespace sluice::ui
