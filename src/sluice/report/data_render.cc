#include "sluice/report/data_render.h"

#include <fmt/format.h>

#include "sluice/dialects/spark/spark.h"
#include "sluice/report/render_internal.h"

namespace sluice::report {
namespace {

using data::ValidateReport;
using data::ViolationCount;

void WriteStop(JsonWriter& w, const data::FailFastStop& s) {
  w.BeginObject();
  w.Key("file").String(s.file);
  w.Key("line").Uint(s.line);
  w.Key("offset").Uint(s.offset);
  w.Key("path").String(s.path);
  w.Key("message").String(s.message);
  w.EndObject();
}

void WriteViolation(JsonWriter& w, const ViolationCount& v, const ValidateReport& r) {
  w.BeginObject();
  w.Key("path").String(v.path);
  w.Key("kind").String(data::ViolationKindName(v.kind));
  w.Key("count").Uint(v.count);
  w.Key("lines").BeginArray();
  for (const auto& [f, line] : v.lines) w.Uint(line);
  w.EndArray();
  // Line numbers restart in each file, so each place also names its file.
  w.Key("at").BeginArray();
  for (const auto& [f, line] : v.lines) {
    w.String(fmt::format("{}:{}", f < r.files.size() ? r.files[f] : std::string("?"), line));
  }
  w.EndArray();
  w.EndObject();
}

std::string RenderValidateJson(const ValidateReport& r) {
  JsonWriter w = internal::ReportWriter();
  w.BeginObject();
  w.Key("files").BeginArray();
  for (const std::string& f : r.files) w.String(f);
  w.EndArray();
  w.Key("format").String(r.format);
  w.Key("mode").String(r.mode);
  w.Key("records_in").Uint(r.records_in);
  w.Key("valid").Uint(r.valid);
  w.Key("rescued").Uint(r.rescued);
  w.Key("with_new_columns").Uint(r.with_new_columns);
  w.Key("quarantined").Uint(r.quarantined);
  w.Key("malformed").Uint(r.malformed);
  w.Key("bytes").Uint(r.bytes);
  w.Key("invariant").BeginObject();
  w.Key("holds").Bool(r.invariant_holds());
  w.Key("statement")
      .String(
          fmt::format("records_in ({}) = valid ({}) + quarantined ({}); rescued ({}) <= valid ({})",
                      r.records_in, r.valid, r.quarantined, r.rescued, r.valid));
  w.EndObject();
  w.Key("stopped");
  if (r.stopped) {
    WriteStop(w, *r.stopped);
  } else {
    w.Null();
  }
  w.Key("violations").BeginArray();
  for (const ViolationCount& v : r.violations) WriteViolation(w, v, r);
  w.EndArray();
  w.EndObject();
  return internal::Finish(w);
}

std::string RenderValidateText(const ValidateReport& r, bool color) {
  std::string rescued = fmt::format("{} rescued", r.rescued);
  if (r.rescued > 0) rescued = internal::Paint(rescued, internal::Tone::kWarn, color);
  std::string quarantined = fmt::format("{} quarantined", r.quarantined);
  if (r.quarantined > 0) quarantined = internal::Paint(quarantined, internal::Tone::kBad, color);
  std::string out = fmt::format("{} records: {} valid ({}), {} ({} malformed)\n", r.records_in,
                                r.valid, rescued, quarantined, r.malformed);
  if (r.with_new_columns > 0) {
    std::string names;
    for (const ViolationCount& v : r.violations) {
      if (v.kind != data::ViolationKind::kNewColumn) continue;
      if (!names.empty()) names += ", ";
      names += v.path;
    }
    out += fmt::format(
        "{} valid records carry new columns the contract allows ({}), kept in the "
        "rescued column\n",
        r.with_new_columns, names);
  }
  if (r.stopped) {
    const data::FailFastStop& s = *r.stopped;
    out += fmt::format("stopped (failfast) at {}:{} (byte {}){}: {}\n", s.file, s.line, s.offset,
                       s.path.empty() ? std::string() : " field " + s.path, s.message);
  }
  return out;
}

}  // namespace

Result<std::string> Render(const ValidateReport& report, Format format,
                           const RenderOptions& options) {
  switch (format) {
    case Format::kText:
      return RenderValidateText(report, options.color);
    case Format::kJson:
      return RenderValidateJson(report);
    case Format::kGithub:
    case Format::kSlack:
    case Format::kHtml:
      break;
  }
  return Fail(Unsupported("a validation report", format));
}

Result<std::string> Render(const data::InferResult& result, Format format, const RenderOptions&) {
  switch (format) {
    case Format::kText:
      return fmt::format("inferred from {} records ({} malformed)\n", result.records,
                         result.malformed);
    case Format::kJson: {
      JsonWriter w = internal::ReportWriter();
      w.BeginObject();
      w.Key("records").Uint(result.records);
      w.Key("malformed").Uint(result.malformed);
      // The schema as Spark's StructType JSON, an object inside the report.
      w.Key("schema").Raw(dialects::spark::WriteJson(*result.schema).value);
      w.EndObject();
      return internal::Finish(w);
    }
    case Format::kGithub:
    case Format::kSlack:
    case Format::kHtml:
      break;
  }
  return Fail(Unsupported("an inference summary", format));
}

}  // namespace sluice::report
