#include "runner/scheduler.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <mutex>
#include <thread>
#include <vector>

namespace foliolab {
namespace {
using namespace std::chrono_literals;

// Tasks that wait for each other would deadlock if the scheduler ran fewer at once than asked;
// these only hold a slot briefly, and the assertions are about order and overlap, not time.
struct Probe {
  std::mutex mu;
  std::vector<size_t> started;
  std::atomic<int> running{0};
  std::atomic<int> most{0};
  std::vector<int> beside;
  bool task(size_t i, const TaskSlot& slot, int hold_ms = 20) {
    {
      std::lock_guard<std::mutex> lock(mu);
      started.push_back(i);
    }
    const int now = ++running;
    for (int m = most.load(); now > m && !most.compare_exchange_weak(m, now);) {
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(hold_ms));
    --running;
    std::lock_guard<std::mutex> lock(mu);
    if (beside.size() <= i) beside.resize(i + 1, -1);
    beside[i] = slot.max_beside();
    return true;
  }
};

TEST(Scheduler, OneJobRunsTasksOneAfterAnotherInOrder) {
  Probe p;
  EXPECT_EQ(Scheduler(1).run(5, {}, [&](size_t i, const TaskSlot& s) { return p.task(i, s, 1); }),
            5u);
  EXPECT_EQ(p.started, (std::vector<size_t>{0, 1, 2, 3, 4}));
  EXPECT_EQ(p.most.load(), 1);
  EXPECT_EQ(p.beside, (std::vector<int>{0, 0, 0, 0, 0}));
}

TEST(Scheduler, NeverRunsMoreThanJobsAtOnceAndRecordsWhatRanBeside) {
  Probe p;
  // Task 0 holds its slot until task 1 has started: with 2 jobs they must overlap.
  std::atomic<bool> second_started{false};
  Scheduler(2).run(6, {}, [&](size_t i, const TaskSlot& s) {
    if (i == 1) second_started = true;
    if (i == 0) {
      while (!second_started) std::this_thread::sleep_for(1ms);
    }
    return p.task(i, s);
  });
  EXPECT_EQ(p.started.size(), 6u);
  EXPECT_LE(p.most.load(), 2);
  EXPECT_GE(p.beside[0], 1);  // task 1 ran beside task 0
}

TEST(Scheduler, AnExclusiveTaskRunsAlone) {
  std::atomic<int> running{0};
  std::atomic<int> beside_exclusive{-1};
  Scheduler(4).run(
      7, [](size_t i) { return i == 3; },
      [&](size_t i, const TaskSlot& s) {
        const int now = ++running;
        if (i == 3) beside_exclusive = now - 1;
        std::this_thread::sleep_for(5ms);
        --running;
        if (i == 3) {
          EXPECT_EQ(s.max_beside(), 0);
        }
        return true;
      });
  EXPECT_EQ(beside_exclusive.load(), 0);
}

TEST(Scheduler, ATaskReturningFalseStopsFurtherLaunches) {
  std::atomic<int> ran{0};
  const size_t started = Scheduler(1).run(10, {}, [&](size_t i, const TaskSlot&) {
    ++ran;
    return i != 2;
  });
  EXPECT_EQ(started, 3u);
  EXPECT_EQ(ran.load(), 3);
}

TEST(Scheduler, StopRequestPreventsFurtherLaunches) {
  std::atomic<int> ran{0};
  std::atomic<bool> stop{false};
  Scheduler(1).run(
      10, {},
      [&](size_t, const TaskSlot&) {
        if (++ran == 2) stop = true;
        return true;
      },
      [&] { return stop.load(); });
  EXPECT_EQ(ran.load(), 2);
}

}  // namespace
}  // namespace foliolab
