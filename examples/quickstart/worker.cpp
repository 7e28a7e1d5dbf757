// The quick start's NPU worker: called once per record with one input and one output record.
#include <stdint.h>

extern "C" void double_record(const int32_t *input, int32_t *output) {
  for (int i = 0; i < 1024; ++i) output[i] = input[i] * 2;
}
