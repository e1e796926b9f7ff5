// Schemas as the registry reads them: a request's schema parsed once (with its references
// resolved against the store) into what is stored, what identifies it and what the
// compatibility engine checks; and the parsed forms of stored schemas, cached by id.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "sluice/evolution/compatibility.h"
#include "sluice/registry/api_error_internal.h"
#include "sluice/registry/catalog_internal.h"
#include "sluice/registry/request_internal.h"

namespace sluice::registry::internal {

/// A referenced schema: the name the referring schema uses for it, and its stored text.
struct RefText {
  std::string name;
  std::string text;
};

/// A JSON Schema with its references written in, for the compatibility engine: each referenced
/// schema goes under `$defs/sluice-ref-N` of the root, and every `$ref` to a reference name
/// ("address.json", "address.json#/definitions/x") points there instead. Inside a referenced
/// schema without its own `$id`, `#...` references are moved along with it.
Result<std::string> BundleJsonSchema(std::string_view text, const std::vector<RefText>& refs);

/// A request's schema after its one parse.
struct Candidate {
  SchemaType type = SchemaType::kAvro;
  /// What is stored and returned: Avro's compact form with every attribute (the request's own
  /// compact JSON when it has references), or compact JSON (keys sorted with `normalize`).
  std::string text;
  /// The `refs` column: the references with -1 resolved to a version number.
  std::string refs = "[]";
  std::string fingerprint;
  /// The standalone form (references written in), as the compatibility engine checks it.
  evolution::ParsedSchemaPtr parsed;
};

/// Thread-safe: one per registry, shared by every request.
class SchemaResolver {
 public:
  /// Request schemas nested deeper than `max_depth` JSON levels are 42201.
  explicit SchemaResolver(size_t max_depth) : max_depth_(max_depth) {}

  /// The request's schema, with its references resolved in `catalog`. An empty schema stands
  /// for `fallback` (the subject's latest), as Confluent has it. Errors are 42201 (invalid
  /// schema or reference), 422 (a member of the wrong type) and 50001.
  Result<Candidate> Resolve(Catalog& catalog, const SchemaRequest& request,
                            const std::optional<SchemaRow>& fallback);
  /// Resolve for a request with a schema of its own and no references: it needs no store, so a
  /// registration parses before it takes the write lock.
  Result<Candidate> ResolveOwn(const SchemaRequest& request);

  /// The parsed form of a stored schema (standalone, its references written in), cached by id:
  /// a stored schema never changes. 50001 if it no longer parses.
  Result<evolution::ParsedSchemaPtr> Parsed(Catalog& catalog, const SchemaRow& row);
  /// Remember `parsed` as the form of the schema just stored under `id`, so the next check
  /// against it does not parse its text again.
  void Remember(int64_t id, evolution::ParsedSchemaPtr parsed);

 private:
  Result<Candidate> Parse(const SchemaRequest& request, const std::optional<SchemaRow>& fallback,
                          const std::vector<SchemaRef>& refs,
                          const std::vector<RefText>& ref_texts) const;
  Status ParseAvro(std::string_view text, const std::vector<SchemaRef>& refs,
                   const std::vector<RefText>& ref_texts, Candidate& c,
                   std::optional<std::string>& standalone) const;
  Status ParseJsonSchema(std::string_view text, bool normalize, const std::vector<SchemaRef>& refs,
                         const std::vector<RefText>& ref_texts, Candidate& c,
                         std::optional<std::string>& standalone) const;
  Result<evolution::ParsedSchemaPtr> ParseStored(Catalog& catalog, const SchemaRow& row);

  size_t max_depth_;
  std::mutex mu_;
  std::map<int64_t, evolution::ParsedSchemaPtr> parsed_;
};

/// Appends the schemas `refs` name to `texts`, each after the ones it references in turn (depth
/// first), as the Avro parser needs them. They must be of `type` (the referring schema's). -1 is
/// resolved to the latest live version in `refs`, so what is stored names a fixed version.
Status CollectReferences(Catalog& catalog, std::vector<SchemaRef>& refs, int depth, SchemaType type,
                         std::vector<RefText>& texts);

/// A stored schema with references as one standalone schema, for the compatibility engine.
Result<std::string> Standalone(SchemaType type, std::string_view text,
                               const std::vector<RefText>& refs);

}  // namespace sluice::registry::internal
