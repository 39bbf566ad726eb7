// StoreHealth: whether the store can commit, for /readyz. Reads keep working on a full disk
// (or a read-only file system, or a file size limit), so "the database answers" is not
// readiness: a commit that fails as unavailable marks the store failing (its error is the
// reason /readyz gives), a commit that stores something marks it healthy again. While it is
// failing, check() itself tries Store::probe_commit() — at most once per probe interval, never
// two at once — so the node turns ready again by itself once the disk has room, even when no
// traffic arrives (a load balancer took it out on its 503). Failures that are not about
// storage (a conflict, a validation error, a bug) say nothing about it and are ignored.
// Thread-safety: every member may be called from any thread; the probe runs outside the lock.
#pragma once

#include <chrono>
#include <functional>
#include <mutex>
#include <string>

#include "hookd/result.hpp"

namespace hookd::app {

class StoreHealth {
 public:
  using Probe = std::function<Status()>;
  using TimePoint = std::chrono::steady_clock::time_point;
  static constexpr std::chrono::milliseconds kProbeInterval{1'000};

  explicit StoreHealth(Probe probe, std::chrono::milliseconds probe_interval = kProbeInterval)
      : probe_(std::move(probe)), interval_(probe_interval) {}

  // A commit's outcome (the group committers report each one). After a failure the first
  // probe waits a whole interval, so a node does not flap back on one small write.
  void observe(const Status& commit, TimePoint now);

  // Ok while commits succeed; while they fail, the reason (probing first when one is due).
  Status check(TimePoint now);

  bool failing() const;

 private:
  Status not_ready() const;  // with mutex_ held

  const Probe probe_;
  const std::chrono::milliseconds interval_;
  mutable std::mutex mutex_;
  bool failing_ = false;
  bool probing_ = false;
  std::string reason_;
  TimePoint next_probe_{};
};

}  // namespace hookd::app
