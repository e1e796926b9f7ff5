// The Data Contract Specification (DCS, `dataContractSpecification: 0.9.x ... 1.2.x`), the
// format datacontract-cli read before it moved to ODCS. Read so that old contracts can be checked
// and compared with new ones (evolution/contract_check.h); sluice writes ODCS, never DCS.
#pragma once

#include <string_view>

#include "sluice/base/result.h"
#include "sluice/dialects/contract/contract.h"

namespace sluice::dialects::contract {

/// Read a DCS contract. Each `models` entry becomes a ContractObject named by its key, with
/// `type` (table, view, object, ...) as physical_type; each field becomes a schema field and a
/// ColumnSpec (see ColumnSpec for where the DCS keys go). Field types follow DCS's type list:
/// string/text/varchar, number/decimal/numeric (decimal(precision, scale) when precision is
/// given), int/integer (int32), long/bigint (int64), float, double, boolean, timestamp and
/// timestamp_tz (an instant), timestamp_ntz, date, time, bytes, array (`items`), map (`keys`,
/// `values`), object/record/struct (`fields`), null; variant, json, unknown and missing types read
/// as string with a note. `required: true` is NOT NULL. `$ref` is kept, not resolved.
/// kInvalidArgument with the key path and line for a known key of the wrong YAML type, a model or
/// field that is not a mapping, or a file without `dataContractSpecification`; kParseError for
/// YAML syntax.
Result<Contract> ParseDcs(std::string_view yaml);

/// Cheap sniffing: a top-level `dataContractSpecification:` line (or JSON key) near the start.
bool LooksLikeDcs(std::string_view text);

}  // namespace sluice::dialects::contract
