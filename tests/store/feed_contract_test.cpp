// Contract: the outbound feed (FeedStore) — an endpoint's deliveries oldest first, paged with
// an opaque iterator (no gap, no duplicate), the limit, other endpoints' rows left out, the
// delivery's live status, what resend / recover / replay do to it, unknown endpoints and
// foreign iterators; and the endpoints' feed tokens (create once, rotate, look up, audit).
#include <algorithm>
#include <chrono>
#include <set>
#include <thread>

#include "store/store_contract.hpp"

namespace hookd::store::testing {
namespace {

using Next = AttemptReport::Next;

class FeedTest : public StoreContract {
 protected:
  void SetUp() override {
    StoreContract::SetUp();
    app_ = make_app();
    ep_ = make_endpoint(app_.id);
  }

  // One page once the feed has caught up. On PostgreSQL a page holds back rows behind any
  // transaction still open in the cluster (xids are cluster-wide: other tests' databases
  // count), answering a short page with done = false; such a page is read again (bounded).
  FeedPage page(const std::string& endpoint_id, const std::string& iterator = "", int limit = 50) {
    FeedPage p;
    for (int attempt = 0; attempt < 1000; ++attempt) {
      auto r = store_->feed_page(endpoint_id, iterator, limit);
      EXPECT_TRUE(r.has_value()) << r.error().message;
      if (!r) return FeedPage{};
      p = std::move(*r);
      const bool held_back = !p.done && static_cast<int>(p.data.size()) < std::clamp(limit, 1, 250);
      if (!held_back) break;
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    return p;
  }

  // Every item id of the endpoint's feed, read `limit` at a time.
  std::vector<std::string> read_all(const std::string& endpoint_id, int limit) {
    std::vector<std::string> ids;
    std::string it;
    for (int guard = 0; guard < 1000; ++guard) {
      FeedPage p = page(endpoint_id, it, limit);
      EXPECT_LE(static_cast<int>(p.data.size()), limit);
      for (const auto& item : p.data) ids.push_back(item.message.id);
      it = p.iterator;
      if (p.done) break;
    }
    return ids;
  }

  Application app_;
  Endpoint ep_;
};

TEST_P(FeedTest, ItemsOldestFirstWithTheMessageAndItsDelivery) {
  auto a = publish(app_.id, "order.paid", [](NewMessage& m) {
             m.event_id = "evt-1";
             m.payload = R"({"b": 1,  "a": [true]})";
           }).message;
  auto b =
      publish(app_.id, "order.shipped", [](NewMessage& m) { m.ordering_key = "order-7"; }).message;
  FeedPage p = page(ep_.id);
  ASSERT_EQ(p.data.size(), 2u);
  EXPECT_TRUE(p.done);
  EXPECT_FALSE(p.iterator.empty());
  const FeedItem& first = p.data[0];
  EXPECT_EQ(first.message.id, a.id);
  EXPECT_EQ(first.message.event_type, "order.paid");
  EXPECT_EQ(first.message.event_id, "evt-1");
  EXPECT_EQ(first.message.payload, R"({"b": 1,  "a": [true]})");  // the stored bytes
  EXPECT_EQ(first.message.created_at, a.created_at);
  EXPECT_EQ(first.status, DeliveryStatus::kPending);
  auto deliveries = store_->list_deliveries_for_message(a.id).value();
  ASSERT_EQ(deliveries.size(), 1u);
  EXPECT_EQ(first.delivery_id, deliveries[0].id);
  EXPECT_EQ(p.data[1].message.id, b.id);
  EXPECT_EQ(p.data[1].message.ordering_key, "order-7");
  EXPECT_EQ(p.data[1].message.sequence, 1);
}

TEST_P(FeedTest, PagesHaveNoGapAndNoDuplicate) {
  std::vector<std::string> published;
  for (int i = 0; i < 7; ++i) published.push_back(publish(app_.id, "e").message.id);
  FeedPage p1 = page(ep_.id, "", 3);
  EXPECT_EQ(p1.data.size(), 3u);
  EXPECT_FALSE(p1.done);
  FeedPage p2 = page(ep_.id, p1.iterator, 3);
  EXPECT_EQ(p2.data.size(), 3u);
  EXPECT_FALSE(p2.done);
  FeedPage p3 = page(ep_.id, p2.iterator, 3);
  EXPECT_EQ(p3.data.size(), 1u);
  EXPECT_TRUE(p3.done);
  EXPECT_EQ(read_all(ep_.id, 3), published);
  EXPECT_EQ(read_all(ep_.id, 7), published);
  // The last iterator reads what comes later, and nothing twice.
  FeedPage empty = page(ep_.id, p3.iterator, 3);
  EXPECT_TRUE(empty.data.empty());
  EXPECT_TRUE(empty.done);
  EXPECT_EQ(empty.iterator, p3.iterator);
  auto later = publish(app_.id, "e").message;
  FeedPage next = page(ep_.id, p3.iterator, 3);
  ASSERT_EQ(next.data.size(), 1u);
  EXPECT_EQ(next.data[0].message.id, later.id);
}

TEST_P(FeedTest, BatchPublishesKeepTheirOrder) {
  std::vector<NewMessage> batch(5);
  for (auto& m : batch) {
    m.app_id = app_.id;
    m.event_type = "e";
    m.payload = "{}";
  }
  auto out = store_->publish_batch(batch).value();
  std::vector<std::string> ids;
  for (const auto& o : out) ids.push_back(o.message.id);
  EXPECT_EQ(read_all(ep_.id, 2), ids);
}

TEST_P(FeedTest, LimitIsClampedToOneThrough250) {
  for (int i = 0; i < 3; ++i) publish(app_.id, "e");
  EXPECT_EQ(page(ep_.id, "", 0).data.size(), 1u);
  EXPECT_EQ(page(ep_.id, "", -5).data.size(), 1u);
  EXPECT_EQ(page(ep_.id, "", 100000).data.size(), 3u);
}

TEST_P(FeedTest, OnlyTheEndpointsOwnRows) {
  auto other =
      make_endpoint(app_.id, [](Endpoint& e) { e.filter_types = std::vector<std::string>{"b"}; });
  auto other_app = make_app("other");
  auto foreign = make_endpoint(other_app.id);
  auto a = publish(app_.id, "a").message;
  auto b = publish(app_.id, "b").message;
  publish(other_app.id, "b");
  EXPECT_EQ(read_all(ep_.id, 10), (std::vector<std::string>{a.id, b.id}));
  EXPECT_EQ(read_all(other.id, 10), (std::vector<std::string>{b.id}));
  EXPECT_EQ(read_all(foreign.id, 10).size(), 1u);
}

TEST_P(FeedTest, UnknownEndpointAndForeignIterator) {
  auto missing = store_->feed_page("ep_nope", "", 10);
  ASSERT_FALSE(missing.has_value());
  EXPECT_EQ(missing.error().code, ErrorCode::kNotFound);
  auto empty = page(ep_.id);  // known endpoint, nothing published: an empty, done page
  EXPECT_TRUE(empty.data.empty());
  EXPECT_TRUE(empty.done);
  for (const std::string bad : {"not base64!", "bXNnXzE", "++++", "Zm9v"}) {
    auto r = store_->feed_page(ep_.id, bad, 10);
    ASSERT_FALSE(r.has_value()) << bad;
    EXPECT_EQ(r.error().code, ErrorCode::kInvalidArgument) << bad;
  }
}

TEST_P(FeedTest, StatusIsTheDeliverysCurrentOne) {
  publish(app_.id, "e");
  report(claim("w1").at(0), Next::kDelivered, 0, 200);
  EXPECT_EQ(page(ep_.id).data.at(0).status, DeliveryStatus::kDelivered);
}

// Resend adds a delivery, not a feed item (the message is in the feed at its publish
// position); recover changes statuses in place.
TEST_P(FeedTest, ResendAndRecoverDoNotDuplicate) {
  auto a = publish(app_.id, "e").message;
  auto b = publish(app_.id, "e").message;
  FeedPage before = page(ep_.id);
  ASSERT_TRUE(store_->resend(a.id, ep_.id).has_value());
  for (const auto& d : claim("w1")) report(d, Next::kDead);
  ASSERT_TRUE(store_->recover(ep_.id, 0).has_value());
  EXPECT_EQ(read_all(ep_.id, 1), (std::vector<std::string>{a.id, b.id}));
  EXPECT_TRUE(page(ep_.id, before.iterator).data.empty());
  EXPECT_EQ(page(ep_.id).data.at(0).status, DeliveryStatus::kPending);  // recovered
}

// A dead delivery replayed onto another endpoint is new to that endpoint's feed: it comes
// after everything already there (a reader past them still sees it) and leaves the old one.
TEST_P(FeedTest, ReplayOntoAnotherEndpointAppendsToItsFeed) {
  auto other =
      make_endpoint(app_.id, [](Endpoint& e) { e.filter_types = std::vector<std::string>{"b"}; });
  auto a = publish(app_.id, "a").message;
  auto b = publish(app_.id, "b").message;
  const std::string other_iterator = page(other.id).iterator;  // past b
  Delivery dead;
  for (const auto& d : claim("w1")) {
    if (d.msg_id == a.id) dead = d;
    report(d, d.msg_id == a.id ? Next::kDead : Next::kDelivered);
  }
  ASSERT_FALSE(dead.id.empty());
  ASSERT_TRUE(store_->replay_dead({dead.id}, other.id, audit_entry("dlq.replay")).has_value());
  FeedPage after = page(other.id, other_iterator);
  ASSERT_EQ(after.data.size(), 1u);
  EXPECT_EQ(after.data[0].message.id, a.id);
  EXPECT_EQ(after.data[0].delivery_id, dead.id);
  EXPECT_EQ(read_all(other.id, 10), (std::vector<std::string>{b.id, a.id}));
  EXPECT_EQ(read_all(ep_.id, 10), (std::vector<std::string>{b.id}));
}

TEST_P(FeedTest, FeedTokenIsSetOnceThenRotated) {
  EXPECT_EQ(store_->feed_token_endpoint("aa").error().code, ErrorCode::kNotFound);
  ASSERT_TRUE(store_->set_feed_token(app_.id, ep_.id, "aa", false, audit_entry("feed_token.create"))
                  .has_value());
  EXPECT_EQ(store_->feed_token_endpoint("aa").value(), ep_.id);
  auto again = store_->set_feed_token(app_.id, ep_.id, "bb", false, std::nullopt);
  ASSERT_FALSE(again.has_value());
  EXPECT_EQ(again.error().code, ErrorCode::kConflict);
  EXPECT_EQ(store_->feed_token_endpoint("aa").value(), ep_.id);  // unchanged
  ASSERT_TRUE(store_->set_feed_token(app_.id, ep_.id, "bb", true, audit_entry("feed_token.rotate"))
                  .has_value());
  EXPECT_EQ(store_->feed_token_endpoint("aa").error().code, ErrorCode::kNotFound);
  EXPECT_EQ(store_->feed_token_endpoint("bb").value(), ep_.id);
  auto audits = store_->list_audit(audit_by_target(ep_.id), PageRequest{}).value();
  std::set<std::string> actions;
  for (const auto& e : audits.data) actions.insert(e.action);
  EXPECT_EQ(actions, (std::set<std::string>{"feed_token.create", "feed_token.rotate"}));
  // Unknown endpoint, or one of another application.
  auto other_app = make_app("other");
  for (const auto& [app, ep] :
       {std::pair{app_.id, std::string("ep_nope")}, std::pair{other_app.id, ep_.id}}) {
    auto r = store_->set_feed_token(app, ep, "cc", true, std::nullopt);
    ASSERT_FALSE(r.has_value());
    EXPECT_EQ(r.error().code, ErrorCode::kNotFound);
  }
  // Endpoint updates keep the token.
  Endpoint changed = ep_;
  changed.url = "https://receiver.example/other";
  ASSERT_TRUE(store_->update_endpoint(changed).has_value());
  EXPECT_EQ(store_->feed_token_endpoint("bb").value(), ep_.id);
}

INSTANTIATE_TEST_SUITE_P(Backends, FeedTest, ::testing::ValuesIn(all_factories()), factory_name);

}  // namespace
}  // namespace hookd::store::testing
