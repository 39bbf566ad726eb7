// The resolver of unknown keys: status_url 200 completes (replayable), 404 releases, anything
// else leaves the key unknown; expired claims become unknown in the sweep.
#include <gtest/gtest.h>

#include <future>

#include "proxy/key_rules.hpp"
#include "proxy/status_resolver.hpp"
#include "proxy_fakes.hpp"

namespace hookd::proxy {
namespace {

using testing::answered;
using testing::FakeKeyStore;
using testing::HeldSender;
using testing::transport_error;

struct StatusResolverTest : ::testing::Test {
  FakeKeyStore store;
  HeldSender sender;

  GatewayOptions options(std::string status_url = "http://127.0.0.1:9/ops/{key}") {
    ProxyRoute r;
    r.name = "esign";
    r.upstream = "http://127.0.0.1:9";
    r.status_url = std::move(status_url);
    GatewayOptions o;
    o.routes = {r};
    return o;
  }
  void unknown(const std::string& key) {
    store::ProxyKey row;
    row.proxy = "esign";
    row.key = key;
    row.fingerprint = "f";
    row.state = store::ProxyKeyState::kUnknown;
    row.owner = "node-a/proxy";
    store.put(row);
  }
};

TEST_F(StatusResolverTest, Answer200Completes404ReleasesOthersStayUnknown) {
  unknown("done");
  unknown("never ran");
  unknown("flaky");
  unknown("down");
  StatusResolver resolver(options(), store, sender);
  auto pass = std::async(std::launch::async, [&] { return resolver.run_once(true); });
  for (int i = 0; i < 4; ++i) {
    auto held = sender.take();
    ASSERT_TRUE(held);
    EXPECT_EQ(held->request.method, "GET");
    const auto& url = held->request.url;
    if (url.ends_with("/ops/done")) {
      held->done(answered(200, R"({"contract":"c_9"})"));
    } else if (url.ends_with("/ops/never%20ran")) {
      held->done(answered(404, ""));
    } else if (url.ends_with("/ops/flaky")) {
      held->done(answered(500, ""));
    } else {
      held->done(transport_error(net::TransportError::kConnectRefused, false));
    }
  }
  EXPECT_EQ(pass.get(), 2);
  auto done = store.find("done");
  ASSERT_TRUE(done);
  EXPECT_EQ(done->state, store::ProxyKeyState::kCompleted);
  EXPECT_EQ(done->body, R"({"contract":"c_9"})");
  EXPECT_GT(done->expires_at, store.now.load());
  EXPECT_FALSE(store.find("never ran"));
  EXPECT_EQ(store.find("flaky")->state, store::ProxyKeyState::kUnknown);
  EXPECT_EQ(store.find("down")->state, store::ProxyKeyState::kUnknown);
  ASSERT_EQ(store.audits.size(), 2u);
  EXPECT_EQ(store.audits[0].actor, "hookd:status_url");
}

TEST_F(StatusResolverTest, WithoutStatusUrlOnlyTheSweepRuns) {
  store::ProxyKey claimed;
  claimed.proxy = "esign";
  claimed.key = "dead-owner";
  claimed.owner = "node-b/proxy";
  claimed.lease_until = store.now - 1;
  store.put(claimed);
  unknown("u");
  StatusResolver resolver(options(""), store, sender);
  EXPECT_EQ(resolver.run_once(true), 0);
  EXPECT_EQ(sender.sent(), 0);
  EXPECT_EQ(store.find("dead-owner")->state, store::ProxyKeyState::kUnknown);
}

TEST_F(StatusResolverTest, StatusIntervalIsRespectedUnlessForced) {
  unknown("k");
  auto o = options();
  o.routes[0].status_interval = std::chrono::hours(1);
  StatusResolver resolver(o, store, sender);
  auto first = std::async(std::launch::async, [&] { return resolver.run_once(); });
  auto held = sender.take();
  ASSERT_TRUE(held);
  held->done(answered(500, ""));
  EXPECT_EQ(first.get(), 0);
  EXPECT_EQ(resolver.run_once(), 0);
  EXPECT_EQ(sender.sent(), 1) << "asked again before status_interval passed";
}

}  // namespace
}  // namespace hookd::proxy
