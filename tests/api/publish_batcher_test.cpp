// PublishBatcher: group commit answers every item and tells its owner (the dispatcher's
// wake-up) only when a commit created deliveries.
#include "api/publish_batcher.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <future>

namespace hookd::api {
namespace {

// Creates one delivery per message unless the event type is "nobody".
class FakeMessages final : public store::MessageStore {
 public:
  Result<store::PublishOutcome> publish(const store::NewMessage& m) override {
    store::PublishOutcome o;
    o.message.event_type = m.event_type;
    o.deliveries_created = m.event_type == "nobody" ? 0 : 1;
    return o;
  }
  Result<std::vector<store::PublishOutcome>> publish_batch(
      const std::vector<store::NewMessage>& msgs) override {
    ++batches;
    std::vector<store::PublishOutcome> out;
    for (const auto& m : msgs) out.push_back(*publish(m));
    return out;
  }
  Result<store::Message> get_message(const std::string&, const std::string&) override {
    return fail(ErrorCode::kNotFound, "no");
  }
  Result<store::Page<store::Message>> list_messages(const std::string&, const store::MessageFilter&,
                                                    const store::PageRequest&) override {
    return store::Page<store::Message>{};
  }
  std::atomic<int> batches{0};
};

Result<store::PublishOutcome> publish_one(PublishBatcher& batcher, std::string event_type) {
  std::promise<Result<store::PublishOutcome>> answered;
  store::NewMessage m;
  m.app_id = "app_1";
  m.event_type = std::move(event_type);
  EXPECT_TRUE(batcher.submit(
      std::move(m), [&](Result<store::PublishOutcome> r) { answered.set_value(std::move(r)); }));
  return answered.get_future().get();
}

TEST(PublishBatcherTest, CommitThatCreatedDeliveriesCallsTheHookBeforeAnswering) {
  FakeMessages store;
  std::atomic<int> hooks{0};
  PublishBatcher batcher(store, 16, 100, [&] { ++hooks; });
  batcher.start();
  auto created = publish_one(batcher, "order.created");
  ASSERT_TRUE(created.has_value());
  EXPECT_EQ(created->deliveries_created, 1);
  EXPECT_EQ(hooks.load(), 1);  // called before the answer
  auto nobody = publish_one(batcher, "nobody");
  ASSERT_TRUE(nobody.has_value());
  EXPECT_EQ(hooks.load(), 1);  // nothing to deliver: no wake-up
  batcher.stop();
  EXPECT_EQ(store.batches.load(), 2);
}

TEST(PublishBatcherTest, WorksWithoutAHook) {
  FakeMessages store;
  PublishBatcher batcher(store, 16, 100);
  batcher.start();
  EXPECT_TRUE(publish_one(batcher, "order.created").has_value());
  batcher.stop();
}

}  // namespace
}  // namespace hookd::api
