// The REST API as a client sees it through the real daemon: Idempotency-Key on publish
// (A12), the SSRF address policy for endpoint URLs (A32), and token checks on every route
// family (A34).
#include <gtest/gtest.h>

#include <atomic>
#include <iostream>
#include <thread>

#include "e2e/api_client.hpp"
#include "e2e/e2e_support.hpp"
#include "e2e/hookd_process.hpp"
#include "support/test_receiver.hpp"

namespace hookd::e2e {
namespace {

using namespace std::chrono_literals;
using hookd::testing::TestReceiver;

HeaderList with_key(const std::string& key) { return {{"Idempotency-Key", key}}; }

std::size_t message_count(ApiClient& api, const std::string& app) {
  return api.get_json("/api/v1/app/" + app + "/msg?limit=250")["data"].size();
}

// A12: same key + same body → the first answer again; same key + another body → 422,
// counted as an alert; one message stored either way.
TEST(ApiE2E, A12_IdempotencyKeyReplaysTheFirstAnswerAndRefusesAnotherBody) {
  HookdProcess hookd;
  ASSERT_TRUE(hookd.start()) << hookd.last_error();
  ApiClient api(hookd);
  const std::string app = api.create_app("a12");
  const std::string path = "/api/v1/app/" + app + "/msg";
  const std::string body = R"({"eventType":"order.paid","payload":{"order":42}})";

  const HttpReply first = hookd.post(path, body, with_key("order-42-paid"));
  ASSERT_EQ(first.status, 202) << first.body;
  const HttpReply again = hookd.post(path, body, with_key("order-42-paid"));
  ASSERT_EQ(again.status, 202) << again.body;
  EXPECT_EQ(again.json().value("id", "x"), first.json().value("id", "y"));
  EXPECT_EQ(again.header("Idempotent-Replayed").value_or(""), "true");

  const HttpReply other = hookd.post(path, R"({"eventType":"order.paid","payload":{"order":43}})",
                                     with_key("order-42-paid"));
  EXPECT_EQ(other.status, 422) << other.body;
  EXPECT_EQ(other.json().value("code", ""), "idempotency_key_reused");
  EXPECT_EQ(message_count(api, app), 1u);
  const HttpReply metrics = http_get(hookd.url("/metrics"));
  EXPECT_NE(metrics.body.find("hookd_api_idempotency_key_reuse_total 1"), std::string::npos)
      << metrics.body.substr(0, 2000);
  EXPECT_TRUE(eventually(
      [&] { return hookd.stderr_text().find("api.idempotency_key_reused") != std::string::npos; }));
}

// A12: concurrent duplicates with one key: each gets the one message (202, replayed) or 409
// while the first is still running; never a second message.
TEST(ApiE2E, A12_ConcurrentDuplicatesCreateOneMessage) {
  constexpr int kClients = 8;
  HookdProcess hookd;
  ASSERT_TRUE(hookd.start()) << hookd.last_error();
  ApiClient api(hookd);
  const std::string app = api.create_app("a12c");
  const std::string path = "/api/v1/app/" + app + "/msg";
  const std::string body = R"({"eventType":"order.paid","payload":{"order":7}})";

  std::vector<HttpReply> replies(kClients);
  std::atomic<int> ready{0};
  std::vector<std::thread> clients;
  for (int i = 0; i < kClients; ++i) {
    clients.emplace_back([&, i] {
      ++ready;
      while (ready < kClients) std::this_thread::yield();  // start together
      replies[i] = hookd.post(path, body, with_key("same-key"));
    });
  }
  for (auto& c : clients) c.join();

  std::set<std::string> ids;
  int conflicts = 0;
  for (const auto& r : replies) {
    if (r.status == 202) {
      ids.insert(r.json().value("id", ""));
    } else {
      EXPECT_EQ(r.status, 409) << r.body;
      EXPECT_EQ(r.json().value("code", ""), "idempotency_in_flight");
      ++conflicts;
    }
  }
  std::cout << "[ A12 ] " << kClients << " concurrent duplicates: " << kClients - conflicts
            << " x 202 (one message), " << conflicts << " x 409\n";
  EXPECT_EQ(ids.size(), 1u);
  EXPECT_EQ(message_count(api, app), 1u);
}

// A32: literal loopback, private, link-local, CGNAT and metadata addresses are refused at
// creation (422) when not allow-listed; a name resolving to loopback is refused at delivery
// time, before connecting (the receiver on loopback sees nothing).
TEST(ApiE2E, A32_PrivateAndLoopbackEndpointUrlsAreRefused) {
  TestReceiver receiver;
  receiver.start();
  HookdProcess hookd(test_config({{"max_attempts", "2"}}, /*allow_loopback=*/false));
  ASSERT_TRUE(hookd.start()) << hookd.last_error();
  ApiClient api(hookd);
  const std::string app = api.create_app("a32");
  const std::string port = std::to_string(receiver.port());
  for (const std::string& url :
       {"http://127.0.0.1:" + port + "/hook", "http://[::1]:" + port + "/hook",
        std::string("http://10.1.2.3/hook"), std::string("http://192.168.1.1/hook"),
        std::string("http://169.254.169.254/latest/meta-data/"),
        std::string("http://100.64.0.1/hook"), std::string("http://0.0.0.0/hook"),
        std::string("http://[fd00::1]/hook")}) {
    const HttpReply reply =
        hookd.post("/api/v1/app/" + app + "/endpoint", nlohmann::json{{"url", url}}.dump());
    EXPECT_EQ(reply.status, 422) << url << " " << reply.body;
    EXPECT_NE(reply.body.find("refused"), std::string::npos) << reply.body;
  }

  // A name is checked when it is resolved, at delivery time.
  api.create_endpoint(app, "http://localhost:" + port + "/hook");
  const HttpReply published = api.publish(app, "probe", {{"n", 1}});
  ASSERT_EQ(published.status, 202);
  const std::string msg = published.json().value("id", "");
  nlohmann::json attempts;
  ASSERT_TRUE(eventually([&] {
    attempts = api.attempts_for_message(app, msg);
    return !attempts["data"].empty() && !api.dead_letters(app)["data"].empty();
  })) << hookd.stderr_text();
  for (const auto& a : attempts["data"]) {
    EXPECT_EQ(a.value("responseStatusCode", -1), 0);
    EXPECT_FALSE(a["error"].is_null()) << a.dump();
  }
  EXPECT_EQ(receiver.connection_count(), 0u);
  const HttpReply metrics = http_get(hookd.url("/metrics"));
  EXPECT_NE(metrics.body.find("result=\"refused\""), std::string::npos);
}

// A34: every API route family refuses a missing or wrong token with 401 (and
// WWW-Authenticate); the health probe alone is open.
TEST(ApiE2E, A34_EveryRouteFamilyNeedsAValidToken) {
  HookdProcess hookd;
  ASSERT_TRUE(hookd.start()) << hookd.last_error();
  const std::string wrong(std::string(HookdProcess::kToken).size(), 'x');  // same length
  const std::vector<std::pair<std::string, std::string>> routes = {
      {"GET", "/api/v1/app"},
      {"POST", "/api/v1/app"},
      {"POST", "/api/v1/app/app_x/msg"},
      {"GET", "/api/v1/app/app_x/endpoint/ep_x/secret"},
      {"GET", "/api/v1/app/app_x/endpoint/ep_x/headers"},
      {"GET", "/api/v1/app/app_x/attempt/msg/msg_x"},
      {"GET", "/api/v1/event-type"},
      {"GET", "/api/v1/hookd/dlq"},
      {"POST", "/api/v1/hookd/dlq/replay"},
      {"GET", "/api/v1/hookd/audit"}};
  int refused = 0;
  for (const auto& [method, path] : routes) {
    for (const HeaderList& auth :
         {HeaderList{}, HeaderList{{"Authorization", "Bearer " + wrong}},
          HeaderList{{"Authorization", std::string(HookdProcess::kToken)}}}) {
      HeaderList headers = auth;
      headers.emplace_back("Content-Type", "application/json");
      const HttpReply reply = http_request(method, hookd.url(path), "{}", headers);
      EXPECT_EQ(reply.status, 401) << method << " " << path;
      EXPECT_NE(reply.header("WWW-Authenticate").value_or("").find("Bearer"), std::string::npos);
      ++refused;
    }
  }
  EXPECT_EQ(http_get(hookd.url("/api/v1/health")).status, 204);
  const HttpReply metrics = http_get(hookd.url("/metrics"));
  EXPECT_NE(metrics.body.find("hookd_api_unauthorized_total " + std::to_string(refused)),
            std::string::npos);
}

}  // namespace
}  // namespace hookd::e2e
