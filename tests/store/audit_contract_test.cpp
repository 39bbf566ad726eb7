// Contract (A30): an endpoint's enable/disable is a transition — the audit entry is written
// only when the row changed, in the same transaction, so a repeated or concurrent disable
// (several in-flight deliveries answering 410 at once) leaves exactly one entry.
#include <barrier>
#include <thread>
#include <vector>

#include "store/store_contract.hpp"

namespace hookd::store::testing {
namespace {

class EndpointTransitionTest : public StoreContract {
 protected:
  void SetUp() override {
    StoreContract::SetUp();
    app_ = make_app();
    ep_ = make_endpoint(app_.id);
  }

  AuditEntry disable_entry() const {
    AuditEntry a = audit_entry("endpoint.disable", ep_.id, "HTTP 410 Gone");
    a.target_type = "endpoint";
    return a;
  }
  AuditEntry enable_entry() const {
    AuditEntry a = audit_entry("endpoint.enable", ep_.id, "back");
    a.target_type = "endpoint";
    return a;
  }

  std::size_t entries(const std::string& action) {
    AuditFilter f;
    f.target_id = ep_.id;
    f.action = action;
    PageRequest all;
    all.limit = PageRequest::kMaxLimit;
    auto log = store_->list_audit(f, all);
    EXPECT_TRUE(log.has_value());
    return log ? log->data.size() : 0;
  }

  Application app_;
  Endpoint ep_;
};

TEST_P(EndpointTransitionTest, A30_DisablingAnAlreadyDisabledEndpointWritesNoSecondEntry) {
  auto first = store_->set_endpoint_disabled(app_.id, ep_.id, true, "gone", disable_entry());
  ASSERT_TRUE(first.has_value()) << first.error().message;
  auto again = store_->set_endpoint_disabled(app_.id, ep_.id, true, "gone again", disable_entry());
  ASSERT_TRUE(again.has_value()) << "a repeated disable is not an error";
  EXPECT_EQ(entries("endpoint.disable"), 1u);
  auto ep = store_->get_endpoint(app_.id, ep_.id);
  ASSERT_TRUE(ep.has_value());
  EXPECT_TRUE(ep->disabled);
  EXPECT_EQ(ep->disabled_reason, "gone") << "the first transition's reason stays";

  for (int i = 0; i < 2; ++i) {
    ASSERT_TRUE(store_->set_endpoint_disabled(app_.id, ep_.id, false, std::nullopt, enable_entry())
                    .has_value());
  }
  EXPECT_EQ(entries("endpoint.enable"), 1u) << "enabling an enabled endpoint is no transition";
  EXPECT_EQ(
      store_->set_endpoint_disabled(app_.id, "ep_missing", true, "x", disable_entry()).error().code,
      ErrorCode::kNotFound);
}

TEST_P(EndpointTransitionTest, A30_TheEntryHoldsTheStateReadInTheTransaction) {
  AuditEntry a = disable_entry();
  a.before.reset();
  a.after.reset();
  ASSERT_TRUE(store_->set_endpoint_disabled(app_.id, ep_.id, true, "gone", a).has_value());
  PageRequest all;
  auto log = store_->list_audit(audit_by_target(ep_.id), all);
  ASSERT_TRUE(log.has_value());
  ASSERT_EQ(log->data.size(), 1u);
  EXPECT_EQ(log->data[0].before.value_or(""), R"({"disabled":false,"disabledReason":null})");
  EXPECT_EQ(log->data[0].after.value_or(""), R"({"disabled":true,"disabledReason":"gone"})");
}

// Many threads disable the same endpoint at the same moment, over many rounds: each round is
// one transition, so one entry, whatever the interleaving.
TEST_P(EndpointTransitionTest, A30_ConcurrentDisablesWriteExactlyOneEntry) {
  constexpr int kThreads = 8;
  constexpr int kRounds = 20;
  for (int round = 0; round < kRounds; ++round) {
    std::barrier start(kThreads);
    std::atomic<int> failures{0};
    std::vector<std::thread> threads;
    for (int t = 0; t < kThreads; ++t) {
      threads.emplace_back([&] {
        start.arrive_and_wait();
        auto r = store_->set_endpoint_disabled(app_.id, ep_.id, true, "gone", disable_entry());
        if (!r) ++failures;
      });
    }
    for (auto& t : threads) t.join();
    ASSERT_EQ(failures.load(), 0) << "round " << round;
    ASSERT_EQ(entries("endpoint.disable"), static_cast<std::size_t>(round + 1))
        << "round " << round << ": one transition, one entry";
    ASSERT_TRUE(store_->set_endpoint_disabled(app_.id, ep_.id, false, std::nullopt, enable_entry())
                    .has_value());
  }
  EXPECT_EQ(entries("endpoint.enable"), static_cast<std::size_t>(kRounds));
}

INSTANTIATE_TEST_SUITE_P(Store, EndpointTransitionTest, ::testing::ValuesIn(all_factories()),
                         factory_name);

}  // namespace
}  // namespace hookd::store::testing
