#include "sluice/schema/field_path.h"

#include <fmt/format.h>

#include "sluice/base/strings.h"

namespace sluice::schema {

namespace {

bool IsBareChar(unsigned char c) {
  switch (c) {
    case '.':
    case '[':
    case ']':
    case '{':
    case '}':
    case '`':
    case ' ':
    case 0x7f:
      return false;
    default:
      return c > 0x20;
  }
}

}  // namespace

std::string QuoteFieldName(std::string_view name) {
  bool bare = !name.empty();
  for (char c : name) {
    if (!IsBareChar(static_cast<unsigned char>(c))) {
      bare = false;
      break;
    }
  }
  if (bare) return std::string(name);
  std::string out = "`";
  for (char c : name) {
    if (c == '`') out += '`';
    out += c;
  }
  out += '`';
  return out;
}

FieldPath FieldPath::Of(std::string name) { return FieldPath().Child(std::move(name)); }

FieldPath FieldPath::Child(std::string name) const {
  FieldPath p = *this;
  p.segments_.push_back(PathSegment{PathSegment::Kind::kField, std::move(name)});
  return p;
}

FieldPath FieldPath::Element() const {
  FieldPath p = *this;
  p.segments_.push_back(PathSegment{PathSegment::Kind::kElement, {}});
  return p;
}

FieldPath FieldPath::Key() const {
  FieldPath p = *this;
  p.segments_.push_back(PathSegment{PathSegment::Kind::kKey, {}});
  return p;
}

FieldPath FieldPath::Value() const {
  FieldPath p = *this;
  p.segments_.push_back(PathSegment{PathSegment::Kind::kValue, {}});
  return p;
}

FieldPath FieldPath::Parent() const {
  FieldPath p = *this;
  if (!p.segments_.empty()) p.segments_.pop_back();
  return p;
}

std::string FieldPath::ToString() const {
  std::string out;
  for (size_t i = 0; i < segments_.size(); ++i) {
    const PathSegment& s = segments_[i];
    switch (s.kind) {
      case PathSegment::Kind::kField:
        if (i > 0) out += '.';
        out += QuoteFieldName(s.name);
        break;
      case PathSegment::Kind::kElement:
        out += "[]";
        break;
      case PathSegment::Kind::kKey:
        out += "{key}";
        break;
      case PathSegment::Kind::kValue:
        out += "{value}";
        break;
    }
  }
  return out;
}

Result<FieldPath> FieldPath::Parse(std::string_view text) {
  auto fail = [&](size_t at, std::string_view what) {
    return ParseError(fmt::format("invalid field path \"{}\" at offset {}: {}",
                                  EscapeForMessage(text), at, what));
  };
  std::vector<PathSegment> segs;
  size_t i = 0;
  auto parse_name = [&]() -> Result<std::string> {
    if (i < text.size() && text[i] == '`') {
      std::string name;
      size_t start = i;
      ++i;
      while (true) {
        if (i >= text.size()) return fail(start, "unterminated backquote");
        if (text[i] == '`') {
          if (i + 1 < text.size() && text[i + 1] == '`') {
            name += '`';
            i += 2;
            continue;
          }
          ++i;
          break;
        }
        name += text[i++];
      }
      if (name.empty()) return fail(start, "empty field name");
      return name;
    }
    size_t start = i;
    while (i < text.size() && IsBareChar(static_cast<unsigned char>(text[i]))) ++i;
    if (i == start) return fail(start, "expected a field name");
    return std::string(text.substr(start, i - start));
  };

  if (text.empty()) return fail(0, "empty path");
  SLUICE_ASSIGN_OR_RETURN(std::string first, parse_name());
  segs.push_back(PathSegment{PathSegment::Kind::kField, std::move(first)});
  while (i < text.size()) {
    char c = text[i];
    if (c == '.') {
      ++i;
      SLUICE_ASSIGN_OR_RETURN(std::string name, parse_name());
      segs.push_back(PathSegment{PathSegment::Kind::kField, std::move(name)});
    } else if (text.substr(i, 2) == "[]") {
      i += 2;
      segs.push_back(PathSegment{PathSegment::Kind::kElement, {}});
    } else if (text.substr(i, 5) == "{key}") {
      i += 5;
      segs.push_back(PathSegment{PathSegment::Kind::kKey, {}});
    } else if (text.substr(i, 7) == "{value}") {
      i += 7;
      segs.push_back(PathSegment{PathSegment::Kind::kValue, {}});
    } else {
      return fail(i, "expected '.', '[]', '{key}' or '{value}'");
    }
  }
  return FieldPath(std::move(segs));
}

}  // namespace sluice::schema
