// The load generator's engine: N keep-alive HTTP/1.1 connections (Boost.Beast) sending one
// request template to one server, either as fast as responses come (closed loop) or on a
// fixed schedule of `rate` requests/s (open loop). In the open loop, latency is measured from
// the *scheduled* send time, so a slow server is charged for the requests it delayed
// (no coordinated omission). Always bounded by a duration and a request count.
// Thread-safety: run_load() is blocking and self-contained; it may use several threads
// internally (one io_context each) and merges their results before returning.
#pragma once

#include <chrono>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "latency_histogram.hpp"

namespace hookd::bench {

// A body with placeholders `{{now_ns}}` (the request's scheduled send time, Unix ns) and
// `{{seq}}` (0, 1, 2, ... across all connections), pre-split for fast rendering.
class BodyTemplate {
 public:
  explicit BodyTemplate(const std::string& text);
  std::string render(std::int64_t now_ns, std::uint64_t seq) const;

 private:
  enum class Part { kText, kNowNs, kSeq };
  std::vector<std::pair<Part, std::string>> parts_;
};

struct LoadOptions {
  std::string host = "127.0.0.1";
  std::uint16_t port = 0;
  std::string method = "POST";
  std::string target = "/";
  std::vector<std::pair<std::string, std::string>> headers;
  std::string body_template;
  // Send a fresh `Idempotency-Key` with every request (as the Svix SDK does on each POST).
  bool idempotency_key = false;
  int connections = 16;
  int threads = 1;
  double rate = 0;  // requests/s over all connections; 0 = closed loop (max rate)
  std::chrono::milliseconds duration{10'000};
  std::uint64_t max_requests = UINT64_MAX;
  // After `duration`, responses still in flight get this long before the sockets close.
  std::chrono::milliseconds drain_grace{2'000};
};

struct LoadResult {
  std::uint64_t sent = 0;
  std::uint64_t completed = 0;   // responses received (any status)
  std::uint64_t ok = 0;          // 2xx responses
  std::uint64_t errors = 0;      // connect/read/write failures (the connection is reopened)
  std::uint64_t unfinished = 0;  // in flight when the grace period ended
  std::map<int, std::uint64_t> statuses;
  LatencyHistogram latency;  // scheduled send → response, all responses
  double elapsed_s = 0;      // start → last response
};

LoadResult run_load(const LoadOptions& options);

}  // namespace hookd::bench
