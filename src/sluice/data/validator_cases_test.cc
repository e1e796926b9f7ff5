// Validator cases as data: every `*.cases` file in testdata/validator/ holds records and what
// RecordValidator must make of each, so that a new case is a new block in a file, not new C++.
// docs/validation.md ("Adding a validator case") is the short guide; this is the whole format.
//
// A file is a list of blocks separated by blank lines; a line starting with '#' is a comment.
// Every other line is `directive value`, the value being everything after the first space, byte
// for byte, to the end of the line.
//
// A settings block holds for every case after it in the file, until changed:
//   schema ddl <Spark DDL>           starts a section: options back to their defaults, no layout
//   schema spark-json <StructType>   what DDL cannot say (containsNull, valueContainsNull)
//   schema avro <Avro schema>        the model's types Spark lacks (time, uuid)
//   option <field> <value>           a ValidatorOptions field: rescued_column, file_path_key
//                                    (`none` for empty), max_depth, allow_new_fields (true|false),
//                                    ignore_unknown_fields (true|false)
//   csv-header <row>                 CsvLayout::header, written as a `csv` row
//   csv-columns <n>,<n>,...          CsvLayout::columns: a schema field index per CSV column,
//                                    -1 unknown, -2 case variant, -3 repeated
//   csv-null-value <text>            CsvLayout::null_value (default: empty)
//   csv-empty-value <text>           CsvLayout::empty_value (default: empty)
//
// A case block starts with its record:
//   json <record>                    one record for CheckJson, from the file `f.jsonl`
//   csv <row>                        one row for CheckCsv, from `f.csv`: fields split on ',', a
//                                    field in "..." is quoted, `""` inside it is one quote; the
//                                    row as written is its raw bytes (CsvRecord::raw)
// and may say where it comes from:
//   file <name>                      the file name the validator is given
//   csv-error <message>              the CSV reader found the row malformed (CsvRecord::error)
// then what must come of it. An expectation left out is not checked, but every case checks
// `status` or `line`:
//   status valid|rescued|bad|malformed
//   violations <path:kind ...>       every violation, in order; no value: none
//   line <text>                      the exact line written, without its newline; no value: none
//   rescued <text>                   the rescued column's string content, or `null`
//   error <text>                     the exact error; `error-contains <text>`: a part of it
//   error-offset <n>
//
// Escapes: a directive written with `-x` after its name (`json-x`, `csv-x`, `line-x`, ...) reads
// `\xNN` (two hex digits) in its value as the byte 0xNN; every other character, backslashes
// included, stands for itself. Files are UTF-8 without control characters or trailing
// whitespace, so invalid UTF-8, tabs, CR and spaces at the end of a value are written as \xNN.
//
// Every case also checks what holds for any record: a valid or rescued record appends one line
// ending in '\n' that parses as JSON; a bad or malformed one appends nothing; the output buffer's
// earlier content stays untouched; a malformed record has an error and the others none (offset
// -1); a valid record has no violations and the others some. Each case runs on a fresh validator
// and on its section's validator, which has checked the section's earlier cases; both must agree.
// A JSON case whose schema Parquet can hold also runs with a tape (leaf_tape.h): the outcome is
// the same, and the Parquet rows made from the tape are the rows made from the line.
// A failure names the data file and the line of the expectation that failed.
#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "sluice/base/file_system.h"
#include "sluice/base/json.h"
#include "sluice/base/string_sink_testing.h"
#include "sluice/base/strings.h"
#include "sluice/data/csv_reader.h"
#include "sluice/data/parquet_sink.h"
#include "sluice/data/validator.h"
#include "sluice/dialects/avro/avro_convert.h"
#include "sluice/dialects/spark/spark.h"
#include "sluice_test_paths.h"

namespace sluice::data {
namespace {

std::string CaseDir() {
  return std::string(SLUICE_SOURCE_DIR) + "/src/sluice/data/testdata/validator";
}

// ---------------------------------------------------------------------------------------------
// Reading a case file into blocks of directives.

struct Directive {
  int line = 0;
  std::string name;   // without its "-x"
  std::string value;  // escapes decoded
};
using Block = std::vector<Directive>;

enum class Role { kSetting, kRecord, kSource, kExpectation };

std::optional<Role> RoleOf(std::string_view name) {
  for (std::string_view s :
       {"schema", "option", "csv-header", "csv-columns", "csv-null-value", "csv-empty-value"}) {
    if (name == s) return Role::kSetting;
  }
  if (name == "json" || name == "csv") return Role::kRecord;
  if (name == "file" || name == "csv-error") return Role::kSource;
  for (std::string_view s :
       {"status", "violations", "line", "rescued", "error", "error-contains", "error-offset"}) {
    if (name == s) return Role::kExpectation;
  }
  return std::nullopt;
}

int HexDigit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

std::string DecodeHexEscapes(std::string_view v) {
  std::string out;
  for (size_t i = 0; i < v.size(); ++i) {
    if (v[i] == '\\' && i + 3 < v.size() && v[i + 1] == 'x' && HexDigit(v[i + 2]) >= 0 &&
        HexDigit(v[i + 3]) >= 0) {
      out += static_cast<char>(HexDigit(v[i + 2]) * 16 + HexDigit(v[i + 3]));
      i += 3;
    } else {
      out += v[i];
    }
  }
  return out;
}

struct CaseFile {
  std::string path;
  std::vector<Block> blocks;
};

bool IsCaseBlock(const Block& b) { return RoleOf(b.front().name) == Role::kRecord; }

// A block holds settings only, or one record followed by where it comes from and expectations.
bool CheckBlockShape(const std::string& path, const Block& block) {
  bool is_case = IsCaseBlock(block);
  for (size_t i = is_case ? 1 : 0; i < block.size(); ++i) {
    const Directive& d = block[i];
    Role role = *RoleOf(d.name);
    bool fits = is_case ? (role == Role::kSource || role == Role::kExpectation) &&
                              (d.name != "csv-error" || block.front().name == "csv")
                        : role == Role::kSetting;
    if (!fits) {
      ADD_FAILURE_AT(path.c_str(), d.line)
          << "`" << d.name << "` does not belong in "
          << (is_case ? "a " + block.front().name + " case" : std::string("a settings block"))
          << ": settings and cases are separate blocks, a case starts with json or csv";
      return false;
    }
  }
  return true;
}

// Split the file into blocks; a line that breaks the format is a failure at that line, and the
// file is not run.
bool ParseCaseFile(const std::string& path, const std::string& text, CaseFile* file) {
  file->path = path;
  bool ok = true;
  Block block;
  auto end_block = [&] {
    if (block.empty()) return;
    ok &= CheckBlockShape(path, block);
    file->blocks.push_back(std::move(block));
    block.clear();
  };
  int number = 0;
  for (std::string_view line : SplitString(text, '\n')) {
    ++number;
    if (line.empty()) {
      end_block();
      continue;
    }
    if (line[0] == '#') continue;
    // Editors and diff tools change control bytes and trailing spaces without showing it.
    bool control = std::any_of(line.begin(), line.end(), [](char c) {
      return static_cast<unsigned char>(c) < 0x20 || c == 0x7f;
    });
    if (control || line.back() == ' ' || !IsValidUtf8(line)) {
      ADD_FAILURE_AT(path.c_str(), number)
          << "a control byte, invalid UTF-8 or a trailing space: write it as \\xNN in a -x "
             "directive";
      ok = false;
      continue;
    }
    size_t space = line.find(' ');
    std::string_view name = line.substr(0, space);
    std::string_view value = space == std::string_view::npos ? "" : line.substr(space + 1);
    bool escaped = EndsWith(name, "-x");
    if (escaped) name.remove_suffix(2);
    if (!RoleOf(name).has_value()) {
      ADD_FAILURE_AT(path.c_str(), number) << "unknown directive `" << name << "`";
      ok = false;
      continue;
    }
    block.push_back(
        {number, std::string(name), escaped ? DecodeHexEscapes(value) : std::string(value)});
  }
  end_block();
  return ok;
}

// A `csv` value split into fields: (text, quoted). nullopt when a quote is left open or text
// follows a closing quote.
std::optional<std::vector<std::pair<std::string, bool>>> SplitCsvRow(std::string_view row) {
  std::vector<std::pair<std::string, bool>> fields;
  size_t i = 0;
  while (true) {
    std::string text;
    bool quoted = i < row.size() && row[i] == '"';
    if (quoted) {
      ++i;
      while (true) {
        if (i >= row.size()) return std::nullopt;
        if (row[i] == '"') {
          if (i + 1 < row.size() && row[i + 1] == '"') {
            text += '"';
            i += 2;
            continue;
          }
          ++i;
          break;
        }
        text += row[i++];
      }
      if (i < row.size() && row[i] != ',') return std::nullopt;
    } else {
      size_t end = std::min(row.find(',', i), row.size());
      text.assign(row.substr(i, end - i));
      i = end;
    }
    fields.emplace_back(std::move(text), quoted);
    if (i >= row.size()) return fields;
    ++i;  // the ','
  }
}

// ---------------------------------------------------------------------------------------------
// Checking one record.

// What one check gave, and which of the invariants it broke.
struct Outcome {
  std::string status;
  std::string violations;  // "path:kind path:kind", in report order
  std::string line;        // what was appended to the output, without its newline
  std::string error;
  int64_t error_offset = -1;
  std::vector<std::string> broken;

  bool SameAs(const Outcome& o) const {
    return status == o.status && violations == o.violations && line == o.line && error == o.error &&
           error_offset == o.error_offset;
  }
  std::string Describe() const {
    return "status " + status + "\nviolations " + violations + "\nline " +
           EscapeForMessage(line, 400) + "\nerror " + error + "\nerror-offset " +
           std::to_string(error_offset);
  }
};

// The output buffer holds this before every check; it must survive untouched.
constexpr std::string_view kEarlierOutput = "previous line\n";

Outcome Collect(const RecordResult& r, const std::string& out) {
  Outcome o;
  o.status = std::string(RecordStatusName(r.status));
  for (const RecordViolation& v : r.violations) {
    if (!o.violations.empty()) o.violations += ' ';
    o.violations += v.path;
    o.violations += ':';
    o.violations += ViolationKindName(v.kind);
  }
  o.error = r.error;
  o.error_offset = r.error_offset;
  if (!StartsWith(out, kEarlierOutput)) {
    o.broken.push_back("the output's earlier content changed");
    return o;
  }
  std::string appended = out.substr(kEarlierOutput.size());
  o.line = appended;
  bool writes = r.status == RecordStatus::kValid || r.status == RecordStatus::kRescued;
  if (writes) {
    if (appended.empty() || appended.back() != '\n') {
      o.broken.push_back("no newline after the line");
    } else {
      o.line.pop_back();
      if (o.line.find('\n') != std::string::npos) o.broken.push_back("more than one line");
    }
    // Every line written must be JSON a reader can load.
    if (!ParseJson(o.line).has_value()) o.broken.push_back("the line is not JSON");
  } else if (!appended.empty()) {
    o.broken.push_back("a " + o.status + " record must write nothing");
  }
  if (r.status == RecordStatus::kMalformed) {
    if (r.error.empty()) o.broken.push_back("a malformed record without an error");
  } else if (!r.error.empty() || r.error_offset != -1) {
    o.broken.push_back("an error on a record that is not malformed");
  }
  // new_column entries are notes, not violations: a valid record may have those alone.
  const bool only_notes = std::all_of(r.violations.begin(), r.violations.end(), [](const auto& v) {
    return v.kind == ViolationKind::kNewColumn;
  });
  if ((r.status == RecordStatus::kValid) != only_notes) {
    o.broken.push_back("a valid record must have no violations but notes, any other some");
  }
  return o;
}

// A case's record, ready to check.
struct Record {
  bool csv = false;
  std::string text;  // the JSON record, or the CSV row's raw bytes
  std::vector<std::pair<std::string, bool>> fields;
  std::string csv_error;
  std::string file;
  uint64_t line = 0;
};

Outcome Check(RecordValidator& v, const Record& rec, const RecordValidator::CsvLayout& layout) {
  std::string out(kEarlierOutput);
  if (!rec.csv) {
    // simdjson reads up to 64 bytes past the record.
    std::string buffer = rec.text;
    buffer.append(64, ' ');
    return Collect(v.CheckJson(std::string_view(buffer.data(), rec.text.size()), rec.file, out),
                   out);
  }
  CsvRecord row;
  for (const auto& [text, quoted] : rec.fields) row.fields.push_back({text, quoted});
  row.raw = rec.text;
  row.error = rec.csv_error;
  row.line = rec.line;
  return Collect(v.CheckCsv(row, layout, rec.file, out), out);
}

// The rescued column's value in an output line: its string content, "null", or "<absent>".
std::string Rescued(const std::string& line, std::string_view column) {
  auto parsed = ParseJson(line);
  if (!parsed.has_value()) return "<not json>";
  const JsonValue* v = parsed->Find(column);
  if (v == nullptr) return "<absent>";
  if (v->is_null()) return "null";
  if (!v->is_string()) return "<not a string>";
  return v->as_string();
}

// ---------------------------------------------------------------------------------------------
// Running a file: settings build the section, cases run against it.

class FileRunner {
 public:
  explicit FileRunner(const CaseFile& file) : file_(file) {}

  // Returns the number of cases run.
  int Run() {
    int cases = 0;
    for (const Block& block : file_.blocks) {
      if (IsCaseBlock(block)) {
        RunCase(block);
        ++cases;
      } else if (!ApplySettings(block)) {
        return cases;  // later cases would run against the wrong section
      }
    }
    return cases;
  }

 private:
  const char* path() const { return file_.path.c_str(); }

  bool ApplySettings(const Block& block) {
    for (const Directive& d : block) {
      if (!ApplySetting(d)) return false;
    }
    return true;
  }

  bool ApplySetting(const Directive& d) {
    auto [key, rest] = SplitFirstWord(d.value);
    if (d.name == "schema") return ReadSchema(d, key, rest);
    if (d.name == "option") {
      plan_.reset();
      if (key == "rescued_column") {
        options_.rescued_column = rest == "none" ? "" : std::string(rest);
      } else if (key == "file_path_key") {
        options_.file_path_key = rest == "none" ? "" : std::string(rest);
      } else if (key == "max_depth" && ParseInt(rest).has_value()) {
        options_.max_depth = static_cast<uint32_t>(*ParseInt(rest));
      } else if (key == "allow_new_fields" && (rest == "true" || rest == "false")) {
        options_.allow_new_fields = rest == "true";
      } else if (key == "ignore_unknown_fields" && (rest == "true" || rest == "false")) {
        options_.ignore_unknown_fields = rest == "true";
      } else {
        ADD_FAILURE_AT(path(), d.line) << "unknown option or bad value: " << d.value;
        return false;
      }
      return true;
    }
    if (d.name == "csv-header") {
      auto fields = SplitCsvRow(d.value);
      if (!fields.has_value()) {
        ADD_FAILURE_AT(path(), d.line) << "not a CSV row: " << d.value;
        return false;
      }
      layout_.header.clear();
      for (auto& [text, quoted] : *fields) layout_.header.push_back(std::move(text));
      return true;
    }
    if (d.name == "csv-columns") {
      layout_.columns.clear();
      for (std::string_view n : SplitString(d.value, ',')) {
        std::optional<int64_t> i = ParseInt(n);
        if (!i.has_value()) {
          ADD_FAILURE_AT(path(), d.line) << "not a column index: " << n;
          return false;
        }
        layout_.columns.push_back(static_cast<int>(*i));
      }
      return true;
    }
    if (d.name == "csv-null-value") {
      layout_.null_value = d.value;
    } else {
      layout_.empty_value = d.value;
    }
    return true;
  }

  bool ReadSchema(const Directive& d, std::string_view dialect, std::string_view text) {
    // A new section: nothing of the last one carries over.
    options_ = ValidatorOptions{};
    layout_ = RecordValidator::CsvLayout{};
    plan_.reset();
    schema_.reset();
    schema_line_ = d.line;
    if (dialect != "ddl" && dialect != "spark-json" && dialect != "avro") {
      ADD_FAILURE_AT(path(), d.line) << "schema takes ddl, spark-json or avro, not " << dialect;
      return false;
    }
    Result<schema::Converted<schema::SchemaPtr>> s =
        dialect == "ddl"          ? dialects::spark::ReadDdl(text)
        : dialect == "spark-json" ? dialects::spark::ReadJson(text)
                                  : dialects::avro::ReadSchema(text);
    if (!s.has_value()) {
      ADD_FAILURE_AT(path(), d.line) << s.error().ToString();
      return false;
    }
    schema_ = s->value;
    return true;
  }

  // The section's plan and long-lived validator, compiled at its first case.
  bool EnsurePlan(int line) {
    if (plan_ != nullptr) return true;
    if (schema_ == nullptr) {
      ADD_FAILURE_AT(path(), line) << "a case before any schema";
      return false;
    }
    auto plan = ValidationPlan::Compile(schema_, options_);
    if (!plan.has_value()) {
      ADD_FAILURE_AT(path(), schema_line_)
          << "the plan does not compile: " << plan.error().ToString();
      return false;
    }
    plan_ = *plan;
    section_validator_ = std::make_unique<RecordValidator>(plan_);
    // The tape's writer, when the schema has a Parquet form.
    writer_plan_.reset();
    tape_map_.reset();
    auto writer = ParquetRecordPlan::Compile(schema_, {.rescued_column = options_.rescued_column});
    if (writer.has_value()) {
      writer_plan_ = *writer;
      tape_map_ = writer_plan_->TapeMapFor(*plan_);
      if (tape_map_ == nullptr) ADD_FAILURE_AT(path(), schema_line_) << "no tape map";
    }
    return true;
  }

  // A fragment's rows in a file, as bytes.
  std::string FileOf(const ParquetFragment& fragment) {
    ::sluice::testing::StringSink out;
    auto sink = ParquetRecordSink::Open(writer_plan_, out);
    if (!sink.has_value() || !(*sink)->AppendFragment(fragment).has_value() ||
        !(*sink)->Close().has_value()) {
      return "<no file>";
    }
    return out.text;
  }

  // The case again with a tape: the same outcome, and the same Parquet rows from the tape as
  // from the line.
  void CheckTaped(const Record& rec, const Outcome& plain, const Directive& first) {
    if (tape_map_ == nullptr) return;
    LeafTape tape;
    tape.map = tape_map_;
    std::string buffer = rec.text;
    buffer.append(64, ' ');
    std::string out;
    RecordValidator v(plan_);
    const RecordResult& r =
        v.CheckJson(std::string_view(buffer.data(), rec.text.size()), rec.file, out, &tape);
    const bool kept = r.status == RecordStatus::kValid || r.status == RecordStatus::kRescued;
    if (std::string(RecordStatusName(r.status)) != plain.status ||
        out != (kept ? plain.line + "\n" : "")) {
      ADD_FAILURE_AT(path(), first.line) << "with a tape, the outcome differs: " << out;
      return;
    }
    if (tape.records.size() != (kept ? 1u : 0u)) {
      ADD_FAILURE_AT(path(), first.line) << "a kept record is taped, another is not";
    }
    if (!kept) return;
    ParquetFragment by_tape(writer_plan_);
    ParquetFragment by_line(writer_plan_);
    Status a = by_tape.AppendLines(out, tape);
    Status b = by_line.AppendLines(out);
    if (a.has_value() != b.has_value()) {
      ADD_FAILURE_AT(path(), first.line)
          << "the tape and the line disagree on whether the record can be written: "
          << (a.has_value() ? b.error().message() : a.error().message());
    } else if (a.has_value() && FileOf(by_tape) != FileOf(by_line)) {
      ADD_FAILURE_AT(path(), first.line) << "the tape's Parquet rows differ from the line's";
    }
  }

  // The case's record with where it comes from, and its expectations; nullopt (after a
  // failure) when the case cannot run.
  std::optional<Record> ReadRecord(const Block& block,
                                   std::vector<const Directive*>* expectations) {
    const Directive& first = block.front();
    Record rec;
    rec.csv = first.name == "csv";
    rec.text = first.value;
    rec.file = rec.csv ? "f.csv" : "f.jsonl";
    rec.line = static_cast<uint64_t>(first.line);
    bool asserts_status_or_line = false;
    for (size_t i = 1; i < block.size(); ++i) {
      const Directive& d = block[i];
      if (d.name == "file") {
        rec.file = d.value;
      } else if (d.name == "csv-error") {
        rec.csv_error = d.value;
      } else {
        expectations->push_back(&d);
        asserts_status_or_line |= d.name == "status" || d.name == "line";
      }
    }
    if (!asserts_status_or_line) {
      ADD_FAILURE_AT(path(), first.line) << "the case checks neither status nor line";
      return std::nullopt;
    }
    if (!rec.csv) return rec;
    auto fields = SplitCsvRow(rec.text);
    if (!fields.has_value()) {
      ADD_FAILURE_AT(path(), first.line) << "not a CSV row: " << rec.text;
      return std::nullopt;
    }
    rec.fields = std::move(*fields);
    if (layout_.columns.empty() || layout_.columns.size() != layout_.header.size()) {
      ADD_FAILURE_AT(path(), first.line)
          << "a csv case needs csv-header and csv-columns of the same length";
      return std::nullopt;
    }
    return rec;
  }

  void RunCase(const Block& block) {
    const Directive& first = block.front();
    std::vector<const Directive*> expectations;
    std::optional<Record> rec = ReadRecord(block, &expectations);
    if (!rec.has_value() || !EnsurePlan(first.line)) return;

    RecordValidator fresh(plan_);
    Outcome got = Check(fresh, *rec, layout_);
    Outcome reused = Check(*section_validator_, *rec, layout_);
    for (const std::string& b : got.broken) ADD_FAILURE_AT(path(), first.line) << b;
    if (!rec->csv) CheckTaped(*rec, got, first);
    if (!reused.SameAs(got)) {
      ADD_FAILURE_AT(path(), first.line)
          << "the section's validator, after its earlier cases, disagrees with a fresh one\n"
          << "fresh:\n"
          << got.Describe() << "\nreused:\n"
          << reused.Describe();
    }
    for (const Directive* d : expectations) Expect(*d, got, first);
  }

  void Expect(const Directive& d, const Outcome& got, const Directive& record) {
    if (d.name == "rescued" && options_.rescued_column.empty()) {
      ADD_FAILURE_AT(path(), d.line) << "`rescued` in a section without a rescued column";
      return;
    }
    std::string actual = d.name == "status"         ? got.status
                         : d.name == "violations"   ? got.violations
                         : d.name == "line"         ? got.line
                         : d.name == "rescued"      ? Rescued(got.line, options_.rescued_column)
                         : d.name == "error-offset" ? std::to_string(got.error_offset)
                                                    : got.error;
    bool holds =
        d.name == "error-contains" ? actual.find(d.value) != std::string::npos : actual == d.value;
    if (!holds) {
      ADD_FAILURE_AT(path(), d.line)
          << d.name << " differs\n  want: " << EscapeForMessage(d.value, 1000)
          << "\n  got:  " << EscapeForMessage(actual, 1000) << "\n  for " << record.name << " "
          << EscapeForMessage(record.value, 1000) << " (line " << record.line << ")";
    }
  }

  static std::pair<std::string_view, std::string_view> SplitFirstWord(std::string_view v) {
    size_t space = v.find(' ');
    if (space == std::string_view::npos) return {v, ""};
    return {v.substr(0, space), v.substr(space + 1)};
  }

  static std::optional<int64_t> ParseInt(std::string_view s) {
    int64_t v = 0;
    auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
    if (ec != std::errc() || end != s.data() + s.size() || s.empty()) return std::nullopt;
    return v;
  }

  const CaseFile& file_;
  schema::SchemaPtr schema_;
  int schema_line_ = 0;
  ValidatorOptions options_;
  RecordValidator::CsvLayout layout_;
  std::shared_ptr<const ValidationPlan> plan_;
  std::unique_ptr<RecordValidator> section_validator_;
  std::shared_ptr<const ParquetRecordPlan> writer_plan_;
  std::shared_ptr<const TapeMap> tape_map_;
};

// ---------------------------------------------------------------------------------------------
// One test per file, so ctest names the theme that fails.

std::vector<std::string> CaseFileNames() {
  std::vector<std::string> names;
  auto listed = NewLocalFileSystem()->ListDir(CaseDir());
  if (!listed.has_value()) return names;
  for (const std::string& n : *listed) {
    if (EndsWith(n, ".cases")) names.push_back(n);
  }
  std::sort(names.begin(), names.end());
  return names;
}

std::optional<CaseFile> LoadCaseFile(const std::string& name) {
  std::string path = CaseDir() + "/" + name;
  auto text = NewLocalFileSystem()->ReadFile(path);
  if (!text.has_value()) {
    ADD_FAILURE() << text.error().ToString();
    return std::nullopt;
  }
  CaseFile file;
  if (!ParseCaseFile(path, *text, &file)) return std::nullopt;
  return file;
}

class ValidatorCasesTest : public ::testing::TestWithParam<std::string> {};

TEST_P(ValidatorCasesTest, EveryCaseHolds) {
  std::optional<CaseFile> file = LoadCaseFile(GetParam());
  ASSERT_TRUE(file.has_value());
  int cases = FileRunner(*file).Run();
  EXPECT_GT(cases, 0) << "a case file without cases";
}

INSTANTIATE_TEST_SUITE_P(CaseFiles, ValidatorCasesTest, ::testing::ValuesIn(CaseFileNames()),
                         [](const ::testing::TestParamInfo<std::string>& info) {
                           std::string name = info.param.substr(0, info.param.rfind('.'));
                           for (char& c : name) {
                             if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
                           }
                           return name;
                         });

// An empty or unreadable folder must not pass as "no case failed".
TEST(ValidatorCasesFolderTest, HoldsEveryTheme) {
  std::vector<std::string> names = CaseFileNames();
  for (std::string_view theme :
       {"seed", "types", "keys", "nested", "rescue", "text", "csv", "output"}) {
    EXPECT_TRUE(std::any_of(names.begin(), names.end(),
                            [&](const std::string& n) { return StartsWith(n, theme); }))
        << "no " << theme << "*.cases in " << CaseDir();
  }
  int cases = 0;
  for (const std::string& name : names) {
    std::optional<CaseFile> file = LoadCaseFile(name);
    ASSERT_TRUE(file.has_value()) << name;
    cases += static_cast<int>(std::count_if(file->blocks.begin(), file->blocks.end(), IsCaseBlock));
  }
  EXPECT_GE(cases, 250);
}

}  // namespace
}  // namespace sluice::data
