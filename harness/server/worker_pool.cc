#include "server/worker_pool.h"

namespace foliolab {

WorkerPool::WorkerPool(int workers, size_t queue) : limit_(queue) {
  for (int i = 0; i < workers; ++i) threads_.emplace_back([this] { loop(); });
}

WorkerPool::~WorkerPool() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  ready_.notify_all();
  for (std::thread& t : threads_) t.join();
}

bool WorkerPool::try_submit(std::function<void()> work) {
  {
    std::lock_guard lock(mutex_);
    if (jobs_.size() >= limit_) return false;
    jobs_.push_back(std::move(work));
  }
  ready_.notify_one();
  return true;
}

void WorkerPool::loop() {
  for (;;) {
    std::function<void()> job;
    {
      std::unique_lock lock(mutex_);
      ready_.wait(lock, [this] { return stopping_ || !jobs_.empty(); });
      if (jobs_.empty()) return;
      job = std::move(jobs_.front());
      jobs_.pop_front();
    }
    job();
  }
}

}  // namespace foliolab
