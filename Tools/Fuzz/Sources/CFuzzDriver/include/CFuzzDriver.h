// libFuzzer's driver entry point (compiler-rt FuzzerInterface.h). SwiftPM links an executable's
// main.swift as `main`, so each fuzz target calls this itself instead of using libFuzzer's own main.
#include <stddef.h>
#include <stdint.h>

int LLVMFuzzerRunDriver(int *argc, char ***argv, int (*callback)(const uint8_t *data, size_t size));
