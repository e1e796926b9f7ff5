// A few threads that run the same job over a range of indexes, the caller's thread among them:
// the record assembler decodes its columns' pages this way. Not for use outside
// src/sluice/parquet.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstddef>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

#include "sluice/base/result.h"

namespace sluice::parquet::internal {

class WorkerPool {
 public:
  /// Start `threads - 1` workers (none for 1 or less).
  explicit WorkerPool(int threads);
  ~WorkerPool();
  WorkerPool(const WorkerPool&) = delete;
  WorkerPool& operator=(const WorkerPool&) = delete;

  /// Run job(i) for every i in [0, count), spread over the workers and the calling thread, and
  /// wait for all. Return the error of the lowest index that failed, as a loop in index order
  /// would have stopped at it (jobs after it may still have run).
  Status ForEach(size_t count, const std::function<Status(size_t)>& job);

 private:
  void Work();
  void RunJobs();

  std::vector<std::thread> threads_;
  std::mutex mu_;
  std::condition_variable start_;
  std::condition_variable done_;
  bool stop_ = false;
  uint64_t generation_ = 0;  // counts ForEach calls, so each worker joins each once
  size_t busy_ = 0;          // workers still in the current call
  const std::function<Status(size_t)>* job_ = nullptr;
  size_t count_ = 0;
  std::atomic<size_t> next_{0};
  std::vector<Status> results_;
};

}  // namespace sluice::parquet::internal
