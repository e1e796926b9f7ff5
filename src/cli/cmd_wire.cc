// `sluice decode FILE` and `sluice encode FILE.jsonl`: Avro messages in Confluent's wire format,
// kept in a length-prefixed message file (docs/formats/framed-messages.md), to and from JSON
// lines in Avro's JSON encoding, with the writer schemas taken from a schema registry.
#include <fmt/format.h>

#include <algorithm>
#include <cstdio>
#include <iostream>
#include <limits>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "cli/cli_common.h"
#include "cli/commands.h"
#include "sluice/base/file_system.h"
#include "sluice/base/json.h"
#include "sluice/base/json_writer.h"
#include "sluice/base/std_io.h"
#include "sluice/base/strings.h"
#include "sluice/data/avro_binary.h"
#include "sluice/data/wire_format.h"
#include "sluice/dialects/avro/avro_schema.h"
#include "sluice/registry/client.h"

namespace sluice::cli {
namespace {

namespace avro = dialects::avro;

// Message and record files may be far larger than schema files.
constexpr size_t kMaxDataFileBytes = FileSystem::kDefaultMaxRead;

Result<std::string> ReadDataFile(const std::string& path) {
  return ReadInput(*LocalFileSystem(), path, kMaxDataFileBytes);
}

// A registry GET whose answer is a JSON object; an HTTP error status is an error with the
// registry's own message.
Result<JsonValue> GetJson(registry::Client& client, const std::string& path) {
  SLUICE_ASSIGN_OR_RETURN(registry::HttpReply reply, client.Call("GET", path));
  if (reply.status == 404) return NotFound(registry::Client::ErrorMessage(reply));
  if (reply.status != 200) {
    return IoError(fmt::format("GET {}: the registry answered {}: {}", path, reply.status,
                               registry::Client::ErrorMessage(reply)));
  }
  auto v = ParseJson(reply.body);
  if (!v.has_value() || !v->is_object()) {
    return ParseError(
        fmt::format("GET {}: unexpected reply: {}", path, EscapeForMessage(reply.body, 200)));
  }
  return v;
}

// The Avro schema text of a registry reply (`/schemas/ids/{id}`, `/subjects/{s}/versions/{v}`).
Result<std::string> AvroSchemaText(const JsonValue& reply) {
  if (const JsonValue* t = reply.Find("schemaType"); t != nullptr && !t->is_null()) {
    if (!t->is_string() || t->as_string() != "AVRO") {
      return InvalidArgument(fmt::format("the schema is of type {}; only Avro is supported",
                                         t->is_string() ? t->as_string() : ToJson(*t)));
    }
  }
  const JsonValue* schema = reply.Find("schema");
  if (schema == nullptr || !schema->is_string()) {
    return ParseError("the registry's reply has no \"schema\" string");
  }
  return schema->as_string();
}

// Appends the texts of the schemas a reply's `references` name, each after those it needs.
Status CollectReferencedTexts(registry::Client& client, const JsonValue& reply, int depth,
                              std::vector<std::string>& texts) {
  const JsonValue* refs = reply.Find("references");
  if (refs == nullptr || !refs->is_array()) return Ok();
  if (depth > 32) return InvalidArgument("schema references nest too deeply");
  for (const JsonValue& ref : refs->items()) {
    const JsonValue* subject = ref.Find("subject");
    const JsonValue* version = ref.Find("version");
    if (subject == nullptr || !subject->is_string() || version == nullptr || !version->as_int64()) {
      return ParseError("a reference in the registry's reply has no subject and version");
    }
    SLUICE_ASSIGN_OR_RETURN(
        JsonValue referenced,
        GetJson(client, "/subjects/" + registry::EncodeSegment(subject->as_string()) +
                            "/versions/" + std::to_string(*version->as_int64())));
    SLUICE_TRY(CollectReferencedTexts(client, referenced, depth + 1, texts));
    SLUICE_ASSIGN_OR_RETURN(std::string text, AvroSchemaText(referenced));
    if (std::find(texts.begin(), texts.end(), text) == texts.end()) texts.push_back(text);
  }
  return Ok();
}

// The schema of a reply as one standalone Avro schema: with references, the types they name
// are written in (fetched from the registry).
Result<std::string> StandaloneSchemaText(registry::Client& client, const JsonValue& reply) {
  SLUICE_ASSIGN_OR_RETURN(std::string text, AvroSchemaText(reply));
  std::vector<std::string> texts;
  SLUICE_TRY(CollectReferencedTexts(client, reply, 0, texts));
  if (texts.empty()) return text;
  std::vector<std::string_view> views(texts.begin(), texts.end());
  SLUICE_ASSIGN_OR_RETURN(auto schema, avro::Parse(text, views));
  return avro::WriteJson(schema);
}

// ---- decode ----

struct DecodeFlags {
  RegistryFlags registry;
  std::string reader_schema;
  std::string out;
  std::string file;
  bool with_meta = false;
  bool quiet = false;
};

// A writer schema and the decoder compiled for it (to the reader schema, when there is one).
struct WriterDecoder {
  std::shared_ptr<const avro::AvroSchema> writer;
  data::AvroDecoder decoder;
};

int RunDecode(const DecodeFlags& f) {
  auto file = ReadDataFile(f.file);
  if (!file.has_value()) return ReportError(file.error());
  std::optional<avro::AvroSchema> reader;
  if (!f.reader_schema.empty()) {
    auto text = ReadInput(f.reader_schema);
    if (!text.has_value()) return ReportError(text.error().WithContext(f.reader_schema));
    auto parsed = avro::Parse(*text);
    if (!parsed.has_value()) return ReportError(parsed.error().WithContext(f.reader_schema));
    reader.emplace(std::move(parsed).value());
  }
  auto client = ConnectRegistry(f.registry);
  if (!client.has_value()) return ReportError(client.error());
  registry::Client& registry_client = **client;

  data::SchemaCache cache([&](int32_t id) -> Result<std::string> {
    SLUICE_ASSIGN_OR_RETURN(JsonValue reply,
                            GetJson(registry_client, "/schemas/ids/" + std::to_string(id)));
    return StandaloneSchemaText(registry_client, reply);
  });
  // One outcome per schema id for the whole run: an id that cannot be fetched or read is not
  // asked for again, each of its messages fails with the same reason.
  std::map<int32_t, Result<std::shared_ptr<const WriterDecoder>>> decoders;
  bool registry_failed = false;
  auto decoder_for = [&](int32_t id) -> const Result<std::shared_ptr<const WriterDecoder>>& {
    auto it = decoders.find(id);
    if (it != decoders.end()) return it->second;
    Result<std::shared_ptr<const WriterDecoder>> made =
        [&]() -> Result<std::shared_ptr<const WriterDecoder>> {
      SLUICE_ASSIGN_OR_RETURN(auto writer, cache.Get(id));
      auto decoder =
          reader ? data::AvroDecoder::Make(*writer, *reader) : data::AvroDecoder::Make(*writer);
      if (!decoder.has_value()) {
        return Fail(decoder.error().WithContext(fmt::format("schema id {}", id)));
      }
      return std::make_shared<const WriterDecoder>(
          WriterDecoder{std::move(writer), std::move(decoder).value()});
    }();
    // A registry that cannot be reached (or answers with a server error) is an input error of
    // the run, not a bad message.
    if (!made.has_value() && made.error().code() == ErrorCode::kIoError) registry_failed = true;
    return decoders.emplace(id, std::move(made)).first->second;
  };

  data::MessageFileReader messages(*file);
  std::string out;
  size_t decoded = 0, failed = 0;
  int exit_code = kExitOk;
  for (;;) {
    auto next = messages.Next();
    if (!next.has_value()) {
      // Nothing after a broken length can be found; what came before is still written.
      ReportError(next.error().WithContext(f.file));
      exit_code = kExitError;
      break;
    }
    if (!next->has_value()) break;
    const data::MessageRecord& record = **next;
    auto report = [&](const std::string& why) {
      std::cerr << fmt::format("sluice: {}: message {} at byte {}: {}\n", f.file, record.index + 1,
                               record.offset, why);
      ++failed;
    };
    auto framed = data::ParseFrame(record.message);
    if (!framed.has_value()) {
      report(framed.error().message());
      continue;
    }
    const auto& decoder = decoder_for(framed->schema_id);
    if (!decoder.has_value()) {
      report(decoder.error().message());
      continue;
    }
    auto value = (*decoder)->decoder.Decode(framed->payload);
    if (!value.has_value()) {
      report(
          fmt::format("schema id {}: Avro payload {}", framed->schema_id, value.error().message()));
      continue;
    }
    if (f.with_meta) {
      out += fmt::format(R"({{"index":{},"offset":{},"schema_id":{},"value":)", record.index + 1,
                         record.offset, framed->schema_id);
      out += ToJson(*value);
      out += "}\n";
    } else {
      out += ToJson(*value);
      out += '\n';
    }
    ++decoded;
  }
  if (Status s = WriteOutput(f.out, out); !s.has_value()) return ReportError(s.error());
  if (!f.quiet) {
    std::cerr << fmt::format("{} message{}: {} decoded, {} failed\n", decoded + failed,
                             decoded + failed == 1 ? "" : "s", decoded, failed);
  }
  if (exit_code != kExitOk || registry_failed) return kExitError;
  return failed > 0 ? kExitFindings : kExitOk;
}

// ---- encode ----

struct EncodeFlags {
  RegistryFlags registry;
  std::string subject;
  std::string version;
  int64_t id = -1;
  std::string out;
  std::string file;
  bool quiet = false;
};

int RunEncode(const EncodeFlags& f) {
  if (f.subject.empty() == (f.id < 0)) {
    return ReportError(Error(ErrorCode::kInvalidArgument, "give --subject or --id, not both"));
  }
  if (!f.version.empty() && f.subject.empty()) {
    return ReportError(Error(ErrorCode::kInvalidArgument, "--version goes with --subject"));
  }
  if (f.id > std::numeric_limits<int32_t>::max()) {
    return ReportError(
        Error(ErrorCode::kInvalidArgument,
              fmt::format("--id {} is beyond the 32-bit ids of the wire format", f.id)));
  }
  if ((f.out.empty() || f.out == "-") && IsTerminal(1)) {
    return ReportError(Error(ErrorCode::kInvalidArgument,
                             "the output is binary: give --out FILE or redirect standard output"));
  }
  auto lines = ReadDataFile(f.file);
  if (!lines.has_value()) return ReportError(lines.error());
  auto client = ConnectRegistry(f.registry);
  if (!client.has_value()) return ReportError(client.error());

  const std::string version = f.version.empty() ? "latest" : f.version;
  const std::string path = f.subject.empty() ? "/schemas/ids/" + std::to_string(f.id)
                                             : "/subjects/" + registry::EncodeSegment(f.subject) +
                                                   "/versions/" + registry::EncodeSegment(version);
  const std::string what = f.subject.empty()
                               ? fmt::format("schema id {}", f.id)
                               : fmt::format("subject {} version {}", f.subject, version);
  auto reply = GetJson(**client, path);
  if (!reply.has_value()) return ReportError(reply.error().WithContext(what));
  int64_t id = f.id;
  if (!f.subject.empty()) {
    const JsonValue* id_value = reply->Find("id");
    std::optional<int64_t> n =
        id_value != nullptr && id_value->is_number() ? id_value->as_int64() : std::nullopt;
    if (!n || *n < 0 || *n > std::numeric_limits<int32_t>::max()) {
      return ReportError(
          Error(ErrorCode::kParseError, what + ": the registry's reply has no valid \"id\""));
    }
    id = *n;
  }
  auto text = StandaloneSchemaText(**client, *reply);
  if (!text.has_value()) return ReportError(text.error().WithContext(what));
  auto schema = avro::Parse(*text);
  if (!schema.has_value()) return ReportError(schema.error().WithContext(what));

  std::string out;
  std::string payload;
  size_t encoded = 0, failed = 0;
  size_t line_number = 0;
  std::string_view rest = *lines;
  while (!rest.empty()) {
    ++line_number;
    const size_t nl = rest.find('\n');
    std::string_view line = rest.substr(0, nl);
    rest = nl == std::string_view::npos ? std::string_view() : rest.substr(nl + 1);
    line = TrimWhitespace(line);
    if (line.empty()) continue;
    auto report = [&](const Error& e) {
      std::cerr << fmt::format("sluice: {}: line {}: {}\n", f.file, line_number, e.message());
      ++failed;
    };
    auto datum = ParseJson(line);
    if (!datum.has_value()) {
      report(datum.error());
      continue;
    }
    payload.clear();
    if (Status s = data::AppendAvro(schema->root(), *datum, payload); !s.has_value()) {
      report(s.error());
      continue;
    }
    if (Status s =
            data::AppendLengthPrefixed(out, data::FrameMessage(static_cast<int32_t>(id), payload));
        !s.has_value()) {
      report(s.error());
      continue;
    }
    ++encoded;
  }
  if (Status s = WriteOutput(f.out, out); !s.has_value()) return ReportError(s.error());
  if (!f.quiet) {
    std::cerr << fmt::format("{} record{} encoded with schema id {}, {} failed\n", encoded,
                             encoded == 1 ? "" : "s", id, failed);
  }
  return failed > 0 ? kExitFindings : kExitOk;
}

}  // namespace

void RegisterWireCommands(CLI::App& app, int& exit_code) {
  {
    auto f = std::make_shared<DecodeFlags>();
    CLI::App* c = app.add_subcommand(
        "decode",
        "Decode a file of length-prefixed Confluent-framed Avro messages to JSON lines, with the "
        "writer schemas from a registry");
    c->add_option("file", f->file, "Message file (- for stdin)")->required();
    AddRegistryFlags(c, f->registry, "--registry");
    c->add_option("--reader-schema", f->reader_schema,
                  "Avro schema (.avsc) to read every message as (schema resolution)");
    c->add_option("-o,--output,--out", f->out,
                  "Write the JSON lines here (default: standard output)");
    c->add_flag(
        "--with-meta", f->with_meta,
        "Write {\"index\",\"offset\",\"schema_id\",\"value\"} objects instead of bare values");
    c->add_flag("-q,--quiet", f->quiet, "No summary line on standard error");
    c->callback([f, &exit_code] { exit_code = RunDecode(*f); });
  }
  {
    auto f = std::make_shared<EncodeFlags>();
    CLI::App* c = app.add_subcommand(
        "encode",
        "Encode JSON lines (Avro's JSON encoding) into a file of length-prefixed "
        "Confluent-framed Avro messages, with a schema from a registry");
    c->add_option("file", f->file, "JSON lines, one datum per line (- for stdin)")->required();
    AddRegistryFlags(c, f->registry, "--registry");
    c->add_option("--subject", f->subject, "Take the schema of this subject's --version");
    c->add_option("--version", f->version, "Version number or latest (default: latest)");
    c->add_option("--id", f->id, "Take the schema with this id");
    c->add_option("-o,--output,--out", f->out,
                  "Write the message file here (default: standard output, when not a terminal)");
    c->add_flag("-q,--quiet", f->quiet, "No summary line on standard error");
    c->callback([f, &exit_code] { exit_code = RunEncode(*f); });
  }
}

}  // namespace sluice::cli
