#include "hrx/loom.h"

const char* hrx_loom_version(void) { return HRX_LOOM_VERSION; }
