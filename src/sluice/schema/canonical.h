// The model's canonical form and fingerprint: a deterministic JSON text of a schema's fields, and
// the SHA-256 of it. Two schemas have the same fingerprint exactly when their fields are equal
// (names, types, nullability, docs, defaults, metadata), whichever language they were read from.
// The schema's own name and namespace are not part of it.
#pragma once

#include <string>

#include "sluice/schema/schema.h"

namespace sluice::schema {

/// Return the canonical JSON: object keys in a fixed order (metadata keys sorted), no whitespace,
/// numbers in shortest form. Documented in docs/formats/canonical-form.md.
std::string CanonicalForm(const Schema& schema);

/// Return the lower-case hex SHA-256 of CanonicalForm(schema).
std::string Fingerprint(const Schema& schema);

}  // namespace sluice::schema
