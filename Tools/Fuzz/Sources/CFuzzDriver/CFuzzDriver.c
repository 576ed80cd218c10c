// Declarations only (see include/CFuzzDriver.h); the driver itself comes from -sanitize=fuzzer.
#include "CFuzzDriver.h"
