// Regular expressions for patternProperties: an ECMA-262 subset compiled for a Pike VM, so a
// hostile pattern costs time linear in the subject, never exponential, and no recursion on the
// subject's length. Shared by the JSON Schema comparison and internal::RegexSearch; not for other
// modules.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vector>

#include "sluice/base/result.h"

namespace sluice::dialects::jsonschema::internal::regex {

struct Range {
  uint32_t lo;
  uint32_t hi;
};

struct CharSet {
  std::vector<Range> ranges;  // sorted and merged once Normalize ran

  void Add(uint32_t lo, uint32_t hi);
  void AddAll(const CharSet& other);
  void Normalize();
  void Negate();
  bool Contains(uint32_t c) const;
};

enum class Op : uint8_t { kChar, kSplit, kJump, kMatch, kBegin, kEnd, kWordBoundary, kNotWord };

struct Inst {
  Op op;
  uint32_t x = 0;  // kChar: the set; kSplit/kJump: a target
  uint32_t y = 0;  // kSplit: the other target
};

struct Program {
  std::vector<Inst> insts;
  std::vector<CharSet> sets;
};

/// UTF-8 to code points; a byte that does not start a valid sequence stands for itself.
std::vector<uint32_t> Decode(std::string_view s);

/// Compile `pattern`. Errors: kInvalidArgument for a malformed pattern, kUnimplemented for a
/// feature outside the subset (lookaround, backreferences, \p classes, too large a program).
Result<Program> Compile(std::string_view pattern);

/// Whether `program` matches somewhere in `text` (unanchored search). Each step of the Pike VM
/// adds to *steps; past `max_steps` it stops with kInvalidArgument.
Result<bool> Run(const Program& program, const std::vector<uint32_t>& text, size_t* steps,
                 size_t max_steps);

}  // namespace sluice::dialects::jsonschema::internal::regex
