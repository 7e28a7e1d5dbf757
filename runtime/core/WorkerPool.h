// The host device's thread pool, shared by GPU workgroups and NPU worker batches.
#pragma once

#include "hrx/runtime/HostDevice.h"

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <thread>

namespace hrx::runtime {

// A fixed pool that runs one index-space job at a time; the caller takes part, so a job
// makes progress even on a single-core machine. Never allocates per job.
class WorkerPool {
public:
  static WorkerPool &instance() {
    // Leaked on purpose: workers may still be parked when static destructors run.
    static WorkerPool *pool = new WorkerPool(hostThreadCount() - 1);
    return *pool;
  }

  void parallelFor(uint64_t count, void (*body)(void *, uint64_t), void *context) {
    if (count == 0) return;
    std::lock_guard serialize(jobMutex_);
    {
      std::lock_guard lock(mutex_);
      body_ = body;
      context_ = context;
      count_ = count;
      // Chunks amortise the shared counter; several per thread keep the load balanced.
      chunk_ = std::max<uint64_t>(1, count / (8 * (uint64_t(workerCount_) + 1)));
      next_.store(0);
      open_ = true;
      ++generation_;
    }
    if (count > chunk_) wake_.notify_all();
    drain();
    // Once the caller has run out of chunks, workers that have not joined yet (e.g. still waiting
    // for a CPU on a busy machine) stay out; only those already draining are waited for.
    std::unique_lock lock(mutex_);
    open_ = false;
    idle_.wait(lock, [&] { return joinedWorkers_ == 0; });
  }

private:
  explicit WorkerPool(unsigned workers) : workerCount_(workers) {
    for (unsigned i = 0; i < workers; ++i) std::thread([this] { workerMain(); }).detach();
  }

  void drain() {
    for (uint64_t begin; (begin = next_.fetch_add(chunk_)) < count_;)
      for (uint64_t i = begin, end = std::min(begin + chunk_, count_); i < end; ++i) body_(context_, i);
  }

  void workerMain() {
    uint64_t seen = 0;
    std::unique_lock lock(mutex_);
    for (;;) {
      wake_.wait(lock, [&] { return generation_ != seen; });
      seen = generation_;
      if (!open_) continue;
      ++joinedWorkers_;
      lock.unlock();
      drain();
      lock.lock();
      if (--joinedWorkers_ == 0) idle_.notify_all();
    }
  }

  const unsigned workerCount_;
  std::mutex jobMutex_, mutex_;
  std::condition_variable wake_, idle_;
  void (*body_)(void *, uint64_t) = nullptr;
  void *context_ = nullptr;
  uint64_t count_ = 0, chunk_ = 1, generation_ = 0;
  std::atomic<uint64_t> next_{0};
  bool open_ = false;  // workers may join the current job
  unsigned joinedWorkers_ = 0;
};

// Runs `kernel` once per workgroup of `dispatch.workgroup_count` on the pool, each call with its
// own workgroup id (the host device's SPMD kernels and the emulated KFD's command processor).
inline void runHostWorkgroups(hrx_host_kernel_fn kernel, const hrx_host_dispatch &dispatch) {
  struct Job {
    hrx_host_kernel_fn kernel;
    const hrx_host_dispatch *dispatch;
  } job{kernel, &dispatch};
  auto runWorkgroup = [](void *context, uint64_t index) {
    const Job &job = *static_cast<const Job *>(context);
    hrx_host_dispatch own = *job.dispatch;
    const uint32_t *count = own.workgroup_count;
    if (count[1] == 1 && count[2] == 1) {
      own.workgroup_id[0] = static_cast<uint32_t>(index);
    } else {
      own.workgroup_id[0] = static_cast<uint32_t>(index % count[0]);
      own.workgroup_id[1] = static_cast<uint32_t>(index / count[0] % count[1]);
      own.workgroup_id[2] = static_cast<uint32_t>(index / (uint64_t(count[0]) * count[1]));
    }
    job.kernel(&own);
  };
  const uint32_t *count = dispatch.workgroup_count;
  WorkerPool::instance().parallelFor(uint64_t(count[0]) * count[1] * count[2], runWorkgroup, &job);
}

}  // namespace hrx::runtime
