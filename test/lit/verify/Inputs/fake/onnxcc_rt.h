// onnxcc_rt.h: the runtime-support header fake.cpp includes (a stand-in).
#pragma once
#include <stdlib.h>
static inline void onnxcc_rt_crash() { abort(); }
