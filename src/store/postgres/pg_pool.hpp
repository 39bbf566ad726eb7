// PgPool: hookd's own pool of PostgreSQL connections (database.pool_size of them per node).
// Connections are opened lazily, handed to one thread at a time, and a connection found
// broken is reconnected on its next acquire — so a restarted database server is picked up
// without restarting hookd; while it is down, acquire() fails fast with kUnavailable.
// Thread-safety: acquire() may be called from any thread; a Lease is used by one thread.
#pragma once

#include <condition_variable>
#include <memory>
#include <mutex>
#include <vector>

#include "hookd/result.hpp"
#include "store/postgres/pg_connection.hpp"

namespace hookd::store::postgres {

class PgPool {
 public:
  PgPool(ConnectionOptions options, int size);

  class Lease {
   public:
    Lease(PgPool* pool, int slot) : pool_(pool), slot_(slot) {}
    Lease(Lease&& other) noexcept : pool_(other.pool_), slot_(other.slot_) {
      other.pool_ = nullptr;
    }
    Lease(const Lease&) = delete;
    Lease& operator=(const Lease&) = delete;
    Lease& operator=(Lease&&) = delete;
    ~Lease() {
      if (pool_ != nullptr) pool_->release(slot_);
    }
    PgConnection& conn() const { return *pool_->slots_[static_cast<std::size_t>(slot_)]; }

   private:
    PgPool* pool_;
    int slot_;
  };

  // Waits for a free connection; (re)connects it when needed. kUnavailable if that fails.
  Result<Lease> acquire();
  const ConnectionOptions& options() const { return options_; }

 private:
  void release(int slot);

  ConnectionOptions options_;
  std::mutex mu_;
  std::condition_variable cv_;
  std::vector<std::unique_ptr<PgConnection>> slots_;
  std::vector<int> idle_;
};

}  // namespace hookd::store::postgres
