// Hands control to libFuzzer, which calls LLVMFuzzerTestOneInput (`fuzz`) once per input (a finding ends the process).
import CFuzzDriver
var argc = CommandLine.argc
var argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = CommandLine.unsafeArgv
_ = LLVMFuzzerRunDriver(&argc, &argv) { data, size in fuzz(data!, size) }
