#include "sluice/table/scan.h"
