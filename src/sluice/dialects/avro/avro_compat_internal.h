// Test support for the Avro compatibility checker. Not for other modules.
#pragma once

#include "sluice/base/result.h"
#include "sluice/dialects/avro/avro_compatibility.h"
#include "sluice/dialects/avro/avro_schema.h"

namespace sluice::dialects::avro::internal {

/// CheckCompatibility with Java's memo taken literally: every pair memoised and marked while in
/// progress. CheckCompatibility memoises only pairs with a named type on one side, the only ones
/// that can be requested twice; tests and the fuzzer check that both give the same result.
Result<AvroCompatibility> CheckCompatibilityMemoisingEveryPair(
    const AvroNode& reader, const AvroNode& writer, const AvroCompatibilityOptions& options = {});

}  // namespace sluice::dialects::avro::internal
