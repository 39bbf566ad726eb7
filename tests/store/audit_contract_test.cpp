// Contract (A30): an endpoint's enable/disable is a transition — the audit entry is written
// only when the row changed, in the same transaction, so a repeated or concurrent disable
// (several in-flight deliveries answering 410 at once) leaves exactly one entry; every other
// audited change writes its entry in its own call.
#include <barrier>
#include <map>
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

AuditEntry change_entry(std::string action, std::string target_id = "") {
  AuditEntry a = audit_entry(std::move(action), std::move(target_id), "operator's reason");
  a.before = R"({"k":"before"})";
  return a;
}

// Every audited change keeps its entry, written by the same call; a create's entry gets the
// new id, resend/recover's the state only the transaction knows; a failed change none.
TEST_P(EndpointTransitionTest, A30_EveryAuditedChangeWritesItsEntryInTheSameCall) {
  Application app;
  app.name = "audited";
  auto created_app = store_->create_application(app, change_entry("application.create"));
  ASSERT_TRUE(created_app.has_value());
  ASSERT_TRUE(
      store_->update_application(*created_app, change_entry("application.update", created_app->id))
          .has_value());
  Endpoint ep;
  ep.app_id = created_app->id;
  ep.url = "https://receiver.example/a";
  ep.secrets.current = "whsec_c2VjcmV0";
  auto created_ep = store_->create_endpoint(ep, change_entry("endpoint.create"));
  ASSERT_TRUE(created_ep.has_value());
  ASSERT_TRUE(store_->update_endpoint(*created_ep, change_entry("endpoint.update", created_ep->id))
                  .has_value());
  ASSERT_TRUE(store_
                  ->rotate_endpoint_secret(created_app->id, created_ep->id, "whsec_bmV3", 1000,
                                           change_entry("endpoint.rotate_secret", created_ep->id))
                  .has_value());
  ASSERT_TRUE(store_->create_event_type(event_type("a.b"), change_entry("event_type.create", "a.b"))
                  .has_value());
  ASSERT_TRUE(store_->update_event_type(event_type("a.b"), change_entry("event_type.update", "a.b"))
                  .has_value());
  ASSERT_TRUE(store_->delete_event_type("a.b", change_entry("event_type.delete", "a.b")));
  auto msg = publish(created_app->id, "a.b").message;
  auto resent = store_->resend(msg.id, created_ep->id, change_entry("message.resend"));
  ASSERT_TRUE(resent.has_value());
  ASSERT_TRUE(store_->recover(created_ep->id, 0, std::nullopt, change_entry("endpoint.recover"))
                  .has_value());
  EXPECT_EQ(store_->delete_endpoint(created_app->id, "ep_missing", change_entry("endpoint.delete"))
                .error()
                .code,
            ErrorCode::kNotFound);
  ASSERT_TRUE(store_->delete_endpoint(created_app->id, created_ep->id,
                                      change_entry("endpoint.delete", created_ep->id)));
  ASSERT_TRUE(store_->delete_application(created_app->id,
                                         change_entry("application.delete", created_app->id)));

  PageRequest all;
  all.limit = PageRequest::kMaxLimit;
  auto log = store_->list_audit(AuditFilter{}, all);
  ASSERT_TRUE(log.has_value());
  std::map<std::string, AuditEntry> by_action;
  for (const auto& e : log->data) by_action[e.action] = e;
  EXPECT_EQ(log->data.size(), 12u) << "one per change, none for the failed delete";
  EXPECT_EQ(by_action.size(), 12u);
  EXPECT_EQ(by_action["application.create"].target_id, created_app->id);
  EXPECT_EQ(by_action["endpoint.create"].target_id, created_ep->id);
  EXPECT_EQ(by_action["endpoint.delete"].target_id, created_ep->id);
  EXPECT_EQ(by_action["message.resend"].target_id, msg.id);
  EXPECT_EQ(by_action["message.resend"].after.value_or(""),
            R"({"delivery":")" + resent->id + R"(","endpoint_id":")" + created_ep->id +
                R"(","status":"pending"})");
  EXPECT_EQ(by_action["endpoint.recover"].target_id, created_ep->id);
  EXPECT_EQ(by_action["endpoint.recover"].after.value_or(""),
            R"({"recovered":0,"status":"pending"})");
  for (const auto& [action, e] : by_action) {
    EXPECT_EQ(e.before.value_or(""), R"({"k":"before"})") << action;
    EXPECT_EQ(e.reason, "operator's reason") << action;
    EXPECT_EQ(e.at, clock_.now_ms()) << action;
  }
}

INSTANTIATE_TEST_SUITE_P(Store, EndpointTransitionTest, ::testing::ValuesIn(all_factories()),
                         factory_name);

}  // namespace
}  // namespace hookd::store::testing
