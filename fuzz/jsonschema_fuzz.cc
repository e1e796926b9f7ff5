// Fuzz the JSON Schema dialect: parse (with and without trailing commas), convert to the model,
// and for what converts, write it back and read the written text again, which must succeed.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "sluice/dialects/jsonschema/json_schema.h"
#include "sluice/dialects/jsonschema/json_schema_convert.h"

namespace js = sluice::dialects::jsonschema;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  js::ParseOptions options;
  // The low bit of the first byte picks the options, so both parsers paths get covered.
  if (size > 0 && (data[0] & 1) != 0) {
    options.allow_trailing_commas = true;
    options.default_draft = js::Draft::kDraft7;
  }
  auto doc = js::Parse(text, options);
  if (!doc.has_value()) return 0;

  // Walk every node the way a diff would: follow each $ref.
  for (size_t i = 0; i < doc->node_count(); ++i) {
    const js::SchemaNode& node = doc->node(i);
    if (node.keywords().ref) (void)doc->ResolveRef(node);
    for (const js::Subschema& s : node.Subschemas()) {
      if (s.node == nullptr) std::abort();
    }
  }

  js::ToSchemaOptions convert_options;
  convert_options.max_visited_nodes = 20000;  // keep each input fast
  auto model = js::ToSchema(*doc, convert_options);
  if (!model.has_value()) return 0;
  for (js::Draft draft : {js::Draft::k2020_12, js::Draft::kDraft7}) {
    auto written = js::WriteSchema(*model->value, draft, 0);
    if (!written.has_value()) std::abort();
    // What sluice writes, sluice must read.
    auto again = js::ReadSchema(written->value);
    if (!again.has_value()) std::abort();
  }
  return 0;
}
