// Retries and dead letters through the real daemon (A01-A06): transient failures are
// retried, backoff has jitter within its bounds and honours Retry-After, permanent client
// errors and exhausted retries land in the dead-letter queue (visible through the API), a
// person can replay them (audited), and 410 disables only that endpoint.
#include <gtest/gtest.h>

#include <algorithm>
#include <ctime>
#include <iostream>

#include "e2e/api_client.hpp"
#include "e2e/e2e_support.hpp"
#include "e2e/hookd_process.hpp"
#include "support/test_receiver.hpp"

namespace hookd::e2e {
namespace {

using namespace std::chrono_literals;
using hookd::testing::ReceivedRequest;
using hookd::testing::ReceiverBehavior;
using hookd::testing::TestReceiver;

std::size_t count_of(const std::string& text, const std::string& needle) {
  std::size_t n = 0;
  for (auto at = text.find(needle); at != std::string::npos; at = text.find(needle, at + 1)) ++n;
  return n;
}

// An IMF-fixdate (RFC 9110 §5.6.7) `seconds` from now.
std::string http_date_in(int seconds) {
  const std::time_t when = std::time(nullptr) + seconds;
  std::tm utc{};
  ::gmtime_r(&when, &utc);
  char text[64];
  std::strftime(text, sizeof text, "%a, %d %b %Y %H:%M:%S GMT", &utc);
  return text;
}

struct Started {
  std::string app;
  std::string endpoint;
};

Started app_with_endpoint(ApiClient& api, const nlohmann::json& endpoint_in) {
  Started s;
  s.app = api.create_app("retry-e2e");
  s.endpoint = api.create_endpoint(s.app, endpoint_in);
  return s;
}

std::string publish_ok(ApiClient& api, const std::string& app, int n) {
  const HttpReply reply = api.publish(app, "retry.test", {{"n", n}});
  EXPECT_EQ(reply.status, 202) << reply.body;
  return reply.json().value("id", "");
}

// A01: a reset connection and a timed-out attempt are retried; the 200 ends it.
TEST(RetryE2E, A01_ResetAndTimeoutAreRetriedUntil200) {
  TestReceiver receiver;
  receiver.enqueue("/hook", ReceiverBehavior::reset());
  receiver.enqueue("/hook", ReceiverBehavior::respond(200).after(3s));  // the client gives up
  receiver.start();
  HookdProcess hookd;
  ASSERT_TRUE(hookd.start()) << hookd.last_error();
  ApiClient api(hookd);
  const auto s = app_with_endpoint(api, {{"url", receiver.url("/hook")}, {"timeoutMs", 300}});
  const std::string msg = publish_ok(api, s.app, 1);

  ASSERT_TRUE(eventually([&] { return receiver.processed_for_webhook_id(msg) == 1; }))
      << hookd.stderr_text();
  nlohmann::json attempts;
  ASSERT_TRUE(eventually([&] {
    attempts = api.attempts_for_message(s.app, msg);
    return attempts["data"].size() == 3;
  }));
  std::multiset<int> codes;
  for (const auto& a : attempts["data"]) codes.insert(a.value("responseStatusCode", -1));
  EXPECT_EQ(codes, (std::multiset<int>{0, 0, 200})) << attempts.dump();
  EXPECT_EQ(receiver.count_for_webhook_id(msg), 3u);
}

// A02: exponential backoff with jitter within [0.5, 1.5) x the capped delay; after a mass
// outage (every message failing at once) the retries are spread out, not synchronized.
TEST(RetryE2E, A02_BackoffHasJitterWithinBoundsAndSpreadsRetries) {
  constexpr int kMessages = 20;
  constexpr std::int64_t kBaseMs = 400;
  constexpr std::int64_t kMaxMs = 600;
  ArrivalLog log;
  TestReceiver receiver;
  log.attach(receiver, [](const ReceivedRequest&) { return ReceiverBehavior::respond(503); });
  receiver.start();
  HookdProcess hookd(test_config({{"schedule", ""},
                                  {"backoff_base", "\"400ms\""},
                                  {"backoff_max", "\"600ms\""},
                                  {"max_attempts", "3"},
                                  {"poll_interval", "\"20ms\""},
                                  {"endpoint_concurrency", "32"}}));
  ASSERT_TRUE(hookd.start()) << hookd.last_error();
  ApiClient api(hookd);
  const auto s = app_with_endpoint(api, {{"url", receiver.url("/outage")}});
  std::vector<std::string> ids;
  for (int i = 0; i < kMessages; ++i) ids.push_back(publish_ok(api, s.app, i));

  ASSERT_TRUE(eventually([&] { return log.size() == 3u * kMessages; }, 30s)) << log.size() << "\n"
                                                                             << hookd.stderr_text();
  std::vector<std::int64_t> first_delays;
  std::vector<std::int64_t> second_delays;
  std::vector<Steady::time_point> first_retries;
  for (const auto& id : ids) {
    const auto times = log.times_of(id);
    ASSERT_EQ(times.size(), 3u) << id;
    first_delays.push_back(ms_between(times[0], times[1]));
    second_delays.push_back(ms_between(times[1], times[2]));
    first_retries.push_back(times[1]);
  }
  const auto [min1, max1] = std::ranges::minmax(first_delays);
  const auto [min2, max2] = std::ranges::minmax(second_delays);
  const auto [first_retry, last_retry] = std::ranges::minmax(first_retries);
  std::cout << "[ A02 ] retry 1 delays " << min1 << "-" << max1 << " ms (base " << kBaseMs
            << "), retry 2 delays " << min2 << "-" << max2 << " ms (cap " << kMaxMs
            << "); first retries of " << kMessages << " messages spread over "
            << ms_between(first_retry, last_retry) << " ms\n";
  // Lower bounds are exact (a retry never comes early); upper bounds get scheduling slack.
  EXPECT_GE(min1, kBaseMs / 2 - 5);
  EXPECT_LE(max1, kBaseMs * 3 / 2 + 1500);
  EXPECT_GE(min2, kMaxMs / 2 - 5);  // capped: 2 x base would be 800 ms before jitter
  EXPECT_LE(max2, kMaxMs * 3 / 2 + 1500);
  // Without jitter no retry could come before the base delay; with it ~40% do.
  EXPECT_LT(min1, kBaseMs * 9 / 10);
  EXPECT_GE(ms_between(first_retry, last_retry), 100);
}

// A02: Retry-After in seconds is a lower bound on the next attempt (schedule says 100 ms).
TEST(RetryE2E, A02_RetryAfterSecondsIsHonoured) {
  ArrivalLog log;
  TestReceiver receiver;
  std::atomic<int> calls{0};
  log.attach(receiver, [&calls](const ReceivedRequest&) {
    return calls++ == 0 ? ReceiverBehavior::respond(503, "", {{"Retry-After", "2"}})
                        : ReceiverBehavior::respond(200);
  });
  receiver.start();
  HookdProcess hookd;
  ASSERT_TRUE(hookd.start()) << hookd.last_error();
  ApiClient api(hookd);
  const auto s = app_with_endpoint(api, {{"url", receiver.url("/busy")}});
  const std::string msg = publish_ok(api, s.app, 1);

  ASSERT_TRUE(eventually([&] { return log.times_of(msg).size() == 2; }, 20s));
  const auto times = log.times_of(msg);
  const auto gap = ms_between(times[0], times[1]);
  std::cout << "[ A02 ] Retry-After: 2 -> next attempt after " << gap << " ms\n";
  EXPECT_GE(gap, 1950);
  EXPECT_LE(gap, 2000 + 3000);
}

// A02: Retry-After as an HTTP-date is honoured too.
TEST(RetryE2E, A02_RetryAfterHttpDateIsHonoured) {
  ArrivalLog log;
  TestReceiver receiver;
  std::atomic<int> calls{0};
  log.attach(receiver, [&calls](const ReceivedRequest&) {
    return calls++ == 0 ? ReceiverBehavior::respond(429, "", {{"Retry-After", http_date_in(3)}})
                        : ReceiverBehavior::respond(200);
  });
  receiver.start();
  HookdProcess hookd;
  ASSERT_TRUE(hookd.start()) << hookd.last_error();
  ApiClient api(hookd);
  const auto s = app_with_endpoint(api, {{"url", receiver.url("/busy")}});
  const std::string msg = publish_ok(api, s.app, 1);

  ASSERT_TRUE(eventually([&] { return log.times_of(msg).size() == 2; }, 20s));
  const auto times = log.times_of(msg);
  const auto gap = ms_between(times[0], times[1]);
  std::cout << "[ A02 ] Retry-After: <date in 3 s> -> next attempt after " << gap << " ms\n";
  EXPECT_GE(gap, 1500);  // the date has one-second resolution
  EXPECT_LE(gap, 3000 + 3000);
}

// A03: 400, 401, 403, 404, 422 are dead-lettered after one attempt; 401/403 alert.
TEST(RetryE2E, A03_PermanentClientErrorsAreDeadLetteredAfterOneAttempt) {
  const std::vector<int> statuses{400, 401, 403, 404, 422};
  TestReceiver receiver;
  for (int status : statuses) {
    receiver.set_path("/s" + std::to_string(status), ReceiverBehavior::respond(status));
  }
  receiver.start();
  HookdProcess hookd;
  ASSERT_TRUE(hookd.start()) << hookd.last_error();
  ApiClient api(hookd);
  const std::string app = api.create_app("a03");
  for (int status : statuses) {
    api.create_endpoint(app, receiver.url("/s" + std::to_string(status)));
  }
  publish_ok(api, app, 1);

  nlohmann::json dead;
  ASSERT_TRUE(eventually([&] {
    dead = api.dead_letters(app);
    return dead["data"].size() == statuses.size();
  })) << dead.dump();
  std::multiset<int> codes;
  for (const auto& d : dead["data"]) {
    EXPECT_EQ(d.value("attempts", 0), 1) << d.dump();
    EXPECT_EQ(d.value("status", ""), "dead");
    codes.insert(d.value("lastResponseStatusCode", 0));
  }
  EXPECT_EQ(codes, std::multiset<int>(statuses.begin(), statuses.end()));
  EXPECT_EQ(receiver.request_count(), statuses.size());
  ASSERT_TRUE(eventually([&] { return count_of(hookd.stderr_text(), "delivery.alert") >= 2; }))
      << hookd.stderr_text();
  EXPECT_EQ(count_of(hookd.stderr_text(), "delivery.alert"), 2u);
}

// A04: after max_attempts the delivery is in the dead-letter queue, visible through the API.
TEST(RetryE2E, A04_MaxAttemptsThenDeadLetterVisibleInTheApi) {
  TestReceiver receiver;
  receiver.set_path("/down", ReceiverBehavior::respond(500, "database\nunavailable"));
  receiver.start();
  HookdProcess hookd;  // max_attempts = 6, schedule 100/200/300 ms
  ASSERT_TRUE(hookd.start()) << hookd.last_error();
  ApiClient api(hookd);
  const auto s = app_with_endpoint(api, {{"url", receiver.url("/down")}});
  const std::string msg = publish_ok(api, s.app, 1);

  nlohmann::json dead;
  ASSERT_TRUE(eventually([&] {
    dead = api.dead_letters(s.app);
    return dead["data"].size() == 1;
  })) << hookd.stderr_text();
  const auto& d = dead["data"][0];
  EXPECT_EQ(d.value("msgId", ""), msg);
  EXPECT_EQ(d.value("attempts", 0), 6);
  EXPECT_EQ(d.value("lastResponseStatusCode", 0), 500);
  // Why it died: the last status and the start of the body, on one line.
  EXPECT_EQ(d.value("lastError", ""), "HTTP 500: database unavailable") << d.dump();
  EXPECT_EQ(receiver.count_for_webhook_id(msg), 6u);
  const auto one = api.get_json("/api/v1/hookd/dlq/" + d.value("id", ""));
  EXPECT_EQ(one["attempts"].size(), 6u) << one.dump();
  EXPECT_EQ(one["message"].value("id", ""), msg);
}

// A04: max_age ends the retries too (never retried forever), long before max_attempts.
TEST(RetryE2E, A04_MaxAgeThenDeadLetter) {
  TestReceiver receiver;
  receiver.set_path("/down", ReceiverBehavior::respond(503));
  receiver.start();
  HookdProcess hookd(
      test_config({{"max_attempts", "100"}, {"max_age", "\"1s\""}, {"schedule", R"(["150ms"])"}}));
  ASSERT_TRUE(hookd.start()) << hookd.last_error();
  ApiClient api(hookd);
  const auto s = app_with_endpoint(api, {{"url", receiver.url("/down")}});
  const std::string msg = publish_ok(api, s.app, 1);

  nlohmann::json dead;
  ASSERT_TRUE(eventually([&] {
    dead = api.dead_letters(s.app);
    return dead["data"].size() == 1;
  })) << hookd.stderr_text();
  const int attempts = dead["data"][0].value("attempts", 0);
  std::cout << "[ A04 ] max_age 1s: dead after " << attempts << " attempts\n";
  EXPECT_GE(attempts, 2);
  EXPECT_LE(attempts, 12);  // ~1 s / 150 ms, with slack; far from 100
  EXPECT_EQ(receiver.count_for_webhook_id(msg), static_cast<std::size_t>(attempts));
}

// A05: a person replays a dead letter; the replay and its reason are audited with
// before/after state, and the message is then delivered.
TEST(RetryE2E, A05_ReplayedDeadLetterIsDeliveredAndAudited) {
  TestReceiver receiver;
  receiver.set_path("/fixme", ReceiverBehavior::respond(400));
  receiver.start();
  HookdProcess hookd;
  ASSERT_TRUE(hookd.start()) << hookd.last_error();
  ApiClient api(hookd);
  const auto s = app_with_endpoint(api, {{"url", receiver.url("/fixme")}});
  const std::string msg = publish_ok(api, s.app, 1);
  nlohmann::json dead;
  ASSERT_TRUE(eventually([&] {
    dead = api.dead_letters(s.app);
    return dead["data"].size() == 1;
  }));
  const std::string delivery = dead["data"][0].value("id", "");

  receiver.set_path("/fixme", ReceiverBehavior::respond(200));
  const HttpReply replay = hookd.post("/api/v1/hookd/dlq/" + delivery + "/replay",
                                      R"({"reason":"receiver fixed its 400"})");
  ASSERT_EQ(replay.status, 200) << replay.body;
  EXPECT_EQ(replay.json().value("replayed", 0), 1);
  ASSERT_TRUE(eventually([&] { return receiver.processed_for_webhook_id(msg) == 1; }));
  EXPECT_EQ(receiver.count_for_webhook_id(msg), 2u);
  ASSERT_TRUE(eventually([&] { return api.dead_letters(s.app)["data"].empty(); }));

  const auto audit = api.get_json("/api/v1/hookd/audit?action=dlq.replay");
  ASSERT_EQ(audit["data"].size(), 1u) << audit.dump();
  const auto& entry = audit["data"][0];
  EXPECT_EQ(entry.value("actor", ""), "cli");  // the --token's name
  EXPECT_EQ(entry.value("reason", ""), "receiver fixed its 400");
  EXPECT_EQ(entry.value("targetId", ""), delivery);
  EXPECT_FALSE(entry["before"].is_null());
  EXPECT_FALSE(entry["after"].is_null());
  EXPECT_NE(entry["before"].dump(), entry["after"].dump());
}

// A06: a 410 disables that endpoint (reason, audit entry); the other keeps receiving.
TEST(RetryE2E, A06_GoneDisablesOnlyThatEndpoint) {
  TestReceiver receiver;
  receiver.set_path("/gone", ReceiverBehavior::respond(410));
  receiver.start();
  HookdProcess hookd;
  ASSERT_TRUE(hookd.start()) << hookd.last_error();
  ApiClient api(hookd);
  const std::string app = api.create_app("a06");
  const std::string gone = api.create_endpoint(app, receiver.url("/gone"));
  const std::string ok = api.create_endpoint(app, receiver.url("/ok"));
  publish_ok(api, app, 0);

  const std::string gone_path = "/api/v1/app/" + app + "/endpoint/" + gone;
  nlohmann::json ep;
  ASSERT_TRUE(eventually([&] {
    ep = api.get_json(gone_path);
    return ep.value("disabled", false);
  })) << hookd.stderr_text();
  EXPECT_NE(ep.value("disabledReason", "").find("410"), std::string::npos) << ep.dump();
  const auto audit = api.get_json("/api/v1/hookd/audit?target_id=" + gone);
  ASSERT_FALSE(audit["data"].empty());
  EXPECT_EQ(audit["data"][0].value("action", ""), "endpoint.disable");

  for (int i = 1; i <= 4; ++i) publish_ok(api, app, i);
  auto requests_to = [&](const std::string& path) {
    std::size_t n = 0;
    for (const auto& r : receiver.requests()) n += r.path == path;
    return n;
  };
  ASSERT_TRUE(eventually([&] { return requests_to("/ok") == 5; }));
  EXPECT_EQ(requests_to("/gone"), 1u);
  EXPECT_FALSE(api.get_json("/api/v1/app/" + app + "/endpoint/" + ok).value("disabled", true));
}

}  // namespace
}  // namespace hookd::e2e
