#include "sluice/schema/conversion.h"

namespace sluice::schema {

std::string LossyNote::ToString() const {
  if (path.empty()) return message;
  return path.ToString() + ": " + message;
}

}  // namespace sluice::schema
