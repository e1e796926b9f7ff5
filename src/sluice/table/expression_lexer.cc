// Splitting Spark SQL expression text into tokens, as SqlBaseLexer does: identifiers, quoted
// names, string literals with Spark's escapes, numbers with their type suffixes, symbols, and
// comments skipped.
#include <fmt/format.h>

#include <string>
#include <string_view>
#include <vector>

#include "sluice/base/strings.h"
#include "sluice/table/expression_internal.h"

namespace sluice::table::internal {

Unexpected<Error> ErrorAt(size_t offset, std::string_view what) {
  return InvalidArgument(fmt::format("{} at offset {}", what, offset));
}

bool IsIdentStart(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; }
bool IsIdentChar(char c) { return IsIdentStart(c) || (c >= '0' && c <= '9'); }

namespace {

bool IsDigit(char c) { return c >= '0' && c <= '9'; }

int HexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

class Lexer {
 public:
  explicit Lexer(std::string_view text) : text_(text) {}

  Result<std::vector<Token>> Run() {
    std::vector<Token> out;
    while (true) {
      SLUICE_TRY(SkipSpaceAndComments());
      Token t;
      t.offset = pos_;
      if (pos_ >= text_.size()) {
        out.push_back(std::move(t));
        return out;
      }
      const char c = text_[pos_];
      if (IsIdentStart(c)) {
        while (pos_ < text_.size() && IsIdentChar(text_[pos_])) ++pos_;
        t.kind = Tok::kIdent;
        t.value = std::string(text_.substr(t.offset, pos_ - t.offset));
      } else if (c == '`') {
        SLUICE_TRY(QuotedIdent(&t));
      } else if (c == '\'' || c == '"') {
        SLUICE_TRY(StringLiteral(&t));
      } else if (IsDigit(c) || (c == '.' && pos_ + 1 < text_.size() && IsDigit(text_[pos_ + 1]))) {
        SLUICE_TRY(Number(&t));
      } else {
        SLUICE_TRY(Symbol(&t));
      }
      t.length = pos_ - t.offset;
      out.push_back(std::move(t));
    }
  }

 private:
  Status SkipSpaceAndComments() {
    while (pos_ < text_.size()) {
      const char c = text_[pos_];
      if (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v') {
        ++pos_;
      } else if (c == '-' && pos_ + 1 < text_.size() && text_[pos_ + 1] == '-') {
        while (pos_ < text_.size() && text_[pos_] != '\n') ++pos_;
      } else if (c == '/' && pos_ + 1 < text_.size() && text_[pos_ + 1] == '*') {
        const size_t end = text_.find("*/", pos_ + 2);
        if (end == std::string_view::npos) return ErrorAt(pos_, "unterminated comment");
        pos_ = end + 2;
      } else {
        break;
      }
    }
    return Ok();
  }

  Status QuotedIdent(Token* t) {
    const size_t start = pos_++;
    std::string name;
    while (true) {
      if (pos_ >= text_.size()) return ErrorAt(start, "unterminated quoted name");
      const char c = text_[pos_++];
      if (c == '`') {
        if (pos_ < text_.size() && text_[pos_] == '`') {
          name += '`';
          ++pos_;
          continue;
        }
        break;
      }
      name += c;
    }
    if (name.empty()) return ErrorAt(start, "empty quoted name");
    t->kind = Tok::kQuotedIdent;
    t->value = std::move(name);
    return Ok();
  }

  // Spark's unescapeSQLString: backslash escapes, octal \ooo, \uXXXX; an unknown escape
  // stands for the character itself, and \% \_ keep their backslash (for LIKE).
  Status StringLiteral(Token* t) {
    const size_t start = pos_;
    const char quote = text_[pos_++];
    std::string s;
    while (true) {
      if (pos_ >= text_.size()) return ErrorAt(start, "unterminated string literal");
      const char c = text_[pos_++];
      if (c == quote) break;
      if (c != '\\') {
        s += c;
        continue;
      }
      if (pos_ >= text_.size()) return ErrorAt(start, "unterminated string literal");
      const char e = text_[pos_];
      if (e == 'u' && pos_ + 4 < text_.size()) {
        uint32_t cp = 0;
        bool ok = true;
        for (size_t k = 1; k <= 4; ++k) {
          const int h = HexValue(text_[pos_ + k]);
          if (h < 0) ok = false;
          cp = cp * 16 + static_cast<uint32_t>(h < 0 ? 0 : h);
        }
        if (ok) {
          AppendUtf8(s, cp);
          pos_ += 5;
          continue;
        }
      }
      if (e >= '0' && e <= '3' && pos_ + 2 < text_.size() && text_[pos_ + 1] >= '0' &&
          text_[pos_ + 1] <= '7' && text_[pos_ + 2] >= '0' && text_[pos_ + 2] <= '7') {
        s += static_cast<char>((e - '0') * 64 + (text_[pos_ + 1] - '0') * 8 +
                               (text_[pos_ + 2] - '0'));
        pos_ += 3;
        continue;
      }
      ++pos_;
      switch (e) {
        case '0':
          s += '\0';
          break;
        case 'b':
          s += '\b';
          break;
        case 'n':
          s += '\n';
          break;
        case 'r':
          s += '\r';
          break;
        case 't':
          s += '\t';
          break;
        case 'Z':
          s += '\x1A';
          break;
        case '%':
          s += "\\%";
          break;
        case '_':
          s += "\\_";
          break;
        default:
          s += e;
      }
    }
    t->kind = Tok::kString;
    t->value = std::move(s);
    return Ok();
  }

  Status Number(Token* t) {
    const size_t start = pos_;
    while (pos_ < text_.size() && IsDigit(text_[pos_])) ++pos_;
    if (pos_ < text_.size() && text_[pos_] == '.') {
      ++pos_;
      while (pos_ < text_.size() && IsDigit(text_[pos_])) ++pos_;
    }
    if (pos_ < text_.size() && (text_[pos_] == 'e' || text_[pos_] == 'E')) {
      size_t p = pos_ + 1;
      if (p < text_.size() && (text_[p] == '+' || text_[p] == '-')) ++p;
      if (p < text_.size() && IsDigit(text_[p])) {
        while (p < text_.size() && IsDigit(text_[p])) ++p;
        pos_ = p;
      }
    }
    // A suffix (L, S, Y, D, F, BD) is part of the token; any other letter glued on is an error.
    const size_t suffix = pos_;
    while (pos_ < text_.size() && IsIdentChar(text_[pos_])) ++pos_;
    const std::string_view sfx = text_.substr(suffix, pos_ - suffix);
    if (!sfx.empty() && !EqualsIgnoreCase(sfx, "L") && !EqualsIgnoreCase(sfx, "S") &&
        !EqualsIgnoreCase(sfx, "Y") && !EqualsIgnoreCase(sfx, "D") && !EqualsIgnoreCase(sfx, "F") &&
        !EqualsIgnoreCase(sfx, "BD")) {
      return ErrorAt(start, fmt::format("invalid number '{}'",
                                        EscapeForMessage(text_.substr(start, pos_ - start), 40)));
    }
    t->kind = Tok::kNumber;
    t->value = std::string(text_.substr(start, pos_ - start));
    return Ok();
  }

  Status Symbol(Token* t) {
    static constexpr std::string_view kSymbols[] = {
        "<=>", "<>", "<=", ">=", "!=", "==", "||", "(", ")", ",", ".", "[", "]", "+",
        "-",   "*",  "/",  "%",  "=",  "<",  ">",  "&", "|", "^", "~", "!", ":"};
    for (std::string_view s : kSymbols) {
      if (text_.substr(pos_, s.size()) == s) {
        t->kind = Tok::kSymbol;
        t->value = std::string(s);
        pos_ += s.size();
        return Ok();
      }
    }
    return ErrorAt(pos_, fmt::format("unexpected character '{}'",
                                     EscapeForMessage(text_.substr(pos_, 1), 10)));
  }

  std::string_view text_;
  size_t pos_ = 0;
};

}  // namespace

Result<std::vector<Token>> Tokenize(std::string_view text) { return Lexer(text).Run(); }

bool IsStructuralKeyword(std::string_view w) {
  static constexpr std::string_view kWords[] = {
      "AND",    "OR",   "NOT",    "IS",       "IN",   "BETWEEN", "LIKE",   "ILIKE", "RLIKE",
      "REGEXP", "CASE", "WHEN",   "THEN",     "ELSE", "END",     "NULL",   "TRUE",  "FALSE",
      "CAST",   "DIV",  "ESCAPE", "DISTINCT", "FROM", "AS",      "UNKNOWN"};
  for (std::string_view k : kWords) {
    if (EqualsIgnoreCase(w, k)) return true;
  }
  return false;
}

}  // namespace sluice::table::internal
