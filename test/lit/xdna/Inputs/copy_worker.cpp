// The C++ worker of copy-cxx.loom: one 1024-element i32 record per call, doubled.
extern "C" void copy_record(const int *input, int *output) {
  for (int i = 0; i < 1024; ++i)
    output[i] = 2 * input[i];
}
