// Contract: attempt lists filtered in the store's query (Svix listByMsg / listByEndpoint:
// status, status_code_class, endpoint, event types, channel, tag, time window, one attempt by id).
// Mutations checked: dropping any one condition from filter_attempts (store/list_filters.cpp)
// fails the test of that filter; swapping "success"/"NOT success" fails StatusFilter.
#include "store/store_contract.hpp"

namespace hookd::store::testing {
namespace {

using Next = AttemptReport::Next;

class AttemptFilterTest : public StoreContract {
 protected:
  void SetUp() override {
    StoreContract::SetUp();
    app_ = make_app();
    ep_ = make_endpoint(app_.id);
    // Three messages, one attempt each: user.created ok (200, t0), order.paid fails (503,
    // t0+1s, channel "billing"), user.deleted fails without a response (t0+2s).
    t0_ = clock_.now_ms();
    ok_ = attempt("user.created", Next::kDelivered, 200);
    clock_.advance(1'000);
    failed_ = attempt("order.paid", Next::kDead, 503, std::vector<std::string>{"billing"});
    clock_.advance(1'000);
    no_response_ = attempt("user.deleted", Next::kDead, std::nullopt);
  }

  // Publishes one message and records one attempt for it; returns the message id.
  std::string attempt(const std::string& type, Next next, std::optional<std::int64_t> status,
                      std::optional<std::vector<std::string>> channels = std::nullopt) {
    auto msg = publish(app_.id, type, [&](NewMessage& m) {
                 m.channels = channels;
                 if (channels) m.tags = std::vector<std::string>{"invoices"};
               }).message;
    auto d = claim("w1").at(0);
    report(d, next, 0, status);
    return msg.id;
  }

  // The msg ids of the endpoint's attempts matching `filter`, oldest first.
  std::vector<std::string> msgs(AttemptFilter filter) {
    filter.endpoint_id = ep_.id;
    auto page = store_->list_attempts(filter, PageRequest{});
    EXPECT_TRUE(page.has_value()) << page.error().message;
    std::vector<std::string> out;
    for (const auto& a : page.value_or(Page<Attempt>{}).data) out.push_back(a.msg_id);
    return out;
  }

  Application app_;
  Endpoint ep_;
  Millis t0_ = 0;
  std::string ok_, failed_, no_response_;
};

using Ids = std::vector<std::string>;

TEST_P(AttemptFilterTest, NoConditionListsAll) {
  EXPECT_EQ(msgs({}), (Ids{ok_, failed_, no_response_}));
}

TEST_P(AttemptFilterTest, StatusFilter) {
  EXPECT_EQ(msgs({.status = 0}), (Ids{ok_}));
  EXPECT_EQ(msgs({.status = 2}), (Ids{failed_, no_response_}));
  EXPECT_TRUE(msgs({.status = 1}).empty());  // an attempt row is never pending
  EXPECT_TRUE(msgs({.status = 3}).empty());
}

TEST_P(AttemptFilterTest, StatusCodeClassFilter) {
  EXPECT_EQ(msgs({.status_code_class = 200}), (Ids{ok_}));
  EXPECT_EQ(msgs({.status_code_class = 500}), (Ids{failed_}));
  EXPECT_EQ(msgs({.status_code_class = 0}), (Ids{no_response_}));
  EXPECT_TRUE(msgs({.status_code_class = 400}).empty());
}

TEST_P(AttemptFilterTest, EventTypesAndChannelFilterOnTheMessage) {
  EXPECT_EQ(msgs({.event_types = Ids{"user.created", "user.deleted"}}), (Ids{ok_, no_response_}));
  EXPECT_EQ(msgs({.channel = "billing"}), (Ids{failed_}));
  EXPECT_TRUE(msgs({.channel = "nope"}).empty());
  EXPECT_EQ(msgs({.tag = "invoices"}), (Ids{failed_}));
  EXPECT_TRUE(msgs({.tag = "billing"}).empty());
}

TEST_P(AttemptFilterTest, TimeWindowIsSinceInclusiveBeforeExclusive) {
  EXPECT_EQ(msgs({.since = t0_ + 1'000}), (Ids{failed_, no_response_}));
  EXPECT_EQ(msgs({.before = t0_ + 1'000}), (Ids{ok_}));
  EXPECT_EQ(msgs({.since = t0_ + 1'000, .before = t0_ + 2'000}), (Ids{failed_}));
}

TEST_P(AttemptFilterTest, ByMessageEndpointAndId) {
  auto other = make_endpoint(app_.id);
  auto by_msg = store_->list_attempts({.msg_id = failed_}, PageRequest{});
  ASSERT_TRUE(by_msg.has_value());
  ASSERT_EQ(by_msg->data.size(), 1u);
  const auto id = by_msg->data[0].id;
  EXPECT_TRUE(store_->list_attempts({.msg_id = failed_, .endpoint_id = other.id}, PageRequest{})
                  ->data.empty());
  auto one = store_->list_attempts({.id = id, .msg_id = failed_}, PageRequest{});
  ASSERT_EQ(one->data.size(), 1u);
  EXPECT_EQ(one->data[0].id, id);
  EXPECT_TRUE(store_->list_attempts({.id = id, .msg_id = ok_}, PageRequest{})->data.empty());
}

TEST_P(AttemptFilterTest, FiltersApplyBeforePaging) {
  // A page of one with status=2 still finds both failures: filtered in the query.
  PageRequest first;
  first.limit = 1;
  auto page = store_->list_attempts({.endpoint_id = ep_.id, .status = 2}, first);
  ASSERT_TRUE(page.has_value());
  ASSERT_EQ(page->data.size(), 1u);
  EXPECT_EQ(page->data[0].msg_id, failed_);
  EXPECT_FALSE(page->done);
  PageRequest next = first;
  next.iterator = page->iterator;
  auto second = store_->list_attempts({.endpoint_id = ep_.id, .status = 2}, next);
  ASSERT_EQ(second->data.size(), 1u);
  EXPECT_EQ(second->data[0].msg_id, no_response_);
}

INSTANTIATE_TEST_SUITE_P(Store, AttemptFilterTest, ::testing::ValuesIn(all_factories()),
                         factory_name);

}  // namespace
}  // namespace hookd::store::testing
