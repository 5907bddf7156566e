#include "hrx/core/version.h"

const char* hrx_core_version(void) { return HRX_CORE_VERSION; }
