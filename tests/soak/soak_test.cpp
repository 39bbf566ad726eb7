// The soak (issue 19 item 6, label soak): the real binary under mixed load — publishes to two
// applications with three endpoints and signed inbound events forwarded to the app — against
// a receiver that answers 503, 500, too slowly, resets or drops at random (seeded), while the
// daemon is killed with SIGKILL every few seconds and restarted on the same database. On
// PostgreSQL some rounds stop the database server instead (A27). Afterwards: every
// acknowledged message reached every endpoint of its application and every acknowledged
// inbound event reached the app (zero acknowledged loss), clean duplicates stay within a bound
// per disruption, and RSS and open fds stay flat during the steady phase.
// Duration: HOOKD_SOAK_SECONDS per test (default 120; `make soak` runs 1800).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <iostream>
#include <optional>
#include <random>

#include "e2e/api_client.hpp"
#include "e2e/e2e_support.hpp"
#include "e2e/hookd_process.hpp"
#include "e2e/inbound_helpers.hpp"
#include "e2e/pg_support.hpp"
#include "soak/soak_load.hpp"
#include "support/test_receiver.hpp"

namespace hookd::soak {
namespace {

using namespace std::chrono_literals;
using e2e::HookdProcess;
using testing::TestReceiver;
using Clock = std::chrono::steady_clock;

std::chrono::seconds soak_duration() {
  const char* text = std::getenv("HOOKD_SOAK_SECONDS");
  const long seconds = text && *text ? std::strtol(text, nullptr, 10) : 120;
  return std::chrono::seconds(std::clamp(seconds, 20L, 24L * 3600L));
}

unsigned soak_seed() {
  const char* text = std::getenv("HOOKD_SOAK_SEED");
  const unsigned seed = text && *text ? static_cast<unsigned>(std::strtoul(text, nullptr, 10))
                                      : std::random_device{}();
  std::cout << "[ soak ] seed " << seed << " (HOOKD_SOAK_SEED reproduces the fault script)\n";
  return seed;
}

// Retries fast and long, so everything settles soon after the load stops; attempts time out
// before the receiver's slow answers.
std::string soak_config(const TestReceiver& receiver) {
  return e2e::test_config({{"max_attempts", "50"},
                           {"schedule", R"(["50ms", "100ms", "300ms"])"},
                           {"timeout", "\"1s\""}}) +
         "\n" + e2e::inbound::standard_source("soak", receiver.url("/app"));
}

using Published = std::map<std::string, std::set<std::string>>;  // app id -> message ids

std::size_t acked_messages(const Published& published) {
  std::size_t n = 0;
  for (const auto& [app, ids] : published) n += ids.size();
  return n;
}

// How the daemon is disrupted in the first phase; the PostgreSQL run also stops its server.
struct Disruptions {
  int kills = 0;
  int database_restarts = 0;
  int total() const { return kills + database_restarts; }
};

struct Samples {
  std::vector<ProcessSample> first_half;
  std::vector<ProcessSample> second_half;
};

class Soak {
 public:
  explicit Soak(e2e::PgPrivateCluster* cluster = nullptr)
      : seed_(soak_seed()), rng_(seed_), faults_(seed_ + 1), cluster_(cluster) {
    receiver_.start();
    faults_.attach(receiver_, 1500ms);
    hookd_.emplace(soak_config(receiver_));
    if (cluster_) hookd_->use_database(cluster_->url());
  }

  void run(std::chrono::seconds duration) {
    ASSERT_TRUE(hookd_->start()) << hookd_->last_error() << hookd_->stderr_text();
    const std::vector<SoakApp> apps = create_apps();
    load_.emplace(Load::Options{.apps = apps, .source = "soak", .token = HookdProcess::kToken});
    apps_ = apps;
    load_->set_port(hookd_->port());
    const auto chaos_until = Clock::now() + duration * 6 / 10;
    while (Clock::now() < chaos_until) {
      std::this_thread::sleep_for(
          std::chrono::milliseconds(std::uniform_int_distribution<int>(1500, 4000)(rng_)));
      ASSERT_NO_FATAL_FAILURE(disrupt());
    }
    steady_phase(Clock::now() + duration * 4 / 10);
    load_->stop();
  }

  void expect_nothing_lost_and_bounded_duplicates() {
    const auto published = load_->published();
    const auto received = load_->received();
    const bool settled = e2e::eventually([&] { return missing(published, received) == 0; },
                                         std::chrono::milliseconds(240'000), 250ms);
    EXPECT_TRUE(settled) << missing(published, received) << " of "
                         << acked_messages(published) + received.size()
                         << " acknowledged never arrived cleanly";
    EXPECT_TRUE(hookd_->running()) << hookd_->stderr_text();
    const std::size_t dups = duplicates(published, received);
    EXPECT_LE(dups, static_cast<std::size_t>(std::max(1, disruptions_.total()) * 32))
        << "duplicates beyond what " << disruptions_.total() << " disruptions explain";
    report(published, received, dups);
  }

  void expect_only_expected_statuses() {
    const std::set<long> publish_ok =
        cluster_ ? std::set<long>{202, 0, 503} : std::set<long>{202, 0};
    const std::set<long> inbound_ok =
        cluster_ ? std::set<long>{200, 0, 503} : std::set<long>{200, 0};
    for (const auto& [status, n] : load_->publish_statuses()) {
      EXPECT_TRUE(publish_ok.count(status)) << n << " publishes answered " << status;
    }
    for (const auto& [status, n] : load_->inbound_statuses()) {
      EXPECT_TRUE(inbound_ok.count(status)) << n << " inbound events answered " << status;
    }
    // The load really ran: a soak that acknowledged almost nothing proves nothing.
    EXPECT_GE(acked_messages(load_->published()), 300u);
    EXPECT_GE(load_->received().size(), 100u);
    EXPECT_GE(disruptions_.total(), 3);
  }

  void expect_flat_resources() const {
    ASSERT_GE(samples_.first_half.size(), 4u);
    ASSERT_GE(samples_.second_half.size(), 4u);
    auto max_of = [](const std::vector<ProcessSample>& v, auto member) {
      std::size_t m = 0;
      for (const auto& s : v) m = std::max(m, s.*member);
      return m;
    };
    const std::size_t rss1 = max_of(samples_.first_half, &ProcessSample::rss_kib);
    const std::size_t rss2 = max_of(samples_.second_half, &ProcessSample::rss_kib);
    const std::size_t fds1 = max_of(samples_.first_half, &ProcessSample::fds);
    const std::size_t fds2 = max_of(samples_.second_half, &ProcessSample::fds);
    EXPECT_LE(rss2, rss1 * 3 / 2 + 32 * 1024) << "RSS grew: " << rss1 << " -> " << rss2 << " KiB";
    EXPECT_LE(fds2, fds1 + 32) << "open fds grew: " << fds1 << " -> " << fds2;
    std::cout << "[ soak ] steady phase: RSS max " << rss1 << " -> " << rss2 << " KiB, fds max "
              << fds1 << " -> " << fds2 << '\n';
  }

 private:
  std::vector<SoakApp> create_apps() {
    e2e::ApiClient api(*hookd_);
    const std::string app1 = api.create_app("soak-one");
    api.create_endpoint(app1, receiver_.url("/a"));
    api.create_endpoint(app1, receiver_.url("/b"));
    const std::string app2 = api.create_app("soak-two");
    api.create_endpoint(app2, receiver_.url("/c"));
    return {{app1, {"/a", "/b"}}, {app2, {"/c"}}};
  }

  // A kill -9 and restart; on PostgreSQL every third round stops the server for 2 s instead.
  void disrupt() {
    const int round = disruptions_.total();
    if (cluster_ && round % 3 == 2) {
      ASSERT_TRUE(cluster_->stop_server());
      std::this_thread::sleep_for(2s);
      ASSERT_TRUE(cluster_->start_server());
      ++disruptions_.database_restarts;
      return;
    }
    load_->set_port(0);
    hookd_->kill9();
    ++disruptions_.kills;
    ASSERT_TRUE(hookd_->start(60s)) << "restart " << disruptions_.kills << ": "
                                    << hookd_->last_error() << hookd_->stderr_text();
    load_->set_port(hookd_->port());
  }

  // No restarts: sample the daemon every 500 ms, half the phase against the other half.
  void steady_phase(Clock::time_point until) {
    const auto half = Clock::now() + (until - Clock::now()) / 2;
    while (Clock::now() < until) {
      auto& bucket = Clock::now() < half ? samples_.first_half : samples_.second_half;
      bucket.push_back(sample_process(hookd_->pid()));
      std::this_thread::sleep_for(500ms);
    }
  }

  // Clean acknowledgements of every (path, id) that must arrive: each acknowledged message at
  // every endpoint of its application, each acknowledged inbound event at /app.
  std::vector<std::size_t> acks_per_delivery(const Published& published,
                                             const std::set<std::string>& received) const {
    std::vector<std::size_t> acks;
    for (const auto& app : apps_) {
      const auto it = published.find(app.id);
      if (it == published.end()) continue;
      for (const auto& id : it->second) {
        for (const auto& path : app.paths) acks.push_back(faults_.clean_acks(path, id));
      }
    }
    for (const auto& id : received) acks.push_back(faults_.clean_acks("/app", id));
    return acks;
  }

  std::size_t missing(const Published& published, const std::set<std::string>& received) const {
    const auto acks = acks_per_delivery(published, received);
    return static_cast<std::size_t>(std::count(acks.begin(), acks.end(), 0u));
  }

  std::size_t duplicates(const Published& published, const std::set<std::string>& received) const {
    std::size_t n = 0;
    for (std::size_t a : acks_per_delivery(published, received)) n += a > 1 ? a - 1 : 0;
    return n;
  }

  void report(const Published& published, const std::set<std::string>& received,
              std::size_t dups) const {
    std::cout << "[ soak ] " << acked_messages(published) << " messages and " << received.size()
              << " inbound events acknowledged; " << disruptions_.kills << " kill -9, "
              << disruptions_.database_restarts << " database restarts; " << dups
              << " clean duplicates; receiver answers:";
    for (const auto& [kind, n] : faults_.answers()) std::cout << ' ' << kind << '=' << n;
    std::cout << "; publish statuses:";
    for (const auto& [status, n] : load_->publish_statuses())
      std::cout << ' ' << status << '=' << n;
    std::cout << "; inbound statuses:";
    for (const auto& [status, n] : load_->inbound_statuses())
      std::cout << ' ' << status << '=' << n;
    std::cout << '\n';
  }

  unsigned seed_;
  std::mt19937 rng_;
  FaultyReceiver faults_;  // outlives receiver_, whose threads call its script
  TestReceiver receiver_;
  e2e::PgPrivateCluster* cluster_;
  std::optional<HookdProcess> hookd_;
  std::optional<Load> load_;
  std::vector<SoakApp> apps_;
  Disruptions disruptions_;
  Samples samples_;
};

TEST(Soak, SqliteUnderKill9AndReceiverFaultsLosesNothingAcknowledged) {
  Soak soak;
  ASSERT_NO_FATAL_FAILURE(soak.run(soak_duration()));
  soak.expect_nothing_lost_and_bounded_duplicates();
  soak.expect_only_expected_statuses();
  soak.expect_flat_resources();
}

TEST(Soak, PostgresUnderKill9AndServerRestartsLosesNothingAcknowledged) {  // A27
  e2e::PgPrivateCluster cluster;
  ASSERT_TRUE(cluster.ok()) << "cannot start a private PostgreSQL cluster";
  Soak soak(&cluster);
  ASSERT_NO_FATAL_FAILURE(soak.run(soak_duration()));
  soak.expect_nothing_lost_and_bounded_duplicates();
  soak.expect_only_expected_statuses();
  soak.expect_flat_resources();
}

}  // namespace
}  // namespace hookd::soak
