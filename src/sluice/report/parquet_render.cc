#include "sluice/report/parquet_render.h"

#include <fmt/format.h>

#include "sluice/base/strings.h"
#include "sluice/report/render_internal.h"

namespace sluice::report {
namespace {

using parquet::ColumnChunkSummary;
using parquet::ParquetFileSummary;
using parquet::RowGroupSummary;

// Key/value values this short and printable are shown in text; longer ones (Spark's schema,
// Arrow's IPC schema) by their size.
constexpr size_t kShownValueLength = 60;

std::string EncodingList(const std::vector<parquet::Encoding>& encodings, std::string_view sep) {
  std::string s;
  for (parquet::Encoding e : encodings) {
    if (!s.empty()) s += sep;
    s += parquet::EncodingName(e);
  }
  return s;
}

std::string Plural(int64_t n, std::string_view one, std::string_view many) {
  return fmt::format("{} {}", n, n == 1 ? one : many);
}

std::string ColumnLine(const ColumnChunkSummary& c) {
  std::string type(parquet::PhysicalTypeName(c.physical_type));
  if (!c.logical_type.empty()) type += " " + c.logical_type;
  std::string line = fmt::format("  {}: {}, {}, {}, {}", EscapeForMessage(c.path), type,
                                 parquet::CodecName(c.codec), EncodingList(c.encodings, " "),
                                 Plural(c.num_values, "value", "values"));
  if (c.null_count) line += ", " + Plural(*c.null_count, "null", "nulls");
  if (c.distinct_count) line += fmt::format(", {} distinct", *c.distinct_count);
  line += fmt::format(", {} / {} bytes", c.compressed_size, c.uncompressed_size);
  if (c.min) line += ", min " + EscapeForMessage(*c.min);
  if (c.max) line += ", max " + EscapeForMessage(*c.max);
  if (c.dictionary_page_offset) {
    line += fmt::format(", dictionary page at {}", *c.dictionary_page_offset);
  }
  line += fmt::format(", data page at {}\n", c.data_page_offset);
  return line;
}

std::string RenderText(const ParquetFileSummary& s) {
  std::string out =
      fmt::format("file:        {} ({} bytes)\n", EscapeForMessage(s.path), s.file_size);
  out += fmt::format("created by:  {}\n",
                     s.created_by ? EscapeForMessage(*s.created_by) : std::string("(unknown)"));
  out += fmt::format("version:     {}\n", s.version);
  out += fmt::format("rows:        {} in {}\n", s.num_rows,
                     Plural(static_cast<int64_t>(s.row_groups.size()), "row group", "row groups"));
  for (const parquet::KeyValue& kv : s.key_value_metadata) {
    std::string value = "(no value)";
    if (kv.value) {
      value = kv.value->size() <= kShownValueLength && IsValidUtf8(*kv.value)
                  ? "= " + EscapeForMessage(*kv.value)
                  : fmt::format("({} bytes)", kv.value->size());
    }
    out += fmt::format("key/value:   {} {}\n", EscapeForMessage(kv.key), value);
  }
  out += "\n" + s.schema_text;
  for (size_t g = 0; g < s.row_groups.size(); ++g) {
    const RowGroupSummary& rg = s.row_groups[g];
    out += fmt::format("\nrow group {}: {}, {} bytes", g, Plural(rg.num_rows, "row", "rows"),
                       rg.total_byte_size);
    if (rg.total_compressed_size) out += fmt::format(" ({} compressed)", *rg.total_compressed_size);
    out += "\n";
    for (const ColumnChunkSummary& c : rg.columns) out += ColumnLine(c);
  }
  return out;
}

void OptionalInt(JsonWriter& w, const std::optional<int64_t>& v) {
  if (v) {
    w.Int(*v);
  } else {
    w.Null();
  }
}

void WriteColumn(JsonWriter& w, const ColumnChunkSummary& c) {
  w.BeginObject();
  w.Key("path").String(c.path);
  w.Key("physical_type").String(parquet::PhysicalTypeName(c.physical_type));
  w.Key("logical_type");
  if (c.logical_type.empty()) {
    w.Null();
  } else {
    w.String(c.logical_type);
  }
  w.Key("codec").String(parquet::CodecName(c.codec));
  w.Key("encodings").BeginArray();
  for (parquet::Encoding e : c.encodings) w.String(parquet::EncodingName(e));
  w.EndArray();
  w.Key("num_values").Int(c.num_values);
  w.Key("null_count");
  OptionalInt(w, c.null_count);
  w.Key("distinct_count");
  OptionalInt(w, c.distinct_count);
  w.Key("compressed_size").Int(c.compressed_size);
  w.Key("uncompressed_size").Int(c.uncompressed_size);
  // Statistics are canonical JSON values already.
  w.Key("min");
  if (c.min) {
    w.Raw(*c.min);
  } else {
    w.Null();
  }
  w.Key("max");
  if (c.max) {
    w.Raw(*c.max);
  } else {
    w.Null();
  }
  w.Key("dictionary_page_offset");
  OptionalInt(w, c.dictionary_page_offset);
  w.Key("data_page_offset").Int(c.data_page_offset);
  w.EndObject();
}

std::string RenderJson(const ParquetFileSummary& s) {
  JsonWriter w = internal::ReportWriter();
  w.BeginObject();
  w.Key("file").String(s.path);
  w.Key("size").Uint(s.file_size);
  w.Key("version").Int(s.version);
  w.Key("created_by");
  internal::OptionalString(w, s.created_by);
  w.Key("num_rows").Int(s.num_rows);
  w.Key("key_value_metadata").BeginArray();
  for (const parquet::KeyValue& kv : s.key_value_metadata) {
    w.BeginObject();
    w.Key("key").String(kv.key);
    w.Key("value");
    internal::OptionalString(w, kv.value);
    w.EndObject();
  }
  w.EndArray();
  w.Key("schema").String(s.schema_text);
  w.Key("row_groups").BeginArray();
  for (const RowGroupSummary& rg : s.row_groups) {
    w.BeginObject();
    w.Key("num_rows").Int(rg.num_rows);
    w.Key("total_byte_size").Int(rg.total_byte_size);
    w.Key("total_compressed_size");
    OptionalInt(w, rg.total_compressed_size);
    w.Key("columns").BeginArray();
    for (const ColumnChunkSummary& c : rg.columns) WriteColumn(w, c);
    w.EndArray();
    w.EndObject();
  }
  w.EndArray();
  w.EndObject();
  return internal::Finish(w);
}

}  // namespace

Result<std::string> Render(const ParquetFileSummary& summary, Format format, const RenderOptions&) {
  switch (format) {
    case Format::kText:
      return RenderText(summary);
    case Format::kJson:
      return RenderJson(summary);
    case Format::kGithub:
    case Format::kSlack:
    case Format::kHtml:
      break;
  }
  return Fail(Unsupported("a Parquet file summary", format));
}

}  // namespace sluice::report
