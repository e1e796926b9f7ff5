// Spark DDL: column lists and data types as Spark's SqlBaseParser accepts them
// (`colTypeList`, `dataType`, `complexColTypeList`), and `StructType.toDDL` back.
#include <fmt/format.h>

#include "sluice/base/strings.h"
#include "sluice/dialects/spark/spark.h"
#include "sluice/dialects/spark/spark_internal.h"

namespace sluice::dialects::spark {

using schema::Field;
using schema::FieldPath;
using schema::NoteSink;
using schema::Type;
using schema::TypeKind;

namespace {

struct Token {
  enum class Kind : uint8_t { kIdent, kQuotedIdent, kString, kInteger, kPunct, kEnd };
  Kind kind = Kind::kEnd;
  std::string text;  // identifier (unquoted), string value, digits, or the punctuation
  size_t offset = 0;
};

class Lexer {
 public:
  explicit Lexer(std::string_view text) : text_(text) {}

  Result<std::vector<Token>> Run() {
    std::vector<Token> out;
    while (true) {
      SLUICE_TRY(SkipSpaceAndComments());
      if (pos_ >= text_.size()) {
        out.push_back(Token{Token::Kind::kEnd, "", pos_});
        return out;
      }
      size_t start = pos_;
      char c = text_[pos_];
      if (c == '`') {
        std::string name;
        ++pos_;
        while (true) {
          if (pos_ >= text_.size()) return ErrorAt(start, "unterminated backquoted name");
          if (text_[pos_] == '`') {
            if (pos_ + 1 < text_.size() && text_[pos_ + 1] == '`') {
              name += '`';
              pos_ += 2;
              continue;
            }
            ++pos_;
            break;
          }
          name += text_[pos_++];
        }
        if (!IsValidUtf8(name)) return ErrorAt(start, "name is not valid UTF-8");
        out.push_back(Token{Token::Kind::kQuotedIdent, std::move(name), start});
      } else if (c == '\'' || c == '"') {
        SLUICE_ASSIGN_OR_RETURN(std::string s, ReadString(c));
        // Adjacent literals concatenate, as in Spark SQL.
        if (!out.empty() && out.back().kind == Token::Kind::kString) {
          out.back().text += s;
        } else {
          out.push_back(Token{Token::Kind::kString, std::move(s), start});
        }
      } else if (IsIdentChar(c)) {
        while (pos_ < text_.size() && IsIdentChar(text_[pos_])) ++pos_;
        std::string word(text_.substr(start, pos_ - start));
        bool digits = word.find_first_not_of("0123456789") == std::string::npos;
        out.push_back(
            Token{digits ? Token::Kind::kInteger : Token::Kind::kIdent, std::move(word), start});
      } else if (c == '<' || c == '>' || c == '(' || c == ')' || c == ',' || c == ':' || c == '-' ||
                 c == '.' || c == '+') {
        ++pos_;
        out.push_back(Token{Token::Kind::kPunct, std::string(1, c), start});
      } else {
        unsigned char u = static_cast<unsigned char>(c);
        return ErrorAt(start, u >= 0x20 && u < 0x7f ? fmt::format("unexpected character '{}'", c)
                                                    : fmt::format("unexpected byte 0x{:02x}", u));
      }
    }
  }

  Unexpected<Error> ErrorAt(size_t at, std::string_view what) const {
    return ParseError(fmt::format("{} (offset {}): {}", DescribeOffset(text_, at), at, what));
  }

 private:
  static bool IsIdentChar(char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
  }

  Status SkipSpaceAndComments() {
    while (pos_ < text_.size()) {
      char c = text_[pos_];
      if (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f') {
        ++pos_;
      } else if (text_.substr(pos_, 2) == "--") {
        while (pos_ < text_.size() && text_[pos_] != '\n') ++pos_;
      } else if (text_.substr(pos_, 2) == "/*") {
        size_t end = text_.find("*/", pos_ + 2);
        if (end == std::string_view::npos) return ErrorAt(pos_, "unterminated comment");
        pos_ = end + 2;
      } else {
        break;
      }
    }
    return Ok();
  }

  // Spark unescapes string literals (spark.sql.parser.escapedStringLiterals=false).
  Result<std::string> ReadString(char quote) {
    size_t start = pos_;
    ++pos_;
    std::string out;
    while (true) {
      if (pos_ >= text_.size()) return ErrorAt(start, "unterminated string literal");
      char c = text_[pos_++];
      if (c == quote) break;
      if (c != '\\') {
        out += c;
        continue;
      }
      if (pos_ >= text_.size()) return ErrorAt(start, "unterminated string literal");
      char e = text_[pos_++];
      switch (e) {
        case '0':
          out += '\0';
          break;
        case 'b':
          out += '\b';
          break;
        case 'n':
          out += '\n';
          break;
        case 'r':
          out += '\r';
          break;
        case 't':
          out += '\t';
          break;
        case 'Z':
          out += '\x1a';
          break;
        case 'u': {
          if (pos_ + 4 > text_.size()) return ErrorAt(pos_ - 2, "truncated \\u escape");
          uint32_t cp = 0;
          for (int i = 0; i < 4; ++i) {
            char h = text_[pos_ + i];
            int v = (h >= '0' && h <= '9')   ? h - '0'
                    : (h >= 'a' && h <= 'f') ? h - 'a' + 10
                    : (h >= 'A' && h <= 'F') ? h - 'A' + 10
                                             : -1;
            if (v < 0) return ErrorAt(pos_ + i, "invalid \\u escape");
            cp = cp * 16 + static_cast<uint32_t>(v);
          }
          pos_ += 4;
          if (cp >= 0xD800 && cp <= 0xDFFF) return ErrorAt(pos_ - 6, "surrogate in \\u escape");
          AppendUtf8(out, cp);
          break;
        }
        default:
          out += e;  // \' \" \\ and any other escaped character stand for themselves
      }
    }
    if (!IsValidUtf8(out)) return ErrorAt(start, "string literal is not valid UTF-8");
    return out;
  }

  std::string_view text_;
  size_t pos_ = 0;
};

class DdlParser {
 public:
  DdlParser(std::string_view text, std::vector<Token> tokens, NoteSink* notes)
      : lexer_(text), tokens_(std::move(tokens)), notes_(notes) {}

  // colTypeList EOF
  Result<std::vector<Field>> ParseColumnList() {
    std::vector<Field> fields;
    if (Peek().kind == Token::Kind::kEnd) return Error(Peek(), "expected a column definition");
    while (true) {
      SLUICE_ASSIGN_OR_RETURN(Field f, ParseColumn(/*colon_allowed=*/true, FieldPath(), 0));
      fields.push_back(std::move(f));
      if (IsPunct(Peek(), ",")) {
        Next();
        continue;
      }
      break;
    }
    if (Peek().kind != Token::Kind::kEnd) {
      return Error(Peek(), fmt::format("expected ',' or the end, found {}", Describe(Peek())));
    }
    return fields;
  }

  // dataType EOF
  Result<schema::TypePtr> ParseSingleType() {
    SLUICE_ASSIGN_OR_RETURN(schema::TypePtr t, ParseType(FieldPath(), 0));
    if (Peek().kind != Token::Kind::kEnd) {
      return Error(Peek(), fmt::format("unexpected {} after the type", Describe(Peek())));
    }
    return t;
  }

 private:
  const Token& Peek() const { return tokens_[pos_]; }
  const Token& Next() {
    const Token& t = tokens_[pos_];
    if (t.kind != Token::Kind::kEnd) ++pos_;
    return t;
  }
  static bool IsPunct(const Token& t, std::string_view p) {
    return t.kind == Token::Kind::kPunct && t.text == p;
  }
  static bool IsKeyword(const Token& t, std::string_view kw) {
    return t.kind == Token::Kind::kIdent && EqualsIgnoreCase(t.text, kw);
  }
  static std::string Describe(const Token& t) {
    switch (t.kind) {
      case Token::Kind::kEnd:
        return "the end of input";
      case Token::Kind::kString:
        return "a string literal";
      case Token::Kind::kIdent:
      case Token::Kind::kInteger:
      case Token::Kind::kPunct:
        return "'" + EscapeForMessage(t.text, 40) + "'";
      case Token::Kind::kQuotedIdent:
        return "`" + EscapeForMessage(t.text, 40) + "`";
    }
    return "?";
  }
  Unexpected<sluice::Error> Error(const Token& at, std::string_view what) const {
    return lexer_.ErrorAt(at.offset, what);
  }
  Status Expect(std::string_view punct) {
    if (!IsPunct(Peek(), punct)) {
      return Error(Peek(), fmt::format("expected '{}', found {}", punct, Describe(Peek())));
    }
    Next();
    return Ok();
  }

  Result<std::string> ParseIdentifier() {
    const Token& t = Peek();
    if (t.kind == Token::Kind::kIdent || t.kind == Token::Kind::kQuotedIdent ||
        t.kind == Token::Kind::kInteger) {
      Next();
      if (t.text.empty()) return Error(t, "empty column name");
      return t.text;
    }
    return Error(t, fmt::format("expected a column name, found {}", Describe(t)));
  }

  // colType / complexColType: name ':'? dataType (NOT NULL)? (COMMENT 'x')?
  Result<Field> ParseColumn(bool colon_allowed, const FieldPath& parent, int depth) {
    SLUICE_ASSIGN_OR_RETURN(std::string name, ParseIdentifier());
    FieldPath path = parent.Child(name);
    if (colon_allowed && IsPunct(Peek(), ":")) Next();
    SLUICE_ASSIGN_OR_RETURN(schema::TypePtr type, ParseType(path, depth));
    Field field(std::move(name), std::move(type), true);
    // Spark's grammar puts NOT NULL before COMMENT; either order is accepted here.
    bool saw_not_null = false;
    bool saw_comment = false;
    while (true) {
      if (IsKeyword(Peek(), "NOT") && !saw_not_null) {
        Next();
        if (!IsKeyword(Peek(), "NULL")) return Error(Peek(), "expected NULL after NOT");
        Next();
        field.set_nullable(false);
        saw_not_null = true;
      } else if (IsKeyword(Peek(), "DEFAULT") && !field.default_value().has_value()) {
        // toDDL writes DEFAULT for CURRENT_DEFAULT metadata; only literals are read back.
        Next();
        SLUICE_ASSIGN_OR_RETURN(JsonValue v, ParseLiteral());
        field.set_default_value(std::move(v));
      } else if (IsKeyword(Peek(), "COMMENT") && !saw_comment) {
        Next();
        if (Peek().kind != Token::Kind::kString) {
          return Error(Peek(), "expected a string literal after COMMENT");
        }
        field.set_doc(Next().text);
        saw_comment = true;
      } else {
        break;
      }
    }
    return field;
  }

  // A literal after DEFAULT: 'text', [-]digits[.digits], TRUE, FALSE, NULL.
  Result<JsonValue> ParseLiteral() {
    const Token& t = Peek();
    if (t.kind == Token::Kind::kString) {
      Next();
      return JsonValue::String(t.text);
    }
    if (IsKeyword(t, "TRUE") || IsKeyword(t, "FALSE")) {
      Next();
      return JsonValue::Bool(IsKeyword(t, "TRUE"));
    }
    if (IsKeyword(t, "NULL")) {
      Next();
      return JsonValue::Null();
    }
    std::string num;
    if (IsPunct(Peek(), "-") || IsPunct(Peek(), "+")) {
      if (Next().text == "-") num += '-';
    }
    if (Peek().kind != Token::Kind::kInteger) {
      return Error(Peek(), "DEFAULT takes a literal: a string, number, TRUE, FALSE or NULL");
    }
    num += Next().text;
    if (IsPunct(Peek(), ".") && tokens_[pos_ + 1].kind == Token::Kind::kInteger) {
      Next();
      num += '.';
      num += Next().text;
    }
    // Strip leading zeros so the text stays a valid JSON number.
    size_t digits = num[0] == '-' ? 1 : 0;
    while (num.size() > digits + 1 && num[digits] == '0' && num[digits + 1] != '.') {
      num.erase(digits, 1);
    }
    return JsonValue::NumberText(num);
  }

  Result<int> ParseIntParam() {
    const Token& t = Peek();
    if (t.kind != Token::Kind::kInteger) {
      return Error(t, fmt::format("expected a number, found {}", Describe(t)));
    }
    Next();
    if (t.text.size() > 9) return Error(t, "number too large");
    return std::stoi(t.text);
  }

  Result<schema::TypePtr> Check(Result<schema::TypePtr> r, const Token& at) {
    if (!r.has_value()) return Error(at, r.error().message());
    return r;
  }

  Result<schema::TypePtr> ParseType(const FieldPath& path, int depth) {
    if (depth >= schema::kMaxNestingDepth) {
      return Error(Peek(),
                   fmt::format("types nest deeper than {} levels", schema::kMaxNestingDepth));
    }
    const Token& t = Peek();
    if (t.kind != Token::Kind::kIdent) {
      return Error(t, fmt::format("expected a data type, found {}", Describe(t)));
    }
    Next();
    std::string kw = AsciiUpper(t.text);
    if (kw == "ARRAY") {
      SLUICE_TRY(Expect("<"));
      SLUICE_ASSIGN_OR_RETURN(schema::TypePtr elem, ParseType(path.Element(), depth + 1));
      SLUICE_TRY(Expect(">"));
      return Check(Type::Array(std::move(elem), true), t);
    }
    if (kw == "MAP") {
      SLUICE_TRY(Expect("<"));
      SLUICE_ASSIGN_OR_RETURN(schema::TypePtr key, ParseType(path.Key(), depth + 1));
      SLUICE_TRY(Expect(","));
      SLUICE_ASSIGN_OR_RETURN(schema::TypePtr value, ParseType(path.Value(), depth + 1));
      SLUICE_TRY(Expect(">"));
      return Check(Type::Map(std::move(key), std::move(value), true), t);
    }
    if (kw == "STRUCT") {
      SLUICE_TRY(Expect("<"));
      std::vector<Field> fields;
      if (!IsPunct(Peek(), ">")) {
        while (true) {
          SLUICE_ASSIGN_OR_RETURN(Field f, ParseColumn(true, path, depth + 1));
          fields.push_back(std::move(f));
          if (IsPunct(Peek(), ",")) {
            Next();
            continue;
          }
          break;
        }
      }
      SLUICE_TRY(Expect(">"));
      return Check(Type::Struct(std::move(fields)), t);
    }
    if (kw == "INTERVAL" || kw == "VARIANT" || kw == "GEOMETRY" || kw == "GEOGRAPHY" ||
        kw == "OBJECT") {
      auto e = Error(t, fmt::format("Spark type {} has no equivalent in sluice's model", kw));
      return Fail(ErrorCode::kUnimplemented, e.error().message());
    }
    // Primitive, with optional (n[, m]) parameters.
    std::vector<int> params;
    const Token& param_at = Peek();
    if (IsPunct(Peek(), "(")) {
      Next();
      while (true) {
        SLUICE_ASSIGN_OR_RETURN(int v, ParseIntParam());
        params.push_back(v);
        if (IsPunct(Peek(), ",")) {
          Next();
          continue;
        }
        break;
      }
      SLUICE_TRY(Expect(")"));
    }
    auto no_params = [&](schema::TypePtr type) -> Result<schema::TypePtr> {
      if (!params.empty()) return Error(param_at, fmt::format("type {} takes no parameters", kw));
      return type;
    };
    if (kw == "BOOLEAN") return no_params(Type::Boolean());
    if (kw == "TINYINT" || kw == "BYTE") return no_params(Type::Int8());
    if (kw == "SMALLINT" || kw == "SHORT") return no_params(Type::Int16());
    if (kw == "INT" || kw == "INTEGER") return no_params(Type::Int32());
    if (kw == "BIGINT" || kw == "LONG") return no_params(Type::Int64());
    if (kw == "FLOAT" || kw == "REAL") return no_params(Type::Float32());
    if (kw == "DOUBLE") return no_params(Type::Float64());
    if (kw == "DATE") return no_params(Type::Date());
    if (kw == "TIMESTAMP" || kw == "TIMESTAMP_LTZ") return no_params(Type::Timestamp());
    if (kw == "TIMESTAMP_NTZ") return no_params(Type::TimestampNtz());
    if (kw == "BINARY") return no_params(Type::Binary());
    if (kw == "VOID") return no_params(Type::Null());
    if (kw == "STRING") {
      if (!params.empty()) return Error(param_at, "type STRING takes no parameters");
      if (IsKeyword(Peek(), "COLLATE")) {
        Next();
        SLUICE_ASSIGN_OR_RETURN(std::string collation, ParseIdentifier());
        if (notes_ != nullptr) {
          notes_->Add(path,
                      fmt::format("collation {} dropped: the model has no collations", collation));
        }
      }
      return Type::String();
    }
    if (kw == "CHAR" || kw == "CHARACTER" || kw == "VARCHAR") {
      if (params.size() != 1) return Error(param_at, fmt::format("{} needs one length", kw));
      return Check(kw == "VARCHAR" ? Type::Varchar(params[0]) : Type::Char(params[0]), param_at);
    }
    if (kw == "DECIMAL" || kw == "DEC" || kw == "NUMERIC") {
      if (params.size() > 2) return Error(param_at, "DECIMAL takes at most (precision, scale)");
      int p = params.empty() ? 10 : params[0];
      int s = params.size() < 2 ? 0 : params[1];
      return Check(Type::Decimal(p, s), params.empty() ? t : param_at);
    }
    return Error(t, fmt::format("unknown data type '{}'", EscapeForMessage(t.text, 60)));
  }

  Lexer lexer_;
  std::vector<Token> tokens_;
  size_t pos_ = 0;
  NoteSink* notes_;
};

}  // namespace

Result<schema::TypePtr> ParseDataType(std::string_view text) {
  Lexer lexer(text);
  SLUICE_ASSIGN_OR_RETURN(std::vector<Token> tokens, lexer.Run());
  NoteSink ignored;
  DdlParser parser(text, std::move(tokens), &ignored);
  return parser.ParseSingleType();
}

Result<Converted<SchemaPtr>> ReadDdl(std::string_view text) {
  if (!IsValidUtf8(text)) {
    return ParseError(fmt::format("offset {}: DDL is not valid UTF-8", FindInvalidUtf8(text)));
  }
  Lexer lexer(text);
  SLUICE_ASSIGN_OR_RETURN(std::vector<Token> tokens, lexer.Run());
  NoteSink notes;
  // DataType.fromDDL: a single STRUCT<...> type first, then a column list.
  bool starts_with_struct = tokens.size() > 1 && tokens[0].kind == Token::Kind::kIdent &&
                            EqualsIgnoreCase(tokens[0].text, "STRUCT") &&
                            tokens[1].kind == Token::Kind::kPunct && tokens[1].text == "<";
  if (starts_with_struct) {
    DdlParser single(text, tokens, &notes);
    SLUICE_ASSIGN_OR_RETURN(schema::TypePtr t, single.ParseSingleType());
    SLUICE_ASSIGN_OR_RETURN(SchemaPtr s, schema::Schema::FromStruct(std::move(t)));
    return Converted<SchemaPtr>{std::move(s), notes.Take()};
  }
  DdlParser parser(text, std::move(tokens), &notes);
  SLUICE_ASSIGN_OR_RETURN(std::vector<Field> fields, parser.ParseColumnList());
  auto s = schema::Schema::Make(std::move(fields));
  if (!s.has_value()) return ParseError(s.error().message());
  return Converted<SchemaPtr>{std::move(*s), notes.Take()};
}

Converted<std::string> WriteDdl(const schema::Schema& s) {
  NoteSink notes;
  std::string out;
  if (s.fields().empty()) {
    notes.Add(FieldPath(),
              "a schema with no columns is an empty DDL string, which Spark's "
              "parser (and sluice's) cannot read back");
  }
  for (size_t i = 0; i < s.fields().size(); ++i) {
    const Field& f = s.fields()[i];
    FieldPath path = FieldPath::Of(f.name());
    if (i > 0) out += ',';
    out += QuoteIdentifier(f.name());
    out += ' ';
    out += DataTypeSql(*f.type(), &notes, path);
    if (!f.nullable()) out += " NOT NULL";
    if (f.default_value().has_value()) {
      auto lit = internal::DefaultToSqlLiteral(*f.default_value());
      if (lit.has_value()) {
        out += " DEFAULT " + *lit;
      } else {
        notes.Add(path, "default value has no SQL literal form; dropped");
      }
    }
    if (f.doc().has_value()) out += " COMMENT '" + internal::EscapeSqlString(*f.doc()) + "'";
    if (f.metadata().size() > 0)
      notes.Add(path, "field metadata cannot be written in DDL; dropped");
  }
  schema::VisitFields(s, [&](const FieldPath& path, const Field& f) {
    if (path.size() > 1 && f.default_value().has_value()) {
      notes.Add(path, "nested default value cannot be written in DDL; dropped");
    }
  });
  return Converted<std::string>{std::move(out), notes.Take()};
}

}  // namespace sluice::dialects::spark
