// A12: Idempotency-Key on POST — replay of the first answer, 422 (alerted) for a different
// body, 409 while the first is still in flight; 5xx answers are not kept.
#include <thread>

#include "api/auth.hpp"
#include "api_fixture.hpp"

namespace hookd::api::testing {
namespace {

net::HttpHeader key(std::string k) { return {"Idempotency-Key", std::move(k)}; }

TEST_F(ApiTest, A12_SameKeySameBodyReplaysTheFirstAnswer) {
  const auto app = make_app();
  const nlohmann::json body = {{"eventType", "order.paid"}, {"payload", {{"n", 1}}}};
  auto first = post("/api/v1/app/" + app + "/msg", body, {key("k-1")});
  ASSERT_EQ(first.status, 202) << first.body;
  EXPECT_EQ(first.header("Idempotent-Replayed"), "");
  auto second = post("/api/v1/app/" + app + "/msg", body, {key("k-1")});
  EXPECT_EQ(second.status, 202);
  EXPECT_EQ(second.header("Idempotent-Replayed"), "true");
  EXPECT_EQ(second.body, first.body);
  EXPECT_EQ(second.header("Content-Type"), "application/json");
  EXPECT_EQ(store_->list_messages(app, {}, {}).value().data.size(), 1u) << "published once";
  EXPECT_EQ(metrics_.idempotency.with({"replayed"}).value(), 1u);
}

TEST_F(ApiTest, A12_SameKeyDifferentBodyIs422AndAlerted) {
  const auto app = make_app();
  post("/api/v1/app/" + app + "/msg", {{"eventType", "a"}, {"payload", {{"n", 1}}}}, {key("k-2")});
  auto other = post("/api/v1/app/" + app + "/msg", {{"eventType", "a"}, {"payload", {{"n", 2}}}},
                    {key("k-2")});
  EXPECT_EQ(other.status, 422) << other.body;
  EXPECT_EQ(other.json()["code"], "idempotency_key_reused");
  EXPECT_EQ(registry_.counter("hookd_api_idempotency_key_reuse_total", "").get().value(), 1u);
  EXPECT_EQ(metrics_.idempotency.with({"conflict"}).value(), 1u);
}

TEST_F(ApiTest, A12_KeysAreScopedPerToken) {
  const auto app = make_app();
  const nlohmann::json body = {{"eventType", "a"}, {"payload", {{"n", 1}}}};
  post("/api/v1/app/" + app + "/msg", body, {key("shared")});
  auto bob = call("POST", "/api/v1/app/" + app + "/msg", body.dump(), {key("shared")},
                  "tok_bob_fedcba9876543210");
  EXPECT_EQ(bob.status, 202);
  EXPECT_EQ(bob.header("Idempotent-Replayed"), "");
}

TEST_F(ApiTest, A12_ConcurrentDuplicateWhileFirstInFlightIs409) {
  const auto app = make_app();
  const nlohmann::json body = {{"eventType", "a"}, {"payload", {{"n", 1}}}};
  // Many threads race the same key: exactly one publishes; the rest get 409 (still in
  // flight) or the replayed 202.
  constexpr int kThreads = 8;
  std::vector<Answer> answers(kThreads);
  std::vector<std::thread> threads;
  for (int i = 0; i < kThreads; ++i) {
    threads.emplace_back(
        [&, i] { answers[i] = post("/api/v1/app/" + app + "/msg", body, {key("race")}); });
  }
  for (auto& t : threads) t.join();
  int fresh = 0, replayed = 0, in_flight = 0;
  for (const auto& a : answers) {
    if (a.status == 202 && a.header("Idempotent-Replayed").empty()) ++fresh;
    if (a.status == 202 && a.header("Idempotent-Replayed") == "true") ++replayed;
    if (a.status == 409) {
      ++in_flight;
      EXPECT_EQ(a.json()["code"], "idempotency_in_flight");
    }
  }
  EXPECT_EQ(fresh, 1);
  EXPECT_EQ(fresh + replayed + in_flight, kThreads);
  EXPECT_EQ(store_->list_messages(app, {}, {}).value().data.size(), 1u);

  // Deterministic 409: a key whose first request has begun but not finished.
  const std::string scope = "api|alice";
  const std::string fingerprint = sha256_hex("POST\n/api/v1/app/" + app + "/msg\n" + body.dump());
  auto begun = store_->idem_begin(scope, "held", fingerprint, 60'000);
  ASSERT_TRUE(begun.has_value());
  auto held = post("/api/v1/app/" + app + "/msg", body, {key("held")});
  EXPECT_EQ(held.status, 409);
}

TEST_F(ApiTest, A12_ServerErrorsAreNotKeptSoTheRetryRuns) {
  const auto app = make_app();
  const nlohmann::json body = {{"eventType", "a"}, {"payload", {{"n", 1}}}};
  faults_->arm("INSERT INTO messages");
  EXPECT_EQ(post("/api/v1/app/" + app + "/msg", body, {key("k-5")}).status, 503);
  faults_->disarm();
  auto retry = post("/api/v1/app/" + app + "/msg", body, {key("k-5")});
  EXPECT_EQ(retry.status, 202);
  EXPECT_EQ(retry.header("Idempotent-Replayed"), "");
}

// The key rides in the publish's group-committed transaction: one write transaction (one
// fsync) for key + message + deliveries, and all or nothing.
TEST_F(ApiTest, A12_KeyedPublishIsOneWriteTransactionWithTheMessage) {
  const auto app = make_app();
  make_endpoint(app);
  const nlohmann::json body = {{"eventType", "a"}, {"payload", {{"n", 1}}}};
  faults_->forget();
  auto first = post("/api/v1/app/" + app + "/msg", body, {key("one-tx")});
  ASSERT_EQ(first.status, 202) << first.body;
  EXPECT_EQ(faults_->seen("BEGIN IMMEDIATE"), 1u);
  auto kept = store_->idem_get("api|alice", "one-tx");
  ASSERT_TRUE(kept.has_value());
  EXPECT_EQ(kept->state, store::IdempotencyState::kCompleted);
  EXPECT_EQ(kept->response_status, 202);
  EXPECT_EQ(kept->response_body, first.body);
  EXPECT_EQ(metrics_.idempotency.with({"stored"}).value(), 1u);

  // The key's write fails: nothing of the publish is kept, the retry publishes.
  faults_->arm("INSERT INTO idempotency_keys");
  EXPECT_EQ(post("/api/v1/app/" + app + "/msg", body, {key("atomic")}).status, 503);
  faults_->disarm();
  EXPECT_EQ(store_->list_messages(app, {}, {}).value().data.size(), 1u);
  EXPECT_EQ(store_->idem_get("api|alice", "atomic").error().code, ErrorCode::kNotFound);
  auto retry = post("/api/v1/app/" + app + "/msg", body, {key("atomic")});
  EXPECT_EQ(retry.status, 202);
  EXPECT_EQ(retry.header("Idempotent-Replayed"), "");
  EXPECT_EQ(store_->list_messages(app, {}, {}).value().data.size(), 2u);
}

// Duplicate eventId (409) under a key: kept and replayed like any other answer.
TEST_F(ApiTest, A12_KeyedDuplicateEventIdIsReplayed) {
  const auto app = make_app();
  publish(app, {{"eventId", "evt-1"}});
  const nlohmann::json body = {{"eventType", "a"}, {"eventId", "evt-1"}, {"payload", {{"n", 1}}}};
  auto first = post("/api/v1/app/" + app + "/msg", body, {key("dup")});
  EXPECT_EQ(first.status, 409) << first.body;
  auto again = post("/api/v1/app/" + app + "/msg", body, {key("dup")});
  EXPECT_EQ(again.status, 409);
  EXPECT_EQ(again.header("Idempotent-Replayed"), "true");
  EXPECT_EQ(again.body, first.body);
  // A bad key is refused before anything runs.
  EXPECT_EQ(post("/api/v1/app/" + app + "/msg", body, {key(std::string(256, 'k'))}).status, 400);
}

TEST_F(ApiTest, A12_ClientErrorsAreReplayedToo) {
  const auto app = make_app();
  auto first = post("/api/v1/app/" + app + "/msg", {{"eventType", "a"}}, {key("k-6")});
  EXPECT_EQ(first.status, 422);
  auto again = post("/api/v1/app/" + app + "/msg", {{"eventType", "a"}}, {key("k-6")});
  EXPECT_EQ(again.status, 422);
  EXPECT_EQ(again.header("Idempotent-Replayed"), "true");
}

}  // namespace
}  // namespace hookd::api::testing
