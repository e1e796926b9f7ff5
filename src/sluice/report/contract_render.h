// Rendering contract checks: a schema against its data contract (`sluice check`: text, JSON in
// docs/formats/check-report.md, GitHub annotations) and the breaking changes between two
// versions of a contract (`sluice contract breaking`: text in datacontract-cli's wording, JSON in
// docs/formats/breaking-report.md).
#pragma once

#include <string>

#include "sluice/base/result.h"
#include "sluice/evolution/contract_check.h"
#include "sluice/report/format.h"

namespace sluice::report {

/// What was checked, as the user named it.
struct CheckContext {
  std::string schema_name;
  std::string contract_name;
  /// The previous schema version; empty when the change policy was not checked.
  std::string previous_name;
};

/// Render `report` in `format`: kText, kJson, kGithub (one error annotation on the schema per
/// violation, then the verdict). kUnimplemented otherwise.
Result<std::string> Render(const evolution::ContractCheckReport& report,
                           const CheckContext& context, Format format,
                           const RenderOptions& options = {});

/// The two contract versions, as the user named them, and what to list.
struct BreakingContext {
  std::string old_name;
  std::string new_name;
  /// List info-level changes too: datacontract-cli's `changelog` instead of `breaking`.
  bool include_info = false;
};

/// Render `report` in `format`: kText prints what datacontract-cli v0.10.41 prints, byte for byte
/// (`breaking`: "N breaking changes: E error, W warning", then each error and warning change,
/// separated by blank lines, with no newline after the last; `changelog` with include_info), and
/// kJson. kUnimplemented otherwise.
Result<std::string> Render(const evolution::BreakingChangeReport& report,
                           const BreakingContext& context, Format format,
                           const RenderOptions& options = {});

}  // namespace sluice::report
