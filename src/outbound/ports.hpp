// The dispatcher's ports to the outside world, so unit tests can swap them for fakes:
// HttpSender (one HTTP attempt, asynchronous; net::HttpClient satisfies it through
// HttpClientSender), RoundCommitter (its store rounds), Clock (wall time) and Random
// (jitter samples).
// Thread-safety: implementations must be safe to call from any thread.
#pragma once

#include <chrono>
#include <functional>
#include <mutex>
#include <random>

#include "hookd/result.hpp"
#include "hookd/retry.hpp"
#include "net/http_client_types.hpp"
#include "store/store.hpp"

namespace hookd::net {
class HttpClient;
}

namespace hookd::outbound {

class HttpSender {
 public:
  using Done = std::function<void(net::AttemptResult)>;
  virtual ~HttpSender() = default;
  // Sends one request; `done` is called exactly once, possibly on another thread (or at once
  // on the caller's thread when the sender is stopped).
  virtual void send(net::OutboundRequest request, Done done) = 0;
};

// net::HttpClient as an HttpSender (the client is owned and started by the caller).
class HttpClientSender final : public HttpSender {
 public:
  explicit HttpClientSender(net::HttpClient& client) : client_(client) {}
  void send(net::OutboundRequest request, Done done) override;

 private:
  net::HttpClient& client_;
};

// Where the dispatcher's store rounds go. StoreRounds sends them straight to the store; in
// hookd serve on SQLite they go through the publishes' group committer, so that a round
// shares its commit with the publishes queued meanwhile (app::PublishBatcher).
class RoundCommitter {
 public:
  virtual ~RoundCommitter() = default;
  // Blocks until the round is committed (or failed).
  virtual Result<store::DispatchRoundResult> commit_round(store::DispatchRound round) = 0;
};

class StoreRounds final : public RoundCommitter {
 public:
  explicit StoreRounds(store::Store& store) : store_(store) {}
  Result<store::DispatchRoundResult> commit_round(store::DispatchRound round) override {
    return store_.dispatch_round(round);
  }

 private:
  store::Store& store_;
};

class Clock {
 public:
  virtual ~Clock() = default;
  virtual TimePoint now() = 0;  // Unix time, milliseconds
};

class SystemClock final : public Clock {
 public:
  TimePoint now() override {
    return std::chrono::time_point_cast<std::chrono::milliseconds>(
        std::chrono::system_clock::now());
  }
};

class Random {
 public:
  virtual ~Random() = default;
  virtual double uniform01() = 0;  // uniform in [0, 1)
};

class SystemRandom final : public Random {
 public:
  double uniform01() override {
    std::lock_guard lock(mutex_);
    return std::uniform_real_distribution<double>(0.0, 1.0)(engine_);
  }

 private:
  std::mutex mutex_;
  std::mt19937_64 engine_{std::random_device{}()};
};

}  // namespace hookd::outbound
