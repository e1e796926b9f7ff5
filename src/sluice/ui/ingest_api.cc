#include "sluice/ui/api_internal.h"
namespace sluice::ui::internal {
registry::HttpResponse IngestList(const UiOptions&, const ApiRequest&) { return NotFound("todo"); }
registry::HttpResponse IngestBatches(const UiOptions&, const ApiRequest&) {
  return NotFound("todo");
}
registry::HttpResponse IngestQuarantine(const UiOptions&, const ApiRequest&) {
  return NotFound("todo");
}
}  // namespace sluice::ui::internal
