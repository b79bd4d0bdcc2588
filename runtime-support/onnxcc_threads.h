// onnxcc_threads.h - the thread pool of models compiled with --threads N.
// Header-only, C++17, standard library only. Copied next to the generated
// source by `onnxcc compile` when N > 1.
//
// A model compiled with --threads N splits each heavy layer into N parts,
// each a fixed slice of the layer's work, so results do not depend on which
// thread runs which part. run() hands the parts to `parallel_for`, which runs
// them on the application's pool when one is installed (the model's
// NAME_set_parallel) and otherwise on a pool of N - 1 persistent worker
// threads, started on first use, with the calling thread taking parts too.
#ifndef ONNXCC_THREADS_H
#define ONNXCC_THREADS_H

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <thread>
#include <vector>

namespace onnxcc_rt {

/// Runs fn(task, part) for every part in [0, parts) and returns when all are
/// done. The signature of an application's pool.
using parallel_fn = void (*)(void *ctx, int64_t parts, void (*fn)(void *task, int64_t part),
                             void *task);

/// A fixed set of worker threads that take the parts of one job at a time.
/// Concurrent callers (runs on different arenas) take turns.
class ThreadPool {
public:
  explicit ThreadPool(int threads) {
    for (int i = 1; i < threads; ++i)
      workers_.emplace_back([this] { work(); });
  }
  ThreadPool(const ThreadPool &) = delete;
  ThreadPool &operator=(const ThreadPool &) = delete;
  ~ThreadPool() {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      stop_ = true;
    }
    wake_.notify_all();
    for (std::thread &t : workers_)
      t.join();
  }

  void run(int64_t parts, void (*fn)(void *, int64_t), void *task) {
    if (workers_.empty() || parts <= 1) {
      for (int64_t p = 0; p < parts; ++p)
        fn(task, p);
      return;
    }
    std::lock_guard<std::mutex> turn(turn_);
    uint64_t job;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      job = ++job_;
      jobPosted_.store(job, std::memory_order_release);
      fn_ = fn;
      task_ = task;
      parts_ = parts;
      done_.store(0, std::memory_order_relaxed);
      next_.store(job << 32, std::memory_order_release);
    }
    wake_.notify_all();
    take(job, fn, task, parts);
    // The last parts may still run on workers: wait for them, spinning
    // first (layers take microseconds to milliseconds).
    for (int spin = 0; done_.load(std::memory_order_acquire) < parts; ++spin)
      if (spin > 4096)
        std::this_thread::yield();
  }

private:
  /// Runs parts of job `job` until none is left. `next_` holds the job in
  /// its high half and the next part in its low half, so a worker that
  /// arrives late never takes a part of a later job.
  void take(uint64_t job, void (*fn)(void *, int64_t), void *task, int64_t parts) {
    uint64_t v = next_.load(std::memory_order_acquire);
    for (;;) {
      int64_t part = static_cast<int64_t>(v & 0xffffffffu);
      if ((v >> 32) != (job & 0xffffffffu) || part >= parts)
        return;
      if (!next_.compare_exchange_weak(v, v + 1, std::memory_order_acq_rel))
        continue; // v was reloaded
      fn(task, part);
      done_.fetch_add(1, std::memory_order_acq_rel);
      v = next_.load(std::memory_order_acquire);
    }
  }

  void work() {
    uint64_t seen = 0;
    for (;;) {
      // Spin a little for the next job before sleeping on the condition.
      for (int spin = 0; spin < 20000 && jobPosted_.load(std::memory_order_acquire) == seen;
           ++spin)
        std::this_thread::yield();
      void (*fn)(void *, int64_t);
      void *task;
      int64_t parts;
      uint64_t job;
      {
        std::unique_lock<std::mutex> lock(mutex_);
        wake_.wait(lock, [&] { return stop_ || job_ != seen; });
        if (stop_)
          return;
        seen = job = job_;
        fn = fn_;
        task = task_;
        parts = parts_;
      }
      take(job, fn, task, parts);
    }
  }

  std::vector<std::thread> workers_;
  std::mutex turn_;  // one job at a time
  std::mutex mutex_; // guards the job fields and stop_
  std::condition_variable wake_;
  bool stop_ = false;
  uint64_t job_ = 0; // jobs posted so far
  void (*fn_)(void *, int64_t) = nullptr;
  void *task_ = nullptr;
  int64_t parts_ = 0;
  std::atomic<uint64_t> jobPosted_{0}; // job_, readable without the lock
  std::atomic<uint64_t> next_{0};      // (job << 32) | next part
  std::atomic<int64_t> done_{0};       // parts of the current job finished
};

/// Runs f(part) for part in [0, parts): on `parallel` when the application
/// installed one, else on `pool()` (a ThreadPool made on first use).
template <typename PoolFn, typename F>
inline void parallel_for(parallel_fn parallel, void *ctx, PoolFn pool, int64_t parts, F &f) {
  auto trampoline = [](void *task, int64_t part) { (*static_cast<F *>(task))(part); };
  if (parallel)
    parallel(ctx, parts, trampoline, &f);
  else
    pool().run(parts, trampoline, &f);
}

} // namespace onnxcc_rt

#endif // ONNXCC_THREADS_H
