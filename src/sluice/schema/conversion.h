// What a conversion between schema languages could not carry over. Every dialect reports each
// lossy step as a note; nothing is dropped silently.
#pragma once

#include <string>
#include <vector>

#include "sluice/schema/field_path.h"

namespace sluice::schema {

/// One thing a conversion changed or dropped, at `path` (empty for the schema as a whole).
struct LossyNote {
  FieldPath path;
  std::string message;

  /// "path: message", or the message alone at the root.
  std::string ToString() const;
};

/// A conversion's result together with its lossy notes.
template <class T>
struct Converted {
  T value;
  std::vector<LossyNote> notes;
};

/// Collects notes while a converter walks a schema.
class NoteSink {
 public:
  void Add(const FieldPath& path, std::string message) {
    notes_.push_back(LossyNote{path, std::move(message)});
  }
  std::vector<LossyNote>& notes() { return notes_; }
  std::vector<LossyNote> Take() { return std::move(notes_); }

 private:
  std::vector<LossyNote> notes_;
};

}  // namespace sluice::schema
