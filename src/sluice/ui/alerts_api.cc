#include "sluice/ui/api_internal.h"
namespace sluice::ui::internal {
registry::HttpResponse AlertList(const UiOptions&, const ApiRequest&) { return NotFound("todo"); }
}  // namespace sluice::ui::internal
