#include "store/postgres/pg_pool.hpp"

#include <algorithm>

namespace hookd::store::postgres {

PgPool::PgPool(ConnectionOptions options, int size) : options_(std::move(options)) {
  const int n = std::max(1, size);
  slots_.resize(static_cast<std::size_t>(n));
  for (int i = n - 1; i >= 0; --i) idle_.push_back(i);
}

Result<PgPool::Lease> PgPool::acquire() {
  int slot = -1;
  {
    std::unique_lock lock(mu_);
    cv_.wait(lock, [&] { return !idle_.empty(); });
    slot = idle_.back();
    idle_.pop_back();
  }
  Lease lease(this, slot);  // returns the slot on every path below
  auto& conn = slots_[static_cast<std::size_t>(slot)];
  if (conn == nullptr) {
    auto opened = PgConnection::open(options_);
    if (!opened) return std::unexpected(opened.error());
    conn = std::move(*opened);
  } else if (!conn->healthy()) {
    if (auto s = conn->reconnect(); !s) return std::unexpected(s.error());
  }
  return lease;
}

void PgPool::release(int slot) {
  {
    std::lock_guard lock(mu_);
    idle_.push_back(slot);
  }
  cv_.notify_one();
}

}  // namespace hookd::store::postgres
