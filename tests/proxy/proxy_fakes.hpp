// Fakes for the idempotency gateway's unit tests: an in-memory ProxyKeyStore with the
// contract's semantics (the real engines pass tests/store/proxy_keys_contract_test.cpp), whose
// writes can be made to fail, and an HttpSender that holds every request until the test
// answers it (so requests can be kept "in flight" on purpose).
// Thread-safety: both are internally locked.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <deque>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "net/http_sender.hpp"
#include "store/store.hpp"

namespace hookd::proxy::testing {

class FakeKeyStore final : public store::ProxyKeyStore {
 public:
  std::atomic<store::Millis> now{1'000'000};
  std::atomic<bool> fail_writes{false};
  std::atomic<int> batches{0};

  Result<store::ProxyWriteBatchResult> proxy_write_batch(
      const store::ProxyWriteBatch& batch) override {
    std::lock_guard lock(mu_);
    ++batches;
    if (fail_writes) return fail(ErrorCode::kUnavailable, "disk full (fake)");
    store::ProxyWriteBatchResult out;
    for (const auto& o : batch.outcomes) out.outcomes.push_back(apply(o));
    for (const auto& c : batch.claims) out.claims.push_back(claim(c));
    return out;
  }
  Result<int> proxy_orphan_owner(const std::string& owner) override {
    std::lock_guard lock(mu_);
    int n = 0;
    for (auto& [k, row] : rows_) {
      if (row.state == store::ProxyKeyState::kClaimed && row.owner == owner) {
        row.state = store::ProxyKeyState::kUnknown;
        ++n;
      }
    }
    return n;
  }
  Result<int> proxy_expire_leases() override {
    std::lock_guard lock(mu_);
    int n = 0;
    for (auto& [k, row] : rows_) {
      if (row.state == store::ProxyKeyState::kClaimed && row.lease_until <= now) {
        row.state = store::ProxyKeyState::kUnknown;
        ++n;
      }
    }
    return n;
  }
  Result<store::ProxyKey> proxy_get(const std::string& id) override {
    std::lock_guard lock(mu_);
    for (auto& [k, row] : rows_) {
      if (row.id == id) return row;
    }
    return fail(ErrorCode::kNotFound, "no such key");
  }
  Result<store::Page<store::ProxyKey>> proxy_list(const store::ProxyKeyFilter& filter,
                                                  const store::PageRequest&) override {
    std::lock_guard lock(mu_);
    store::Page<store::ProxyKey> page;
    for (auto& [k, row] : rows_) {
      if (filter.proxy && row.proxy != *filter.proxy) continue;
      if (filter.state && row.state != *filter.state) continue;
      page.data.push_back(row);
    }
    return page;
  }
  Result<store::ProxyKey> proxy_resolve(const std::string& id, const store::ProxyResolution& r,
                                        std::optional<store::AuditEntry> audit) override {
    std::lock_guard lock(mu_);
    for (auto it = rows_.begin(); it != rows_.end(); ++it) {
      auto& row = it->second;
      if (row.id != id) continue;
      if (row.state != store::ProxyKeyState::kUnknown) return fail(ErrorCode::kConflict, "state");
      if (audit) audits.push_back(*audit);
      if (r.outcome == store::ProxyResolution::Outcome::kNotExecuted) {
        auto before = row;
        rows_.erase(it);
        return before;
      }
      row.state = store::ProxyKeyState::kCompleted;
      row.status = r.status;
      row.headers = r.headers;
      row.body = r.body;
      row.expires_at = now + r.ttl_ms;
      row.resolved_by = r.resolved_by;
      row.reason = r.reason;
      return row;
    }
    return fail(ErrorCode::kNotFound, "no such key");
  }
  Result<std::vector<store::ProxyUnknownStat>> proxy_unknown_stats() override { return {}; }

  // Test access.
  std::optional<store::ProxyKey> find(const std::string& key) {
    std::lock_guard lock(mu_);
    for (auto& [k, row] : rows_) {
      if (row.key == key) return row;
    }
    return std::nullopt;
  }
  void put(store::ProxyKey row) {
    std::lock_guard lock(mu_);
    if (row.id.empty()) row.id = "idk_" + std::to_string(++next_id_);
    rows_[{row.proxy, row.tenant, row.key}] = row;
  }
  std::vector<store::AuditEntry> audits;

 private:
  using Scope = std::tuple<std::string, std::string, std::string>;

  Result<store::ProxyClaimResult> claim(const store::ProxyClaim& c) {
    const Scope scope{c.proxy, c.tenant, c.key};
    auto it = rows_.find(scope);
    const bool expired =
        it != rows_.end() && it->second.expires_at != 0 && it->second.expires_at <= now;
    if (it == rows_.end() || expired) {
      store::ProxyKey row;
      row.id = "idk_" + std::to_string(++next_id_);
      row.proxy = c.proxy;
      row.tenant = c.tenant;
      row.key = c.key;
      row.fingerprint = c.fingerprint;
      row.owner = c.owner;
      row.lease_until = now + c.lease_ms;
      row.created_at = row.updated_at = now;
      rows_[scope] = row;
      return store::ProxyClaimResult{true, row};
    }
    auto& row = it->second;
    if (row.state == store::ProxyKeyState::kClaimed && row.lease_until <= now) {
      row.state = store::ProxyKeyState::kUnknown;
    }
    return store::ProxyClaimResult{false, row};
  }
  Result<store::ProxyKey> apply(const store::ProxyKeyOutcome& o) {
    for (auto it = rows_.begin(); it != rows_.end(); ++it) {
      auto& row = it->second;
      if (row.id != o.id) continue;
      const bool ours = row.owner == o.owner && (row.state == store::ProxyKeyState::kClaimed ||
                                                 row.state == store::ProxyKeyState::kUnknown);
      if (!ours) return fail(ErrorCode::kConflict, "not claimed by this owner");
      using To = store::ProxyKeyOutcome::To;
      if (o.to == To::kReleased) {
        auto before = row;
        rows_.erase(it);
        return before;
      }
      if (o.to == To::kUnknown) {
        row.state = store::ProxyKeyState::kUnknown;
        return row;
      }
      row.state = o.to == To::kCompleted ? store::ProxyKeyState::kCompleted
                                         : store::ProxyKeyState::kNotReplayable;
      row.status = o.status;
      row.headers = o.headers;
      row.body = o.body;
      row.body_size = o.body_size;
      row.body_sha256 = o.body_sha256;
      row.expires_at = now + o.ttl_ms;
      return row;
    }
    return fail(ErrorCode::kConflict, "no such claimed key");
  }

  std::mutex mu_;
  std::map<Scope, store::ProxyKey> rows_;
  int next_id_ = 0;
};

// Holds each request until answer(); counts what was sent.
class HeldSender final : public net::HttpSender {
 public:
  struct Held {
    net::OutboundRequest request;
    Done done;
  };
  void send(net::OutboundRequest request, Done done) override {
    {
      std::lock_guard lock(mu_);
      held_.push_back({std::move(request), std::move(done)});
      ++sent_;
    }
    cv_.notify_all();
  }
  int sent() {
    std::lock_guard lock(mu_);
    return sent_;
  }
  // Waits (bounded) until a request is held and takes the oldest.
  std::optional<Held> take(std::chrono::milliseconds wait = std::chrono::seconds(10)) {
    std::unique_lock lock(mu_);
    if (!cv_.wait_for(lock, wait, [this] { return !held_.empty(); })) return std::nullopt;
    Held h = std::move(held_.front());
    held_.pop_front();
    return h;
  }

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<Held> held_;
  int sent_ = 0;
};

inline net::AttemptResult answered(int status, std::string body,
                                   net::HeaderList headers = {
                                       {"Content-Type", "application/json"}}) {
  net::AttemptResult r;
  r.status = status;
  r.body = std::move(body);
  r.headers = std::move(headers);
  r.request_sent = true;
  return r;
}

inline net::AttemptResult transport_error(net::TransportError error, bool sent) {
  net::AttemptResult r;
  r.error = error;
  r.error_detail = "fake transport error";
  r.request_sent = sent;
  return r;
}

// Collects answers given to a Respond from other threads.
class Answers {
 public:
  auto respond() {
    // Notifies under the lock: a waiter that sees its answer may return and destroy this
    // object (often a local) at once, so cv_ must not be touched after the lock is released
    // (ThreadSanitizer found a broadcast racing the condition variable's destruction).
    return [this](net::HttpResponse r) {
      std::lock_guard lock(mu_);
      got_.push_back(std::move(r));
      cv_.notify_all();
    };
  }
  // Waits (bounded) for the n-th answer (1-based) and returns it.
  std::optional<net::HttpResponse> wait(std::size_t n = 1,
                                        std::chrono::milliseconds wait = std::chrono::seconds(10)) {
    std::unique_lock lock(mu_);
    if (!cv_.wait_for(lock, wait, [&] { return got_.size() >= n; })) return std::nullopt;
    return got_[n - 1];
  }
  std::size_t count() {
    std::lock_guard lock(mu_);
    return got_.size();
  }

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  std::vector<net::HttpResponse> got_;
};

}  // namespace hookd::proxy::testing
