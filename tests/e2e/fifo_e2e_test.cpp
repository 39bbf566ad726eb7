// FIFO endpoints through the real daemon (A22): per ordering key, the receiver sees the
// messages in publish order, and a message that needs retries holds back the ones after it.
#include <gtest/gtest.h>

#include <map>
#include <mutex>
#include <set>

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

TEST(FifoE2E, A22_SameOrderingKeyArrivesInPublishOrderAcrossRetries) {
  constexpr int kPerKey = 8;
  const std::vector<std::string> keys{"order-a", "order-b"};
  // Which (key, index) fail how often before they succeed.
  const std::map<std::pair<std::string, int>, int> failures{
      {{"order-a", 2}, 2}, {{"order-a", 5}, 1}, {{"order-b", 3}, 1}};
  std::mutex mutex;
  std::map<std::pair<std::string, int>, int> failed;
  std::map<std::string, std::vector<std::pair<int, bool>>> seen;  // key -> (index, succeeded)
  TestReceiver receiver;
  receiver.set_handler([&](const ReceivedRequest& r) {
    const auto body = nlohmann::json::parse(r.body);
    const std::pair<std::string, int> item{body.value("key", ""), body.value("i", -1)};
    std::lock_guard lock(mutex);
    const auto planned = failures.find(item);
    const bool fail = planned != failures.end() && failed[item] < planned->second;
    if (fail) ++failed[item];
    seen[item.first].emplace_back(item.second, !fail);
    return fail ? ReceiverBehavior::respond(503) : ReceiverBehavior::respond(200);
  });
  receiver.start();
  HookdProcess hookd;
  ASSERT_TRUE(hookd.start()) << hookd.last_error();
  ApiClient api(hookd);
  const std::string app = api.create_app("a22");
  api.create_endpoint(app, {{"url", receiver.url("/fifo")}, {"fifo", true}});
  for (int i = 0; i < kPerKey; ++i) {
    for (const auto& key : keys) {
      const HttpReply reply = api.publish(app, {{"eventType", "order.updated"},
                                                {"orderingKey", key},
                                                {"payload", {{"key", key}, {"i", i}}}});
      ASSERT_EQ(reply.status, 202) << reply.body;
    }
  }

  const std::size_t expected = keys.size() * kPerKey + 4;  // + the planned failures
  ASSERT_TRUE(eventually([&] { return receiver.processed_count() == keys.size() * kPerKey; }, 30s))
      << hookd.stderr_text();
  EXPECT_EQ(receiver.request_count(), expected);
  std::lock_guard lock(mutex);
  for (const auto& key : keys) {
    // Each arrival is the oldest message of its key not yet delivered: either its first try
    // or a retry of it; never a later one overtaking it.
    int next = 0;
    for (const auto& [index, succeeded] : seen[key]) {
      EXPECT_EQ(index, next) << key << ": message " << index << " arrived while " << next
                             << " was not delivered yet";
      if (succeeded) ++next;
    }
    EXPECT_EQ(next, kPerKey) << key;
  }
}

}  // namespace
}  // namespace hookd::e2e
