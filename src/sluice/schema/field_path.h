// Field paths: one grammar for naming a place inside a schema, used by diffs, hints and reports.
//
//   path    := name step*
//   step    := '.' name | '[]' | '{key}' | '{value}'
//   name    := bare | quoted
//   bare    := one or more characters other than  . [ ] { } `  whitespace and control characters
//   quoted  := '`' ( any character but '`' | '``' )* '`'
//
// Examples: `order_id`, `shipping.city`, `movies_watched[].movie_id`, `tags{key}`,
// `prices{value}.amount`, `` `odd.name`.x ``. Printing quotes exactly the names that need it, so
// Parse(ToString(p)) == p for every path.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "sluice/base/result.h"

namespace sluice::schema {

struct PathSegment {
  enum class Kind : uint8_t { kField, kElement, kKey, kValue };
  Kind kind = Kind::kField;
  std::string name;  // kField only

  bool operator==(const PathSegment&) const = default;
};

class FieldPath {
 public:
  FieldPath() = default;  // the root
  explicit FieldPath(std::vector<PathSegment> segments) : segments_(std::move(segments)) {}

  /// Parse a path; kParseError names the offset of the problem.
  static Result<FieldPath> Parse(std::string_view text);

  /// A top-level field.
  static FieldPath Of(std::string name);

  /// Return this path extended by one step.
  FieldPath Child(std::string name) const;
  FieldPath Element() const;
  FieldPath Key() const;
  FieldPath Value() const;

  bool empty() const { return segments_.empty(); }
  size_t size() const { return segments_.size(); }
  const std::vector<PathSegment>& segments() const { return segments_; }
  const PathSegment& back() const { return segments_.back(); }
  FieldPath Parent() const;

  std::string ToString() const;

  bool operator==(const FieldPath&) const = default;
  bool operator<(const FieldPath& other) const { return ToString() < other.ToString(); }

 private:
  std::vector<PathSegment> segments_;
};

/// Return `name` as it appears in a path: bare if it can be, else in backquotes.
std::string QuoteFieldName(std::string_view name);

}  // namespace sluice::schema
