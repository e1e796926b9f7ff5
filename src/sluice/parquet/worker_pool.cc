#include "sluice/parquet/worker_pool_internal.h"

namespace sluice::parquet::internal {

WorkerPool::WorkerPool(int threads) {
  for (int i = 1; i < threads; ++i) threads_.emplace_back([this] { Work(); });
}

WorkerPool::~WorkerPool() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_ = true;
  }
  start_.notify_all();
  for (std::thread& t : threads_) t.join();
}

void WorkerPool::RunJobs() {
  for (size_t i = next_.fetch_add(1); i < count_; i = next_.fetch_add(1)) {
    results_[i] = (*job_)(i);
  }
}

void WorkerPool::Work() {
  uint64_t seen = 0;
  while (true) {
    {
      std::unique_lock<std::mutex> lock(mu_);
      start_.wait(lock, [&] { return stop_ || generation_ != seen; });
      if (stop_) return;
      seen = generation_;
    }
    RunJobs();
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (--busy_ == 0) done_.notify_one();
    }
  }
}

Status WorkerPool::ForEach(size_t count, const std::function<Status(size_t)>& job) {
  if (threads_.empty() || count <= 1) {
    for (size_t i = 0; i < count; ++i) SLUICE_TRY(job(i));
    return Ok();
  }
  results_.assign(count, Ok());
  {
    std::lock_guard<std::mutex> lock(mu_);
    job_ = &job;
    count_ = count;
    next_.store(0);
    busy_ = threads_.size();
    ++generation_;
  }
  start_.notify_all();
  RunJobs();
  {
    std::unique_lock<std::mutex> lock(mu_);
    done_.wait(lock, [&] { return busy_ == 0; });
    job_ = nullptr;
  }
  for (Status& s : results_) {
    if (!s) return s;
  }
  return Ok();
}

}  // namespace sluice::parquet::internal
