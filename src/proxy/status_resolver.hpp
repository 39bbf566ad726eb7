// StatusResolver: the idempotency gateway's background loop. Every sweep interval it turns
// claims whose lease ran out into unknown keys (a dead node's claims, so they are visible and
// counted), and for each proxy with a `status_url`, every `status_interval`, asks the
// upstream about up to 100 unknown keys: GET status_url with {key} replaced —
//   200 → completed with that answer (replayable from now on),
//   404 → not executed: the key is released (deleted) and the client may retry,
//   anything else (or no answer) → unchanged, asked again next time.
// Each resolution is audited (actor "hookd:status_url").
// Thread-safety: start()/stop() from the owner; the loop runs on its own thread and waits for
// each status call (sequentially) on it.
#pragma once

#include <chrono>
#include <condition_variable>
#include <map>
#include <mutex>
#include <string>
#include <thread>

#include "net/http_sender.hpp"
#include "ops/log.hpp"
#include "proxy/gateway_options.hpp"
#include "store/store.hpp"

namespace hookd::proxy {

class StatusResolver {
 public:
  StatusResolver(GatewayOptions options, store::ProxyKeyStore& store, net::HttpSender& sender,
                 const ops::Logger* logger = nullptr);
  ~StatusResolver();
  StatusResolver(const StatusResolver&) = delete;
  StatusResolver& operator=(const StatusResolver&) = delete;

  void start();
  void stop();  // idempotent; waits for the status call in progress (bounded by its timeout)

  // One pass now (tests; the loop calls it): the sweep, then every proxy whose status_interval
  // has passed since its last pass (or all when `force`). Returns how many keys it resolved.
  int run_once(bool force = false);

 private:
  void loop();
  int check_proxy(const ProxyRoute& route);
  bool check_key(const ProxyRoute& route, const store::ProxyKey& key);

  GatewayOptions options_;
  store::ProxyKeyStore& store_;
  net::HttpSender& sender_;
  const ops::Logger* logger_;
  std::map<std::string, std::chrono::steady_clock::time_point> last_check_;
  std::mutex mu_;
  std::condition_variable cv_;
  bool stopping_ = false;
  std::thread thread_;
};

}  // namespace hookd::proxy
