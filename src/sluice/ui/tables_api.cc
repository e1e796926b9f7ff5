#include "sluice/ui/api_internal.h"
namespace sluice::ui::internal {
registry::HttpResponse TableList(const UiOptions&, const ApiRequest&) { return NotFound("todo"); }
registry::HttpResponse TableHistory(const UiOptions&, const ApiRequest&) {
  return NotFound("todo");
}
registry::HttpResponse TableSchema(const UiOptions&, const ApiRequest&) { return NotFound("todo"); }
}  // namespace sluice::ui::internal
