// Issue 12 part 4, shared by the SQLite and the PostgreSQL end-to-end tests: a change through
// the API applies to the next message. `changes` is the node whose API takes the change,
// `publishes` the node whose API takes the messages right after the answer (the same node on
// SQLite; two nodes on one PostgreSQL database, either of whose dispatchers may send). Each
// round first delivers a message so the dispatchers' endpoint caches are warm, then changes
// the endpoint and publishes at once, back to back.
// Thread-safety: test thread only.
#pragma once

#include <gtest/gtest.h>

#include <ctime>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "e2e/api_client.hpp"
#include "e2e/e2e_support.hpp"
#include "e2e/hookd_process.hpp"
#include "hookd/encoding.hpp"
#include "hookd/signing.hpp"
#include "support/test_receiver.hpp"

namespace hookd::e2e::endpoint_change {

inline constexpr int kRounds = 12;

// A distinct, valid Standard Webhooks secret per round.
inline std::string secret_for_round(int round) {
  std::string raw(24, 'k');
  raw[0] = static_cast<char>('A' + round);
  raw[1] = static_cast<char>('a' + round);
  return "whsec_" + base64_encode(as_bytes(raw));
}

inline bool verifies_with(const testing::ReceivedRequest& request, const std::string& secret) {
  HttpHeaders headers;
  for (const auto& [name, value] : request.headers) headers.push_back({name, value});
  auto verifier = Verifier::create(SchemeOptions{}, std::vector<std::string>{secret});
  return verifier && verifier->verify(headers, request.body, std::time(nullptr)).has_value();
}

class Rounds {
 public:
  Rounds(testing::TestReceiver& receiver, const HookdProcess& changes,
         const HookdProcess& publishes)
      : receiver_(receiver), changes_(changes), publishes_(publishes) {
    ApiClient api(changes_);
    app_ = api.create_app("changes");
    ep_ = api.create_endpoint(app_, receiver_.url("/a"));
  }

  // After each rotation's answer, the next message verifies with the new key and, during the
  // rotation, with the previous one.
  void rotate_then_publish() {
    std::string previous = ApiClient(changes_).endpoint_secret(app_, ep_);
    for (int round = 0; round < kRounds; ++round) {
      publish_and_wait("warm." + std::to_string(round));
      const std::string key = secret_for_round(round);
      const HttpReply rotated =
          changes_.post(endpoint_path() + "/secret/rotate", nlohmann::json{{"key", key}}.dump());
      ASSERT_EQ(rotated.status, 204) << rotated.body;
      const testing::ReceivedRequest got = publish_and_wait("after." + std::to_string(round));
      EXPECT_TRUE(verifies_with(got, key)) << "round " << round << ": not signed with the new key";
      EXPECT_TRUE(verifies_with(got, previous))
          << "round " << round << ": the previous key must still sign during the rotation";
      previous = key;
    }
  }

  // After each PATCH of the URL, the next message goes to the new URL.
  void patch_url_then_publish() {
    for (int round = 0; round < kRounds; ++round) {
      publish_and_wait("warm." + std::to_string(round));
      const std::string path = "/r" + std::to_string(round);
      const HttpReply patched = changes_.request(
          "PATCH", endpoint_path(), nlohmann::json{{"url", receiver_.url(path)}}.dump());
      ASSERT_EQ(patched.status, 200) << patched.body;
      const testing::ReceivedRequest got = publish_and_wait("after." + std::to_string(round));
      EXPECT_EQ(got.path, path) << "round " << round << ": sent to the URL before the PATCH";
    }
  }

 private:
  // Publishes and waits until the receiver has it; returns the request it got.
  testing::ReceivedRequest publish_and_wait(const std::string& event_type) {
    const HttpReply published =
        ApiClient(publishes_).publish(app_, event_type, {{"t", event_type}});
    EXPECT_EQ(published.status, 202) << published.body;
    const std::string id = published.json().value("id", "");
    EXPECT_TRUE(eventually([&] { return receiver_.count_for_webhook_id(id) >= 1; }))
        << publishes_.stderr_text();
    for (const auto& request : receiver_.requests()) {
      if (request.header("webhook-id").value_or("") == id) return request;
    }
    ADD_FAILURE() << "message " << id << " never arrived";
    return {};
  }

  std::string endpoint_path() const { return "/api/v1/app/" + app_ + "/endpoint/" + ep_; }

  testing::TestReceiver& receiver_;
  const HookdProcess& changes_;
  const HookdProcess& publishes_;
  std::string app_;
  std::string ep_;
};

}  // namespace hookd::e2e::endpoint_change
