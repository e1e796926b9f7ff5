// The web UI's static files (index.html, app.js, app.css, ...), built into the binary from
// src/sluice/ui/assets/ by embed_assets.cmake.
#pragma once

#include <cstddef>
#include <span>
#include <string_view>

namespace sluice::ui {

struct Asset {
  const char* name;          // the path under assets/: "index.html", "app.js"
  const char* content_type;  // "text/javascript; charset=utf-8"
  const char* etag;          // strong, quoted: "\"3f2a...\""
  const char* data;
  size_t size;

  std::string_view bytes() const { return {data, size}; }
};

/// Every asset, sorted by name.
std::span<const Asset> Assets();

/// The asset named `name`, or nullptr.
const Asset* FindAsset(std::string_view name);

}  // namespace sluice::ui
