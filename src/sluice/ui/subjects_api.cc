#include "sluice/ui/api_internal.h"
namespace sluice::ui::internal {
registry::HttpResponse SubjectTree(const UiOptions&, const ApiRequest&) { return NotFound("todo"); }
registry::HttpResponse SubjectDiff(const UiOptions&, const ApiRequest&) { return NotFound("todo"); }
registry::HttpResponse SubjectVerdicts(const UiOptions&, const ApiRequest&) {
  return NotFound("todo");
}
}  // namespace sluice::ui::internal
