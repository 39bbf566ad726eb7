#include "app/store_health.hpp"

namespace hookd::app {

void StoreHealth::observe(const Status& commit, TimePoint now) {
  std::lock_guard lock(mutex_);
  if (commit) {
    failing_ = false;
    return;
  }
  if (commit.error().code != ErrorCode::kUnavailable) return;
  failing_ = true;
  reason_ = commit.error().message;
  next_probe_ = now + interval_;
}

Status StoreHealth::check(TimePoint now) {
  {
    std::lock_guard lock(mutex_);
    if (!failing_) return {};
    if (probing_ || now < next_probe_) return not_ready();
    probing_ = true;
  }
  auto probed = probe_ ? probe_() : Status{};
  std::lock_guard lock(mutex_);
  probing_ = false;
  if (probed) {
    failing_ = false;
    return {};
  }
  if (!failing_) return {};  // a commit succeeded meanwhile
  reason_ = probed.error().message;
  next_probe_ = now + interval_;
  return not_ready();
}

bool StoreHealth::failing() const {
  std::lock_guard lock(mutex_);
  return failing_;
}

Status StoreHealth::not_ready() const {
  return fail(ErrorCode::kUnavailable, "the store cannot commit: " + reason_);
}

}  // namespace hookd::app
