// Config (compatibility levels) and modes, per subject or for the registry as a whole (the
// empty subject).
#include "sluice/base/json_writer.h"
#include "sluice/registry/service_internal.h"

namespace sluice::registry::internal {
namespace {

using evolution::CompatibilityMode;

std::string Member(std::string_view key, std::string_view value) {
  JsonWriter w;
  w.BeginObject().Key(key).String(value).EndObject();
  return w.Take();
}

Error NoOwnLevel(std::string_view subject) {
  return ApiError(404, 40408,
                  "Subject '" + std::string(subject) +
                      "' does not have subject-level compatibility configured");
}

Error NoOwnMode(std::string_view subject) {
  return ApiError(
      404, 40409,
      "Subject '" + std::string(subject) + "' does not have subject-level mode configured");
}

}  // namespace

Result<std::string> Service::GetConfig(const Call& call) {
  const std::string_view subject = call.subject();
  SLUICE_ASSIGN_OR_RETURN(std::optional<CompatibilityMode> level,
                          call.catalog.Compatibility(subject));
  if (!level && !subject.empty() && !call.query.Bool("defaultToGlobal")) {
    return Fail(NoOwnLevel(subject));
  }
  if (!level) {
    SLUICE_ASSIGN_OR_RETURN(level, call.catalog.Compatibility(""));
  }
  return Member("compatibilityLevel",
                evolution::CompatibilityModeName(level.value_or(options_.default_compatibility)));
}

Result<std::string> Service::PutConfig(const Call& call) {
  SLUICE_ASSIGN_OR_RETURN(CompatibilityMode level, ParseConfigBody(call.body));
  Transaction tx(call.catalog.connection());
  SLUICE_TRY(tx.Begin(true));
  SLUICE_TRY(call.catalog.SetCompatibility(call.subject(), level));
  SLUICE_TRY(tx.Commit());
  return Member("compatibility", evolution::CompatibilityModeName(level));
}

Result<std::string> Service::DeleteConfig(const Call& call) {
  const std::string_view subject = call.subject();
  Transaction tx(call.catalog.connection());
  SLUICE_TRY(tx.Begin(true));
  SLUICE_ASSIGN_OR_RETURN(std::optional<CompatibilityMode> level,
                          call.catalog.Compatibility(subject));
  if (!subject.empty() && !level) {
    SLUICE_ASSIGN_OR_RETURN(std::vector<VersionRow> versions, call.catalog.Versions(subject));
    if (versions.empty()) return Fail(SubjectNotFound(subject));
    return Fail(NoOwnLevel(subject));
  }
  SLUICE_TRY(call.catalog.ClearCompatibility(subject));
  SLUICE_TRY(tx.Commit());
  return Member("compatibilityLevel",
                evolution::CompatibilityModeName(level.value_or(options_.default_compatibility)));
}

Result<std::string> Service::GetMode(const Call& call) {
  const std::string_view subject = call.subject();
  SLUICE_ASSIGN_OR_RETURN(std::optional<Mode> mode, call.catalog.ModeOf(subject));
  if (!mode && !subject.empty() && !call.query.Bool("defaultToGlobal")) {
    return Fail(NoOwnMode(subject));
  }
  if (!mode) {
    SLUICE_ASSIGN_OR_RETURN(mode, call.catalog.ModeOf(""));
  }
  return Member("mode", ModeName(mode.value_or(Mode::kReadWrite)));
}

Result<std::string> Service::PutMode(const Call& call) {
  const std::string_view subject = call.subject();
  SLUICE_ASSIGN_OR_RETURN(Mode mode, ParseModeBody(call.body, subject.empty()));
  Transaction tx(call.catalog.connection());
  SLUICE_TRY(tx.Begin(true));
  if (mode == Mode::kImport && !call.query.Bool("force")) {
    // Importing is for an empty registry (or subject): ids come from the import.
    SLUICE_ASSIGN_OR_RETURN(int64_t versions, call.catalog.CountVersions(subject));
    if (versions > 0) return Fail(NotPermitted("Cannot import since found existing subjects"));
  }
  SLUICE_TRY(call.catalog.SetMode(subject, mode));
  SLUICE_TRY(tx.Commit());
  return Member("mode", ModeName(mode));
}

Result<std::string> Service::DeleteMode(const Call& call) {
  const std::string_view subject = call.subject();
  Transaction tx(call.catalog.connection());
  SLUICE_TRY(tx.Begin(true));
  SLUICE_ASSIGN_OR_RETURN(std::optional<Mode> mode, call.catalog.ModeOf(subject));
  if (!subject.empty() && !mode) return Fail(NoOwnMode(subject));
  SLUICE_TRY(call.catalog.ClearMode(subject));
  SLUICE_TRY(tx.Commit());
  return Member("mode", ModeName(mode.value_or(Mode::kReadWrite)));
}

}  // namespace sluice::registry::internal
