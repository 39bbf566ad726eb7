// The idempotency gateway's rules, one request at a time and on purpose concurrently, against
// an in-memory key store (whose writes can fail) and a sender that holds each request until
// the test answers it. The real binary, the real stores and a real upstream are exercised by
// tests/e2e/proxy_e2e_test.cpp.
#include <gtest/gtest.h>

#include <thread>

#include "core/crypto.hpp"
#include "net/body_spool.hpp"
#include "proxy/gateway.hpp"
#include "proxy/key_rules.hpp"
#include "proxy_fakes.hpp"

namespace hookd::proxy {
namespace {

using testing::answered;
using testing::Answers;
using testing::FakeKeyStore;
using testing::HeldSender;
using testing::transport_error;

ProxyRoute esign() {
  ProxyRoute r;
  r.name = "esign";
  r.upstream = "http://127.0.0.1:9/base";
  r.max_stored_body = 64;
  r.max_response_body = 1024;
  return r;
}

net::HttpRequest post(std::string target, std::string body, std::string key = "k-1") {
  net::HttpRequest r;
  r.method = "POST";
  r.target = std::move(target);
  r.body = std::move(body);
  r.headers.add("Authorization", "Bearer tenant-a");
  r.headers.add("Content-Type", "application/json");
  if (!key.empty()) r.headers.add("Idempotency-Key", std::move(key));
  return r;
}

std::string problem_type(const net::HttpResponse& r) {
  const auto at = r.body.find("\"type\":\"");
  if (at == std::string::npos) return {};
  const auto start = at + 8;
  return r.body.substr(start, r.body.find('"', start) - start);
}

struct GatewayTest : ::testing::Test {
  FakeKeyStore store;
  HeldSender sender;
  ops::Registry registry;
  ProxyMetrics metrics{registry};
  std::unique_ptr<Gateway> gateway;

  void start(ProxyRoute route = esign()) {
    GatewayOptions options;
    options.routes = {std::move(route)};
    options.owner = "node-a/proxy";
    gateway = std::make_unique<Gateway>(options, GatewayDeps{store, sender, &metrics, nullptr});
    ASSERT_TRUE(gateway->start());
  }
  void TearDown() override {
    if (gateway) gateway->stop();
  }
  // Sends `request`, answers its upstream call with `result`, returns the client's answer.
  net::HttpResponse call(net::HttpRequest request, net::AttemptResult result) {
    Answers answers;
    gateway->handle(std::move(request), answers.respond());
    auto held = sender.take();
    EXPECT_TRUE(held.has_value()) << "nothing was sent upstream";
    if (held) held->done(std::move(result));
    auto got = answers.wait();
    EXPECT_TRUE(got.has_value());
    return got.value_or(net::HttpResponse{});
  }
  // A request the gateway answers without calling the upstream.
  net::HttpResponse refused(net::HttpRequest request) {
    const int before = sender.sent();
    Answers answers;
    gateway->handle(std::move(request), answers.respond());
    auto got = answers.wait();
    EXPECT_TRUE(got.has_value());
    EXPECT_EQ(sender.sent(), before) << "the upstream was called";
    return got.value_or(net::HttpResponse{});
  }
  std::uint64_t counted(std::string_view outcome) { return metrics.value("esign", outcome); }
};

TEST_F(GatewayTest, KeyedMethodWithoutKeyIs400AndNothingIsSentOrStored) {
  start();
  auto r = refused(post("/proxy/esign/contracts", "{}", ""));
  EXPECT_EQ(r.status, 400);
  EXPECT_EQ(problem_type(r), problem::kKeyMissing);
  EXPECT_EQ(r.headers.get("Content-Type").value_or(""), "application/problem+json");
  EXPECT_EQ(store.batches, 0);
}

TEST_F(GatewayTest, InvalidKeysAre400) {
  start();
  for (const std::string& bad :
       {std::string(256, 'k'), std::string("a\x01b"), std::string("\"\"")}) {
    auto r = refused(post("/proxy/esign/contracts", "{}", bad));
    EXPECT_EQ(r.status, 400) << bad;
    EXPECT_EQ(problem_type(r), problem::kKeyInvalid);
  }
  EXPECT_EQ(store.batches, 0);
}

TEST_F(GatewayTest, UnknownProxyIs404) {
  start();
  auto r = refused(post("/proxy/other/contracts", "{}"));
  EXPECT_EQ(r.status, 404);
}

TEST_F(GatewayTest, UnkeyedMethodPassesThroughWithEndToEndHeadersOnly) {
  start();
  net::HttpRequest get;
  get.method = "GET";
  get.target = "/proxy/esign/contracts/7?full=1";
  get.headers.add("Accept", "application/json");
  get.headers.add("Connection", "keep-alive, X-Secret-Hop");
  get.headers.add("X-Secret-Hop", "1");
  get.headers.add("Host", "hookd.local");
  Answers answers;
  gateway->handle(std::move(get), answers.respond());
  auto held = sender.take();
  ASSERT_TRUE(held);
  EXPECT_EQ(held->request.method, "GET");
  EXPECT_EQ(held->request.url, "http://127.0.0.1:9/base/contracts/7?full=1");
  bool accept = false;
  for (const auto& [name, value] : held->request.headers) {
    EXPECT_FALSE(net::iequals(name, "Connection") || net::iequals(name, "X-Secret-Hop") ||
                 net::iequals(name, "Host"))
        << name;
    accept = accept || net::iequals(name, "Accept");
  }
  EXPECT_TRUE(accept);
  held->done(answered(200, "{\"id\":7}",
                      {{"Content-Type", "application/json"}, {"Transfer-Encoding", "chunked"}}));
  auto r = answers.wait();
  ASSERT_TRUE(r);
  EXPECT_EQ(r->body, "{\"id\":7}");
  EXPECT_FALSE(r->headers.contains("Transfer-Encoding"));
  EXPECT_EQ(store.batches, 0) << "an unkeyed call stores nothing";
  EXPECT_EQ(counted("passthrough"), 1u);
}

TEST_F(GatewayTest, OptionalKeyMissingPassesThrough) {
  auto route = esign();
  route.require_key = false;
  start(route);
  auto r = call(post("/proxy/esign/contracts", "{}", ""), answered(201, "{}"));
  EXPECT_EQ(r.status, 201);
  EXPECT_EQ(store.batches, 0);
}

TEST_F(GatewayTest, KeyIsClaimedBeforeTheRequestLeavesAndTheRetryIsReplayed) {
  start();
  Answers first;
  gateway->handle(post("/proxy/esign/contracts", R"({"n":1})"), first.respond());
  auto held = sender.take();
  ASSERT_TRUE(held);
  auto row = store.find("k-1");
  ASSERT_TRUE(row) << "the request went upstream before its key was stored";
  EXPECT_EQ(row->state, store::ProxyKeyState::kClaimed);
  EXPECT_EQ(row->owner, "node-a/proxy");
  EXPECT_EQ(held->request.body, R"({"n":1})");
  held->done(answered(201, R"({"contract":"c_1"})",
                      {{"Content-Type", "application/json"},
                       {"Set-Cookie", "a=1"},
                       {"Set-Cookie", "b=2"},
                       {"Connection", "close"}}));
  auto r1 = first.wait();
  ASSERT_TRUE(r1);
  EXPECT_EQ(r1->status, 201);
  row = store.find("k-1");
  ASSERT_TRUE(row);
  EXPECT_EQ(row->state, store::ProxyKeyState::kCompleted);

  auto r2 = refused(post("/proxy/esign/contracts", R"({"n":1})"));
  EXPECT_EQ(r2.status, 201);
  EXPECT_EQ(r2.body, R"({"contract":"c_1"})");
  EXPECT_EQ(r2.headers.get("Idempotent-Replayed").value_or(""), "true");
  EXPECT_EQ(r2.headers.get_all("Set-Cookie").size(), 2u);
  EXPECT_FALSE(r2.headers.contains("Connection"));
  EXPECT_EQ(sender.sent(), 1);
  EXPECT_EQ(counted("forwarded"), 1u);
  EXPECT_EQ(counted("replayed"), 1u);
}

TEST_F(GatewayTest, QuotedStructuredFieldKeyIsTheSameKey) {
  start();
  call(post("/proxy/esign/c", "{}", "abc"), answered(200, "{}"));
  auto r = refused(post("/proxy/esign/c", "{}", "\"abc\""));
  EXPECT_EQ(r.headers.get("Idempotent-Replayed").value_or(""), "true");
}

TEST_F(GatewayTest, SameKeyOtherBodyPathOrQueryIs422AndNothingIsSent) {
  start();
  call(post("/proxy/esign/contracts", R"({"n":1})"), answered(201, "{}"));
  for (auto other : {post("/proxy/esign/contracts", R"({"n":2})"),
                     post("/proxy/esign/contracts/x", R"({"n":1})"),
                     post("/proxy/esign/contracts?dry=1", R"({"n":1})")}) {
    auto r = refused(std::move(other));
    EXPECT_EQ(r.status, 422);
    EXPECT_EQ(problem_type(r), problem::kMismatch);
  }
  EXPECT_EQ(counted("mismatch"), 3u);
}

TEST_F(GatewayTest, SameKeyWhileInFlightIs409WithRetryAfterThenReplayed) {
  start();
  Answers first;
  gateway->handle(post("/proxy/esign/contracts", "{}"), first.respond());
  auto held = sender.take();
  ASSERT_TRUE(held);
  auto r = refused(post("/proxy/esign/contracts", "{}"));
  EXPECT_EQ(r.status, 409);
  EXPECT_EQ(problem_type(r), problem::kInProgress);
  EXPECT_TRUE(r.headers.contains("Retry-After"));
  held->done(answered(201, "{\"id\":1}"));
  ASSERT_TRUE(first.wait());
  auto replay = refused(post("/proxy/esign/contracts", "{}"));
  EXPECT_EQ(replay.status, 201);
  EXPECT_EQ(counted("in_progress"), 1u);
}

TEST_F(GatewayTest, ConcurrentSameKeyRequestsSendExactlyOnce) {
  start();
  for (int round = 0; round < 20; ++round) {
    const std::string key = "race-" + std::to_string(round);
    const int before = sender.sent();
    Answers answers;
    std::vector<std::thread> threads;
    for (int i = 0; i < 8; ++i) {
      threads.emplace_back(
          [&] { gateway->handle(post("/proxy/esign/c", "{}", key), answers.respond()); });
    }
    for (auto& t : threads) t.join();
    auto held = sender.take();
    ASSERT_TRUE(held);
    ASSERT_TRUE(answers.wait(7)) << "the other seven were not all answered";
    EXPECT_EQ(sender.sent(), before + 1) << "round " << round;
    held->done(answered(201, "{}"));
    ASSERT_TRUE(answers.wait(8));
  }
}

TEST_F(GatewayTest, NothingSentReleasesTheKeyAndTheRetryIsSent) {
  start();
  auto r = call(post("/proxy/esign/c", "{}"),
                transport_error(net::TransportError::kConnectRefused, false));
  EXPECT_EQ(r.status, 502);
  EXPECT_EQ(problem_type(r), problem::kUnreachable);
  EXPECT_FALSE(store.find("k-1")) << "a key whose request never left must be released";
  auto timeout = call(post("/proxy/esign/c", "{}"),
                      transport_error(net::TransportError::kConnectTimeout, false));
  EXPECT_EQ(timeout.status, 504);
  auto ok = call(post("/proxy/esign/c", "{}"), answered(201, "{}"));
  EXPECT_EQ(ok.status, 201);
  EXPECT_EQ(sender.sent(), 3);
  EXPECT_EQ(counted("not_sent"), 2u);
}

TEST_F(GatewayTest, SentThenTimeoutOrResetMakesTheKeyUnknownAndItIsNeverResent) {
  start();
  auto r = call(post("/proxy/esign/c", "{}"), transport_error(net::TransportError::kTimeout, true));
  EXPECT_EQ(r.status, 504);
  EXPECT_EQ(problem_type(r), problem::kUnknown);
  ASSERT_TRUE(store.find("k-1"));
  EXPECT_EQ(store.find("k-1")->state, store::ProxyKeyState::kUnknown);
  for (int i = 0; i < 5; ++i) {
    auto again = refused(post("/proxy/esign/c", "{}"));
    EXPECT_EQ(again.status, 409);
    EXPECT_EQ(problem_type(again), problem::kUnknown);
  }
  auto reset =
      call(post("/proxy/esign/c", "{}", "k-2"), transport_error(net::TransportError::kReset, true));
  EXPECT_EQ(reset.status, 502);
  EXPECT_EQ(store.find("k-2")->state, store::ProxyKeyState::kUnknown);
  auto cancelled = call(post("/proxy/esign/c", "{}", "k-3"),
                        transport_error(net::TransportError::kCancelled, true));
  EXPECT_EQ(store.find("k-3")->state, store::ProxyKeyState::kUnknown);
  EXPECT_EQ(sender.sent(), 3);
}

TEST_F(GatewayTest, Status429And503ReleaseTheKey) {
  start();
  for (int status : {429, 503}) {
    auto r = call(post("/proxy/esign/c", "{}"), answered(status, "busy", {{"Retry-After", "2"}}));
    EXPECT_EQ(r.status, status);
    EXPECT_EQ(r.headers.get("Retry-After").value_or(""), "2");
    EXPECT_FALSE(store.find("k-1"));
  }
  auto ok = call(post("/proxy/esign/c", "{}"), answered(201, "{}"));
  EXPECT_EQ(ok.status, 201);
  EXPECT_EQ(sender.sent(), 3);
}

TEST_F(GatewayTest, ServerErrorsThatBeganExecutingAreStoredAndReplayed) {
  start();
  for (int status : {500, 400, 404}) {
    const std::string key = "e-" + std::to_string(status);
    auto r = call(post("/proxy/esign/c", "{}", key), answered(status, "{\"error\":1}"));
    EXPECT_EQ(r.status, status);
    auto replay = refused(post("/proxy/esign/c", "{}", key));
    EXPECT_EQ(replay.status, status);
    EXPECT_EQ(replay.headers.get("Idempotent-Replayed").value_or(""), "true");
  }
}

TEST_F(GatewayTest, AnswerAboveMaxStoredBodyGoesToTheFirstCallerAndIsNeverReRun) {
  start();
  const std::string big(200, 'x');  // max_stored_body is 64 in these tests
  auto r = call(post("/proxy/esign/c", "{}"), answered(201, big));
  EXPECT_EQ(r.body, big);
  auto row = store.find("k-1");
  ASSERT_TRUE(row);
  EXPECT_EQ(row->state, store::ProxyKeyState::kNotReplayable);
  EXPECT_EQ(row->body_size, 200);
  EXPECT_EQ(row->body_sha256.size(), 64u);
  EXPECT_TRUE(row->body.empty());
  auto again = refused(post("/proxy/esign/c", "{}"));
  EXPECT_EQ(again.status, 409);
  EXPECT_EQ(problem_type(again), problem::kNotReplayable);
}

net::SpooledBodyPtr spooled(const std::string& bytes) {
  net::BodySpool spool("", 16);
  EXPECT_TRUE(spool.append(bytes).has_value());
  return spool.finish_file();
}

TEST_F(GatewayTest, SpooledRequestIsSentFromItsFileWithTheSameFingerprintAsInMemory) {
  start();
  const std::string bytes(4096, 'b');
  auto request = post("/proxy/esign/c", "");
  request.spooled = spooled(bytes);
  Answers answers;
  gateway->handle(std::move(request), answers.respond());
  auto held = sender.take();
  ASSERT_TRUE(held);
  EXPECT_TRUE(held->request.body.empty());
  ASSERT_NE(held->request.body_file, nullptr);
  EXPECT_EQ(held->request.body_file->read_all().value(), bytes);
  EXPECT_EQ(held->request.spool_response_above, std::optional<std::size_t>(64));
  held->done(answered(201, "{}"));
  ASSERT_TRUE(answers.wait());
  // The same bytes in memory are the same request: replayed, not a mismatch.
  auto again = refused(post("/proxy/esign/c", bytes));
  EXPECT_EQ(again.status, 201);
  EXPECT_EQ(again.headers.get("Idempotent-Replayed").value_or(""), "true");
  EXPECT_EQ(refused(post("/proxy/esign/c", bytes + "x")).status, 422);
}

TEST_F(GatewayTest, SpooledAnswerAboveMaxStoredBodyGoesWholeToTheFirstCallerOnly) {
  start();
  const std::string bytes(900, 'w');  // > max_stored_body (64), < max_response_body (1024)
  auto result = answered(200, "");
  result.body_file = spooled(bytes);
  auto r = call(post("/proxy/esign/c", "{}"), result);
  EXPECT_EQ(r.status, 200);
  ASSERT_NE(r.file_body, nullptr);
  EXPECT_EQ(r.file_body->read_all().value(), bytes);
  auto row = store.find("k-1");
  ASSERT_TRUE(row);
  EXPECT_EQ(row->state, store::ProxyKeyState::kNotReplayable);
  EXPECT_EQ(row->body_size, 900);
  EXPECT_EQ(row->body_sha256, crypto::sha256_hex(bytes));
  EXPECT_TRUE(row->body.empty());
  auto again = refused(post("/proxy/esign/c", "{}"));
  EXPECT_EQ(again.status, 409);
  EXPECT_EQ(problem_type(again), problem::kNotReplayable);
}

TEST_F(GatewayTest, SpooledAnswerThatFitsIsStoredAndReplayed) {
  auto route = esign();
  route.max_stored_body = 512;
  start(route);
  const std::string bytes(300, 's');
  auto result = answered(200, "");
  result.body_file = spooled(bytes);
  call(post("/proxy/esign/c", "{}"), result);
  EXPECT_EQ(store.find("k-1")->state, store::ProxyKeyState::kCompleted);
  auto again = refused(post("/proxy/esign/c", "{}"));
  EXPECT_EQ(again.status, 200);
  EXPECT_EQ(again.body, bytes);
}

TEST_F(GatewayTest, AnswerAboveMaxResponseBodyIs502AndNotReplayable) {
  start();
  auto result = answered(200, std::string(1024, 'y'));
  result.truncated = true;
  auto r = call(post("/proxy/esign/c", "{}"), result);
  EXPECT_EQ(r.status, 502);
  EXPECT_EQ(problem_type(r), problem::kTooLarge);
  EXPECT_EQ(store.find("k-1")->state, store::ProxyKeyState::kNotReplayable);
}

TEST_F(GatewayTest, ClaimThatCannotBeStoredIs503AndNothingIsSent) {
  start();
  store.fail_writes = true;
  auto r = refused(post("/proxy/esign/c", "{}"));
  EXPECT_EQ(r.status, 503);
  EXPECT_TRUE(r.headers.contains("Retry-After"));
  EXPECT_EQ(problem_type(r), problem::kUnavailable);
}

TEST_F(GatewayTest, OutcomeThatCannotBeStoredIsNotPassedOnAsSuccess) {
  start();
  Answers answers;
  gateway->handle(post("/proxy/esign/c", "{}"), answers.respond());
  auto held = sender.take();
  ASSERT_TRUE(held);
  store.fail_writes = true;
  held->done(answered(201, "{\"id\":1}"));
  auto r = answers.wait();
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 502);
  EXPECT_EQ(problem_type(*r), problem::kUnknown);
  store.fail_writes = false;
  EXPECT_EQ(store.find("k-1")->state, store::ProxyKeyState::kClaimed)
      << "the key stays claimed (and becomes unknown after its lease), never released";
}

TEST_F(GatewayTest, KeysAreScopedPerTenant) {
  start();
  call(post("/proxy/esign/c", "{}"), answered(201, "a"));
  auto other = post("/proxy/esign/c", "{}");
  other.headers.set("Authorization", "Bearer tenant-b");
  auto r = call(std::move(other), answered(201, "b"));
  EXPECT_EQ(r.body, "b");
  EXPECT_EQ(sender.sent(), 2);
}

TEST_F(GatewayTest, OneTenantWhenTenantHeaderIsEmpty) {
  auto route = esign();
  route.tenant_header = "";
  start(route);
  call(post("/proxy/esign/c", "{}"), answered(201, "a"));
  auto other = post("/proxy/esign/c", "{}");
  other.headers.set("Authorization", "Bearer tenant-b");
  auto r = refused(std::move(other));
  EXPECT_EQ(r.body, "a");
}

TEST_F(GatewayTest, StartTurnsThisOwnersClaimsIntoUnknownKeysOnly) {
  store::ProxyKey mine;
  mine.proxy = "esign";
  mine.key = "left-by-crash";
  mine.owner = "node-a/proxy";
  mine.lease_until = store.now + 60'000;
  mine.fingerprint = request_fingerprint("POST", "/c", crypto::sha256_hex("{}"));
  store.put(mine);
  store::ProxyKey theirs = mine;
  theirs.id.clear();
  theirs.key = "node-b-working";
  theirs.owner = "node-b/proxy";
  store.put(theirs);
  start();
  EXPECT_EQ(store.find("left-by-crash")->state, store::ProxyKeyState::kUnknown);
  EXPECT_EQ(store.find("node-b-working")->state, store::ProxyKeyState::kClaimed);
}

TEST_F(GatewayTest, ClaimOfADeadOwnerBecomesUnknownAfterItsLease) {
  start();
  store::ProxyKey dead;
  dead.proxy = "esign";
  dead.tenant = tenant_of(post("/", "").headers, "Authorization");
  dead.key = "k-1";
  dead.owner = "node-b/proxy";
  dead.lease_until = store.now + 1000;
  dead.fingerprint = request_fingerprint("POST", "/c", crypto::sha256_hex("{}"));
  store.put(dead);
  auto live = refused(post("/proxy/esign/c", "{}"));
  EXPECT_EQ(problem_type(live), problem::kInProgress);
  store.now += 1001;
  auto r = refused(post("/proxy/esign/c", "{}"));
  EXPECT_EQ(r.status, 409);
  EXPECT_EQ(problem_type(r), problem::kUnknown);
}

TEST_F(GatewayTest, ExpiredCompletedKeyRunsAgain) {
  start();
  call(post("/proxy/esign/c", "{}"), answered(201, "first"));
  store.now += esign().ttl.count() + 1;
  auto r = call(post("/proxy/esign/c", "{}"), answered(201, "second"));
  EXPECT_EQ(r.body, "second");
}

TEST_F(GatewayTest, StoppedGatewayRefusesWith503) {
  start();
  gateway->stop();
  auto r = refused(post("/proxy/esign/c", "{}"));
  EXPECT_EQ(r.status, 503);
}

}  // namespace
}  // namespace hookd::proxy
