#include "sluice/report/table_info_render.h"

#include <fmt/format.h>

#include "sluice/report/diff_render.h"
#include "sluice/report/render_internal.h"
#include "sluice/table/time_travel.h"

namespace sluice::report {
namespace {

using internal::Paint;
using internal::Tone;
using table::FindingSeverity;
using table::HistoryEntry;
using table::Protocol;
using table::TableCheckReport;
using table::TableFinding;

std::string Plural(int64_t n, std::string_view word) {
  return fmt::format("{} {}{}", n, word, n == 1 ? "" : "s");
}

std::string JoinList(const std::vector<std::string>& items) {
  if (items.empty()) return "(none)";
  std::string out;
  for (const std::string& s : items) out += (out.empty() ? "" : ", ") + s;
  return out;
}

std::string ProtocolText(const Protocol& p) {
  std::string out = fmt::format("({},{})", p.min_reader_version, p.min_writer_version);
  if (p.reader_features) out += " reader features " + JoinList(*p.reader_features);
  if (p.writer_features) {
    out += (p.reader_features ? ";" : "") + std::string(" writer features ") +
           JoinList(*p.writer_features);
  }
  return out;
}

// `version 3  2026-12-04 10:11:12Z  WRITE (Append)  +120 rows  2 files`
std::string Headline(const HistoryEntry& e) {
  std::string out = fmt::format("version {}  {}  {}", e.version,
                                table::FormatTimestampMs(e.timestamp_ms, false, ' '),
                                e.operation.empty() ? "(no commitInfo)" : e.operation);
  if (const JsonValue* mode = e.operation_parameters.Find("mode");
      mode != nullptr && mode->is_string()) {
    out += fmt::format(" ({})", mode->as_string());
  }
  if (e.files_added > 0) {
    if (e.rows_added) out += fmt::format("  +{}", Plural(*e.rows_added, "row"));
    out += "  " + Plural(e.files_added, "file");
  }
  if (e.files_removed > 0) out += "  -" + Plural(e.files_removed, "file");
  return out + "\n";
}

std::string SchemaLines(const HistoryEntry& e, bool color) {
  if (e.schema_error) return fmt::format("  schema: does not parse: {}\n", *e.schema_error);
  if (!e.schema_change) return "";
  const table::SchemaChange& c = *e.schema_change;
  if (e.created) {
    return fmt::format("  schema: created with {}\n", Plural(c.after->fields().size(), "column"));
  }
  if (c.before == nullptr) {
    return "  schema: set; the schema before this version is no longer in the log\n";
  }
  RenderOptions options{.color = color};
  std::string out;
  if (!c.diff.empty() || c.renames.empty()) {
    out = fmt::format("  schema: {}\n", RenderDiffSummary(c.diff, options)) +
          RenderChangeLines(c.diff, "    ", options);
  } else {
    out = fmt::format("  schema: {} renamed\n", Plural(c.renames.size(), "column"));
  }
  // Renames under column mapping: the same column id under another name.
  for (const table::ColumnRename& r : c.renames) {
    out += fmt::format("    renamed {} -> {}\n", r.from.ToString(), r.to.ToString());
  }
  return out;
}

std::string EntryText(const HistoryEntry& e, bool color) {
  std::string out = Headline(e);
  if (e.protocol_changed && e.protocol_after) {
    out += e.protocol_before
               ? fmt::format("  protocol: {} -> {}\n", ProtocolText(*e.protocol_before),
                             ProtocolText(*e.protocol_after))
               : fmt::format("  protocol: {}\n", ProtocolText(*e.protocol_after));
  }
  if (e.partition_change) {
    out += fmt::format("  partition columns: {} -> {}\n", JoinList(e.partition_change->first),
                       JoinList(e.partition_change->second));
  }
  for (const table::PropertyChange& p : e.property_changes) {
    if (!p.after) {
      out += fmt::format("  unset {} (was {})\n", p.key, *p.before);
    } else if (p.before) {
      out += fmt::format("  set {} = {} (was {})\n", p.key, *p.after, *p.before);
    } else {
      out += fmt::format("  set {} = {}\n", p.key, *p.after);
    }
  }
  std::string schema = SchemaLines(e, color);
  out += schema;
  if (e.metadata_changed && schema.empty() && e.property_changes.empty() && !e.partition_change &&
      !e.created) {
    out += e.previous_unknown
               ? "  metadata: set; the metadata before this version is no longer in the log\n"
               : "  metadata: changed (name, description or format; not the schema, properties "
                 "or partitioning)\n";
  }
  return out;
}

std::string HistoryText(const std::vector<HistoryEntry>& history, const HistoryContext& ctx,
                        bool color) {
  std::string out = fmt::format("{}: {}\n", ctx.table, Plural(history.size(), "version"));
  for (const HistoryEntry& e : history) out += EntryText(e, color);
  return out;
}

void OptionalInt(JsonWriter& w, const std::optional<int64_t>& v) {
  if (v) {
    w.Int(*v);
  } else {
    w.Null();
  }
}

void WriteStrings(JsonWriter& w, const std::vector<std::string>& items) {
  w.BeginArray();
  for (const std::string& s : items) w.String(s);
  w.EndArray();
}

void WriteProtocol(JsonWriter& w, const std::optional<Protocol>& p) {
  if (!p) {
    w.Null();
    return;
  }
  w.BeginObject();
  w.Key("minReaderVersion").Int(p->min_reader_version);
  w.Key("minWriterVersion").Int(p->min_writer_version);
  if (p->reader_features) WriteStrings(w.Key("readerFeatures"), *p->reader_features);
  if (p->writer_features) WriteStrings(w.Key("writerFeatures"), *p->writer_features);
  w.EndObject();
}

void WriteEntry(JsonWriter& w, const HistoryEntry& e) {
  w.BeginObject();
  w.Key("version").Int(e.version);
  w.Key("timestamp").String(table::FormatTimestampMs(e.timestamp_ms));
  w.Key("timestamp_ms").Int(e.timestamp_ms);
  OptionalInt(w.Key("commit_info_timestamp_ms"), e.commit_info_timestamp_ms);
  w.Key("operation").String(e.operation);
  w.Key("operation_parameters").Value(e.operation_parameters);
  w.Key("operation_metrics").Value(e.operation_metrics);
  OptionalInt(w.Key("read_version"), e.read_version);
  w.Key("is_blind_append");
  if (e.is_blind_append) {
    w.Bool(*e.is_blind_append);
  } else {
    w.Null();
  }
  internal::OptionalString(w.Key("engine_info"), e.engine_info);
  OptionalInt(w.Key("rows_added"), e.rows_added);
  w.Key("files_added").Int(e.files_added);
  w.Key("files_removed").Int(e.files_removed);
  w.Key("bytes_added").Int(e.bytes_added);
  w.Key("protocol_changed").Bool(e.protocol_changed);
  w.Key("metadata_changed").Bool(e.metadata_changed);
  w.Key("created").Bool(e.created);
  w.Key("previous_unknown").Bool(e.previous_unknown);
  w.Key("protocol");
  if (e.protocol_changed) {
    w.BeginObject();
    WriteProtocol(w.Key("from"), e.protocol_before);
    WriteProtocol(w.Key("to"), e.protocol_after);
    w.EndObject();
  } else {
    w.Null();
  }
  w.Key("schema_change");
  if (e.schema_change) {
    w.BeginObject();
    w.Key("columns").Int(static_cast<int64_t>(e.schema_change->after->fields().size()));
    internal::WriteDiffMembers(w, e.schema_change->diff);
    w.Key("renames").BeginArray();
    for (const table::ColumnRename& r : e.schema_change->renames) {
      w.BeginObject().Key("from").String(r.from.ToString()).Key("to").String(r.to.ToString());
      w.EndObject();
    }
    w.EndArray();
    w.EndObject();
  } else {
    w.Null();
  }
  internal::OptionalString(w.Key("schema_error"), e.schema_error);
  w.Key("property_changes").BeginArray();
  for (const table::PropertyChange& p : e.property_changes) {
    w.BeginObject();
    w.Key("key").String(p.key);
    internal::OptionalString(w.Key("from"), p.before);
    internal::OptionalString(w.Key("to"), p.after);
    w.EndObject();
  }
  w.EndArray();
  w.Key("partition_columns");
  if (e.partition_change) {
    w.BeginObject();
    WriteStrings(w.Key("from"), e.partition_change->first);
    WriteStrings(w.Key("to"), e.partition_change->second);
    w.EndObject();
  } else {
    w.Null();
  }
  w.EndObject();
}

std::string HistoryJson(const std::vector<HistoryEntry>& history, const HistoryContext& ctx) {
  JsonWriter w = internal::ReportWriter();
  w.BeginObject();
  w.Key("table").String(ctx.table);
  w.Key("versions").BeginArray();
  for (const HistoryEntry& e : history) WriteEntry(w, e);
  w.EndArray();
  w.EndObject();
  return internal::Finish(w);
}

std::string Where(const TableFinding& f) {
  if (!f.file.empty()) return f.file;
  if (f.version) return fmt::format("version {}", *f.version);
  return "table";
}

std::string CheckText(const TableCheckReport& r, bool color) {
  std::string out = fmt::format("{}: version {}, {} checked, {} ({} read)", r.root, r.version,
                                Plural(r.commits_checked, "commit"),
                                Plural(r.live_files, "live file"), r.files_checked);
  if (r.rows) out += fmt::format(", {}", Plural(*r.rows, "row"));
  out += "\n";
  size_t rule_w = 4;
  for (const TableFinding& f : r.findings) rule_w = std::max(rule_w, f.rule.size());
  for (const TableFinding& f : r.findings) {
    const bool error = f.severity == FindingSeverity::kError;
    std::string severity = fmt::format("{:<7}", table::FindingSeverityName(f.severity));
    out +=
        fmt::format("{} {:<{}}  {}: {}\n", Paint(severity, error ? Tone::kBad : Tone::kWarn, color),
                    f.rule, rule_w, Where(f), f.message);
  }
  for (const std::string& note : r.notes) out += fmt::format("note: {}\n", note);
  if (r.clean()) {
    out += Paint("clean: no findings", Tone::kGood, color) + "\n";
  } else {
    int errors = r.Count(FindingSeverity::kError);
    std::string errors_text = Plural(errors, "error");
    if (errors > 0) errors_text = Paint(errors_text, Tone::kBad, color);
    out += fmt::format("{}: {}, {}\n", Plural(static_cast<int64_t>(r.findings.size()), "finding"),
                       errors_text, Plural(r.Count(FindingSeverity::kWarning), "warning"));
  }
  return out;
}

std::string CheckJson(const TableCheckReport& r) {
  JsonWriter w = internal::ReportWriter();
  w.BeginObject();
  w.Key("table").String(r.root);
  w.Key("version").Int(r.version);
  OptionalInt(w.Key("checkpoint_version"), r.checkpoint_version >= 0
                                               ? std::optional<int64_t>(r.checkpoint_version)
                                               : std::nullopt);
  w.Key("commits_checked").Int(r.commits_checked);
  w.Key("live_files").Int(r.live_files);
  w.Key("files_checked").Int(r.files_checked);
  OptionalInt(w.Key("rows"), r.rows);
  w.Key("clean").Bool(r.clean());
  w.Key("errors").Int(r.Count(FindingSeverity::kError));
  w.Key("warnings").Int(r.Count(FindingSeverity::kWarning));
  w.Key("findings").BeginArray();
  for (const TableFinding& f : r.findings) {
    w.BeginObject();
    w.Key("rule").String(f.rule);
    w.Key("severity").String(table::FindingSeverityName(f.severity));
    OptionalInt(w.Key("version"), f.version);
    internal::OptionalString(w.Key("file"),
                             f.file.empty() ? std::nullopt : std::optional<std::string>(f.file));
    w.Key("message").String(f.message);
    w.EndObject();
  }
  w.EndArray();
  WriteStrings(w.Key("notes"), r.notes);
  w.EndObject();
  return internal::Finish(w);
}

}  // namespace

Result<std::string> Render(const std::vector<HistoryEntry>& history, const HistoryContext& context,
                           Format format, const RenderOptions& options) {
  switch (format) {
    case Format::kText:
      return HistoryText(history, context, options.color);
    case Format::kJson:
      return HistoryJson(history, context);
    case Format::kGithub:
    case Format::kSlack:
    case Format::kHtml:
      break;
  }
  return Fail(Unsupported("a table history", format));
}

Result<std::string> Render(const TableCheckReport& report, Format format,
                           const RenderOptions& options) {
  switch (format) {
    case Format::kText:
      return CheckText(report, options.color);
    case Format::kJson:
      return CheckJson(report);
    case Format::kGithub:
    case Format::kSlack:
    case Format::kHtml:
      break;
  }
  return Fail(Unsupported("a table check report", format));
}

}  // namespace sluice::report
