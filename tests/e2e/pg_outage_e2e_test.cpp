// A27: PostgreSQL stops during publish load. While it is down the API answers 503 (never
// 202 for what was not stored), hookd keeps running, and once the server is back hookd
// resumes by itself; every message acknowledged with 202 is delivered.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <map>
#include <mutex>
#include <set>
#include <thread>

#include "e2e/api_client.hpp"
#include "e2e/hookd_process.hpp"
#include "e2e/pg_support.hpp"
#include "support/test_receiver.hpp"

namespace hookd::e2e {
namespace {

using namespace std::chrono_literals;
using hookd::testing::TestReceiver;

// Publishes one message after another until stopped, remembering what each call answered.
class Publisher {
 public:
  Publisher(const HookdProcess& hookd, std::string app) : hookd_(hookd), app_(std::move(app)) {}
  ~Publisher() { stop(); }
  void start() {
    thread_ = std::thread([this] { run(); });
  }
  void stop() {
    stop_ = true;
    if (thread_.joinable()) thread_.join();
  }
  std::set<std::string> acknowledged() const {
    std::lock_guard lock(mu_);
    return acked_;
  }
  std::map<long, int> statuses() const {
    std::lock_guard lock(mu_);
    return statuses_;
  }
  int count(long status) const {
    std::lock_guard lock(mu_);
    auto it = statuses_.find(status);
    return it == statuses_.end() ? 0 : it->second;
  }

 private:
  void run() {
    for (int n = 0; !stop_; ++n) {
      const std::string body = nlohmann::json{
          {"eventType", "load.tick"},
          {"eventId", "tick-" + std::to_string(n)},
          {"payload", {{"n", n}}}}.dump();
      const HttpReply reply = hookd_.post("/api/v1/app/" + app_ + "/msg", body);
      std::lock_guard lock(mu_);
      ++statuses_[reply.status];
      if (reply.status == 202) acked_.insert(reply.json().value("id", ""));
      if (reply.status != 202) std::this_thread::sleep_for(20ms);  // don't spin on 503s
    }
  }

  const HookdProcess& hookd_;
  std::string app_;
  std::atomic<bool> stop_{false};
  std::thread thread_;
  mutable std::mutex mu_;
  std::set<std::string> acked_;
  std::map<long, int> statuses_;
};

bool wait_until(const std::function<bool()>& done, std::chrono::seconds within) {
  const auto deadline = std::chrono::steady_clock::now() + within;
  while (std::chrono::steady_clock::now() < deadline) {
    if (done()) return true;
    std::this_thread::sleep_for(100ms);
  }
  return done();
}

TEST(PgOutageE2E, DatabaseStopsDuringLoadAnswers503AndResumesWithNothingLost) {  // A27
  PgPrivateCluster cluster;
  ASSERT_TRUE(cluster.ok()) << "cannot start a private PostgreSQL cluster";
  TestReceiver receiver;
  receiver.start();
  HookdProcess hookd;
  hookd.use_database(cluster.url());
  ASSERT_TRUE(hookd.start()) << hookd.last_error();
  ApiClient api(hookd);
  const std::string app = api.create_app("a27");
  api.create_endpoint(app, receiver.url("/hook"));

  Publisher publisher(hookd, app);
  publisher.start();
  ASSERT_TRUE(wait_until([&] { return publisher.count(202) >= 20; }, 30s));

  ASSERT_TRUE(cluster.stop_server());
  const int acked_before_outage = publisher.count(202);
  ASSERT_TRUE(wait_until([&] { return publisher.count(503) >= 10; }, 30s))
      << "no 503 while the database is down";
  EXPECT_TRUE(hookd.running()) << hookd.stderr_text();
  EXPECT_NE(hookd.get("/readyz").status, 200);

  // Read before the restart: once the server is back, 202s are right again at once.
  const int acked_at_restart = publisher.count(202);
  ASSERT_TRUE(cluster.start_server());
  ASSERT_TRUE(wait_until([&] { return publisher.count(202) >= acked_at_restart + 20; }, 60s))
      << "hookd did not resume by itself";
  publisher.stop();
  EXPECT_TRUE(hookd.running()) << hookd.stderr_text();
  EXPECT_EQ(hookd.get("/readyz").status, 200);

  // Only 202 and 503: nothing else, and no request went unanswered.
  for (const auto& [status, n] : publisher.statuses()) {
    EXPECT_TRUE(status == 202 || status == 503) << n << " answers " << status;
  }
  // A 202 during the outage would be an acknowledgement of something not stored.
  EXPECT_LE(acked_at_restart - acked_before_outage, 1);  // at most one committed just before

  const std::set<std::string> acked = publisher.acknowledged();
  const bool all_delivered = wait_until(
      [&] {
        for (const auto& id : acked) {
          if (receiver.count_for_webhook_id(id) == 0) return false;
        }
        return true;
      },
      90s);
  std::size_t missing = 0;
  for (const auto& id : acked) missing += receiver.count_for_webhook_id(id) == 0 ? 1 : 0;
  EXPECT_TRUE(all_delivered) << missing << " of " << acked.size() << " acknowledged lost";
  std::cout << "[ A27 ] acknowledged " << acked.size() << ", 503 answers " << publisher.count(503)
            << ", requests at the receiver " << receiver.request_count() << '\n';
}

}  // namespace
}  // namespace hookd::e2e
