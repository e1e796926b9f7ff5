#include "sluice/ui/api_internal.h"
