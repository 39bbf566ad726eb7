// Helpers for tests with threads: wait_until polls for a state without a timing assertion;
// HeldCommit (group-commit tests: PublishBatcher, InboxBatcher) is a promise that is always
// fulfilled when the test leaves its scope, so a committer held open by a fake store never
// outlives the test.
// Thread-safety: wait_until polls from the calling thread; HeldCommit is for one test.
#pragma once

#include <chrono>
#include <future>
#include <thread>

namespace hookd::testing {

// Polls `done` for up to 10 s (no timing assertion: the caller checks the state after).
template <class F>
void wait_until(F done) {
  for (int i = 0; i < 10'000 && !done(); ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
}

// The fake store waits on `held()` in its first commit; release() (or the destructor) lets
// it go.
class HeldCommit {
 public:
  HeldCommit() : held_(release_.get_future().share()) {}
  ~HeldCommit() { release(); }
  HeldCommit(const HeldCommit&) = delete;
  HeldCommit& operator=(const HeldCommit&) = delete;

  std::shared_future<void> held() const { return held_; }
  void release() {
    if (released_) return;
    released_ = true;
    release_.set_value();
  }

 private:
  std::promise<void> release_;
  std::shared_future<void> held_;
  bool released_ = false;
};

}  // namespace hookd::testing
