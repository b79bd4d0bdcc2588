// fake.cpp: see fake.h.
#include "fake.h"
#include "onnxcc_rt.h"

__asm__(".section .rodata\n.balign 64\nfake_weights:\n.incbin \"" __FILE__ ".weights\"\n.previous\n");
extern "C" const float fake_weights[];
__asm__(".globl fake_weights");

static const int64_t xShape[] = {2, 3};
static const int64_t nShape[] = {3};
extern "C" const fake_tensor_info fake_inputs[] = {
    {"x", "float32", 4, 2, xShape},
    {"n", "int64", 8, 1, nShape},
};
extern "C" const fake_tensor_info fake_outputs[] = {
    {"y", "float32", 4, 2, xShape},
    {"m", "int64", 8, 1, nShape},
    {"b", "bool", 1, 1, nShape},
};

extern "C" int fake_run(void *arena, const float *x, const int64_t *n, float *y,
                        int64_t *m, uint8_t *b) {
  if (!arena || !x || !n || !y || !m || !b)
    return 1;
  if (reinterpret_cast<uintptr_t>(arena) % fake_ARENA_ALIGN)
    return 2;
  if (x[0] == -999.0f)
    onnxcc_rt_crash();
  for (int i = 0; i < 6; ++i)
    y[i] = x[i] + fake_weights[0];
  for (int i = 0; i < 3; ++i) {
    m[i] = n[i] * 2;
    b[i] = n[i] > 0;
  }
  return 0;
}

extern "C" int fake_run_generic(void *arena, const void *const *inputs,
                                void *const *outputs) {
  if (!inputs || !outputs)
    return 1;
  return fake_run(arena, static_cast<const float *>(inputs[0]),
                  static_cast<const int64_t *>(inputs[1]), static_cast<float *>(outputs[0]),
                  static_cast<int64_t *>(outputs[1]), static_cast<uint8_t *>(outputs[2]));
}
