// An application that links a model compiled with TARGET_KIND cuda: runs it
// on device 0 from host memory, or says that there is no GPU.
#include "tiny_cnn.h"

#include <cstdio>

int main() {
  float image[1 * 3 * 8 * 8];
  for (int c = 0; c < 3; ++c)
    for (int y = 0; y < 8; ++y)
      for (int x = 0; x < 8; ++x)
        image[(c * 8 + y) * 8 + x] = x == y ? 1.0f : 0.1f * c;
  tiny_cnn_cuda *model = nullptr;
  int status = tiny_cnn_cuda_create(&model, 0);
  if (status == 20 || status == 21) {
    std::printf("no CUDA GPU: %s\n", tiny_cnn_cuda_status_message(nullptr, status));
    return 0;
  }
  float probabilities[10];
  const void *inputs[] = {image};
  void *outputs[] = {probabilities};
  if (status == 0)
    status = tiny_cnn_cuda_run_host_generic(model, inputs, outputs);
  if (status != 0) {
    std::printf("status %d: %s\n", status, tiny_cnn_cuda_status_message(model, status));
    return 1;
  }
  int best = 0;
  float sum = 0;
  for (int k = 0; k < 10; ++k) {
    sum += probabilities[k];
    if (probabilities[k] > probabilities[best])
      best = k;
  }
  std::printf("class %d (p = %.3f), probabilities sum to %.3f\n", best, probabilities[best], sum);
  tiny_cnn_cuda_destroy(model);
  return 0;
}
