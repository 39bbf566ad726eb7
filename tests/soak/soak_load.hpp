// The soak's moving parts (issue 19 item 6): a receiver script that fails at random (seeded)
// and counts clean acknowledgements per (path, id), a load of publishers and an inbound sender
// that follow the daemon across restarts, and a sampler of the daemon's RSS and open fds.
// Thread-safety: FaultyReceiver's script runs on receiver threads, Load's workers on their own
// threads; every shared member is behind a mutex or atomic. The rest is test-thread only.
#pragma once

#include <sys/types.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <map>
#include <mutex>
#include <random>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "support/test_receiver.hpp"

namespace hookd::soak {

// What the receiver answered, by kind, and the clean acknowledgements (an immediate 200) per
// "path id": only a crash between that 200 and hookd's commit can make a second one.
class FaultyReceiver {
 public:
  explicit FaultyReceiver(unsigned seed) : rng_(seed) {}
  // Installs the script on `receiver`: 70 % 200 at once, then 503, 500, 200 slower than the
  // attempt timeout (`slow`), a reset before processing, a drop after processing.
  void attach(testing::TestReceiver& receiver, std::chrono::milliseconds slow);
  std::size_t clean_acks(const std::string& path, const std::string& id) const;
  std::map<std::string, std::size_t> answers() const;

 private:
  testing::ReceiverBehavior choose(const testing::ReceivedRequest& request,
                                   std::chrono::milliseconds slow);

  mutable std::mutex mutex_;
  std::mt19937 rng_;
  std::map<std::string, std::size_t> clean_acks_;  // "path id" -> count
  std::map<std::string, std::size_t> answers_;     // kind -> count
};

// One publish target: an application and the receiver paths of its endpoints.
struct SoakApp {
  std::string id;
  std::vector<std::string> paths;
};

// Publishers (one thread per app) and one inbound sender, each bounded in count, pausing
// between calls; they send to the port set last (0: the daemon is down, wait).
class Load {
 public:
  struct Options {
    std::vector<SoakApp> apps;
    std::string source;  // the [[source]] the inbound sender posts to
    std::string token;
    std::chrono::milliseconds publish_pause{5};
    std::chrono::milliseconds inbound_pause{10};
    int max_calls_per_thread = 2'000'000;
  };
  explicit Load(Options options);
  ~Load();
  Load(const Load&) = delete;
  Load& operator=(const Load&) = delete;

  void set_port(std::uint16_t port) { port_ = port; }
  void stop();
  // Message ids that got 202, by app id; inbound event ids that got 200.
  std::map<std::string, std::set<std::string>> published() const;
  std::set<std::string> received() const;
  // Answers by status (0: no answer: refused, reset, timed out), publishes and inbound apart.
  std::map<long, std::size_t> publish_statuses() const;
  std::map<long, std::size_t> inbound_statuses() const;

 private:
  // The daemon's address, or "" after a short wait while it is down (port 0).
  std::string base_url() const;
  void publish_loop(std::size_t app);
  void inbound_loop();

  Options options_;
  std::atomic<std::uint16_t> port_{0};
  std::atomic<bool> stopping_{false};
  mutable std::mutex mutex_;
  std::map<std::string, std::set<std::string>> published_;
  std::set<std::string> received_;
  std::map<long, std::size_t> publish_statuses_;
  std::map<long, std::size_t> inbound_statuses_;
  std::vector<std::thread> threads_;
};

// The daemon's resident memory and open descriptors, from /proc.
struct ProcessSample {
  std::size_t rss_kib = 0;
  std::size_t fds = 0;
};
ProcessSample sample_process(pid_t pid);

}  // namespace hookd::soak
