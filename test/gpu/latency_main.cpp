// Latency of a model compiled with `onnxcc compile --target cuda`, for the
// device check (test/gpu/run_on_device.sh). Built with -DMODEL_HEADER='"x.h"'
// and -DMODEL=x against the generated x.cpp: creates the model on device 0,
// fills every input with a fixed pattern in device memory, runs it
// --warmup times, then times --iters runs, each waited for (batch-1
// latency, what a serving thread sees), and prints one line:
//   latency MODEL median_ms p90_ms kernels
// Symbolic dims are given as --dims=D0,D1,... (in MODEL_symbols order).
#include MODEL_HEADER
#include "onnxcc_cuda.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#define CAT2(a, b) a##b
#define CAT(a, b) CAT2(a, b)
#define M(x) CAT(MODEL, x)

int main(int argc, char **argv) {
  int warmup = 20, iters = 200;
  std::vector<int64_t> dims;
  for (int i = 1; i < argc; ++i) {
    if (!std::strncmp(argv[i], "--warmup=", 9))
      warmup = std::atoi(argv[i] + 9);
    else if (!std::strncmp(argv[i], "--iters=", 8))
      iters = std::atoi(argv[i] + 8);
    else if (!std::strncmp(argv[i], "--dims=", 7))
      for (char *p = argv[i] + 7; *p;) {
        dims.push_back(std::strtoll(p, &p, 10));
        if (*p == ',')
          ++p;
      }
  }
  M(_cuda) *model = nullptr;
  int status = M(_cuda_create)(&model, 0);
  if (status) {
    std::fprintf(stderr, "create: %d %s\n", status, M(_cuda_status_message)(nullptr, status));
    return status == 20 || status == 21 ? 4 : 1;
  }
  const onnxcc_cuda::Driver *d = onnxcc_cuda::driver();
  const int numIn = M(_NUM_INPUTS), numOut = M(_NUM_OUTPUTS);
  std::vector<const void *> in(numIn);
  std::vector<void *> out(numOut);
  auto bytesOf = [&](const M(_tensor_info) & t) {
    size_t n = size_t(t.elem_size);
    size_t sym = 0;
    for (int k = 0; k < t.rank; ++k)
      n *= size_t(t.shape[k] >= 0 ? t.shape[k] : (sym < dims.size() ? dims[sym++] : 1));
    return n;
  };
  onnxcc_cuda::ContextScope scope(d, reinterpret_cast<onnxcc_cuda::Model *>(model));
  for (int i = 0; i < numIn; ++i) {
    size_t bytes = bytesOf(M(_inputs)[i]);
    std::vector<unsigned char> host(bytes);
    bool isFloat = !std::strcmp(M(_inputs)[i].dtype, "float32");
    for (size_t k = 0; k + 3 < bytes || (!isFloat && k < bytes); k += isFloat ? 4 : 1) {
      if (isFloat) {
        float v = float(int(k / 4 % 17) - 8) / 8.0f;
        std::memcpy(&host[k], &v, 4);
      } else {
        host[k] = 0; // integer inputs (token ids): 0, in range for any table
      }
    }
    onnxcc_cuda::CUdeviceptr p = 0;
    if (d->cuMemAlloc(&p, bytes ? bytes : 1) || d->cuMemcpyHtoD(p, host.data(), bytes)) {
      std::fprintf(stderr, "cannot allocate input %d\n", i);
      return 1;
    }
    in[i] = reinterpret_cast<void *>(uintptr_t(p));
  }
  for (int i = 0; i < numOut; ++i) {
    onnxcc_cuda::CUdeviceptr p = 0;
    size_t bytes = bytesOf(M(_outputs)[i]);
    if (d->cuMemAlloc(&p, bytes ? bytes : 1)) {
      std::fprintf(stderr, "cannot allocate output %d\n", i);
      return 1;
    }
    out[i] = reinterpret_cast<void *>(uintptr_t(p));
  }
  std::vector<double> ms;
  for (int r = 0; r < warmup + iters; ++r) {
    auto t0 = std::chrono::steady_clock::now();
#ifdef MODEL_SYMBOLIC
    status = M(_cuda_run_generic)(model, nullptr, dims.data(), in.data(), out.data());
#else
    status = M(_cuda_run_generic)(model, nullptr, in.data(), out.data());
#endif
    if (status == 0 && d->cuStreamSynchronize(nullptr))
      status = 24;
    auto t1 = std::chrono::steady_clock::now();
    if (status) {
      std::fprintf(stderr, "run: %d %s\n", status, M(_cuda_status_message)(model, status));
      return 1;
    }
    if (r >= warmup)
      ms.push_back(std::chrono::duration<double, std::milli>(t1 - t0).count());
  }
  std::sort(ms.begin(), ms.end());
  std::printf("latency %s %.4f %.4f\n", argc > 0 ? argv[0] : "?", ms[ms.size() / 2],
              ms[std::min(ms.size() - 1, ms.size() * 9 / 10)]);
  M(_cuda_destroy)(model);
  return 0;
}
