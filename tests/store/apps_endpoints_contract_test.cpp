// Contract: applications, event types, endpoints, paging, audit listing.
#include "store/store_contract.hpp"

namespace hookd::store::testing {
namespace {

TEST_P(StoreContract, MigrateIsIdempotent) {
  ASSERT_TRUE(store_->migrate().has_value());
  ASSERT_TRUE(store_->migrate().has_value());
  auto v = store_->schema_version();
  ASSERT_TRUE(v.has_value());
  EXPECT_GE(*v, 1);
}

TEST_P(StoreContract, ApplicationCrudAndUid) {
  Application in;
  in.name = "Shop";
  in.uid = "shop-1";
  in.metadata = R"({"tier":"gold"})";
  auto created = store_->create_application(in);
  ASSERT_TRUE(created.has_value());
  EXPECT_TRUE(created->id.starts_with("app_"));
  EXPECT_EQ(created->created_at, clock_.now_ms());

  auto by_uid = store_->get_application("shop-1");
  ASSERT_TRUE(by_uid.has_value());
  EXPECT_EQ(by_uid->id, created->id);
  EXPECT_EQ(by_uid->metadata, R"({"tier":"gold"})");

  auto dup = store_->create_application(in);
  ASSERT_FALSE(dup.has_value());
  EXPECT_EQ(dup.error().code, ErrorCode::kConflict);

  clock_.advance(1000);
  Application changed = *created;
  changed.name = "Shop 2";
  auto updated = store_->update_application(changed);
  ASSERT_TRUE(updated.has_value());
  EXPECT_EQ(updated->name, "Shop 2");
  EXPECT_EQ(updated->updated_at, created->created_at + 1000);

  ASSERT_TRUE(store_->delete_application(created->id).has_value());
  EXPECT_EQ(store_->get_application(created->id).error().code, ErrorCode::kNotFound);
  EXPECT_EQ(store_->delete_application(created->id).error().code, ErrorCode::kNotFound);
}

TEST_P(StoreContract, NullUidsDoNotCollide) {
  make_app("a");
  make_app("b");
  auto page = store_->list_applications(PageRequest{});
  ASSERT_TRUE(page.has_value());
  EXPECT_EQ(page->data.size(), 2u);
}

TEST_P(StoreContract, PagingWalksEveryRowOnceInBothOrders) {
  std::vector<std::string> ids;
  for (int i = 0; i < 5; ++i) ids.push_back(make_app("a" + std::to_string(i)).id);
  for (bool descending : {false, true}) {
    PageRequest req{.limit = 2, .iterator = std::nullopt, .descending = descending};
    std::vector<std::string> seen;
    int pages = 0;
    for (;;) {
      auto page = store_->list_applications(req);
      ASSERT_TRUE(page.has_value());
      ++pages;
      for (const auto& a : page->data) seen.push_back(a.id);
      if (page->done) break;
      req.iterator = page->iterator;
    }
    auto expected = ids;
    if (descending) std::reverse(expected.begin(), expected.end());
    EXPECT_EQ(seen, expected);
    EXPECT_EQ(pages, 3);
  }
}

TEST_P(StoreContract, EventTypesCrudAndArchivedFilter) {
  ASSERT_TRUE(store_->create_event_type(event_type("user.created")).has_value());
  ASSERT_TRUE(store_->create_event_type(event_type("user.deleted")).has_value());
  EXPECT_EQ(store_->create_event_type(event_type("user.created")).error().code,
            ErrorCode::kConflict);
  auto t = *store_->get_event_type("user.deleted");
  t.archived = true;
  t.description = "gone";
  ASSERT_TRUE(store_->update_event_type(t).has_value());
  EXPECT_EQ(store_->list_event_types(PageRequest{}, false)->data.size(), 1u);
  EXPECT_EQ(store_->list_event_types(PageRequest{}, true)->data.size(), 2u);
  ASSERT_TRUE(store_->delete_event_type("user.deleted").has_value());
  EXPECT_EQ(store_->get_event_type("user.deleted").error().code, ErrorCode::kNotFound);
}

TEST_P(StoreContract, EndpointRoundTripsEveryField) {
  auto app = make_app();
  auto ep = make_endpoint(app.id, [](Endpoint& e) {
    e.uid = "ep-uid";
    e.description = "orders";
    e.filter_types = std::vector<std::string>{"order.paid", "order.refunded"};
    e.channels = std::vector<std::string>{"eu"};
    e.rate_limit = 10;
    e.fifo = true;
    e.headers = {{"X-Team", "billing"}};
    e.retry_policy = R"({"schedule":[5,300]})";
    e.connect_timeout_ms = 3000;
    e.total_timeout_ms = 10000;
    e.header_naming = "svix";
  });
  EXPECT_TRUE(ep.id.starts_with("ep_"));
  auto got = store_->get_endpoint(app.id, "ep-uid");
  ASSERT_TRUE(got.has_value());
  EXPECT_EQ(got->id, ep.id);
  EXPECT_EQ(got->filter_types, ep.filter_types);
  EXPECT_EQ(got->channels, ep.channels);
  EXPECT_EQ(got->headers, ep.headers);
  EXPECT_EQ(got->retry_policy, ep.retry_policy);
  EXPECT_EQ(got->rate_limit, 10);
  EXPECT_TRUE(got->fifo);
  EXPECT_EQ(got->total_timeout_ms, 10000);
  EXPECT_EQ(got->header_naming, "svix");  // migration 9
  EXPECT_FALSE(got->channels->empty());

  Endpoint no_app = ep;
  no_app.app_id = "app_missing";
  EXPECT_EQ(store_->create_endpoint(no_app).error().code, ErrorCode::kNotFound);
  EXPECT_EQ(store_->create_endpoint(ep).error().code, ErrorCode::kConflict);  // uid taken
}

TEST_P(StoreContract, EndpointUpdateListDelete) {
  auto app = make_app();
  auto other = make_app("other");
  auto a = make_endpoint(app.id);
  auto b = make_endpoint(app.id);
  make_endpoint(other.id);
  auto page = store_->list_endpoints(app.id, PageRequest{});
  ASSERT_TRUE(page.has_value());
  ASSERT_EQ(page->data.size(), 2u);
  a.url = "https://changed.example/";
  a.filter_types.reset();
  EXPECT_EQ(a.header_naming, "both");  // the default
  a.header_naming = "webhook";
  auto updated = store_->update_endpoint(a);
  ASSERT_TRUE(updated.has_value());
  EXPECT_EQ(updated->url, "https://changed.example/");
  EXPECT_EQ(updated->header_naming, "webhook");
  EXPECT_FALSE(updated->filter_types.has_value());
  ASSERT_TRUE(store_->delete_endpoint(app.id, b.id).has_value());
  EXPECT_EQ(store_->get_endpoint(app.id, b.id).error().code, ErrorCode::kNotFound);
  EXPECT_EQ(store_->delete_endpoint(other.id, a.id).error().code, ErrorCode::kNotFound);
}

TEST_P(StoreContract, SecretRotationKeepsPreviousUntilExpiry) {
  auto app = make_app();
  auto ep = make_endpoint(app.id);
  auto rotated = store_->rotate_endpoint_secret(app.id, ep.id, "whsec_bmV3", 86'400'000);
  ASSERT_TRUE(rotated.has_value());
  EXPECT_EQ(rotated->secrets.current, "whsec_bmV3");
  EXPECT_EQ(rotated->secrets.previous, ep.secrets.current);
  EXPECT_EQ(rotated->secrets.previous_expires_at, clock_.now_ms() + 86'400'000);
}

TEST_P(StoreContract, DisableEndpointWritesAuditInSameCall) {
  auto app = make_app();
  auto ep = make_endpoint(app.id);
  AuditEntry audit = audit_entry("endpoint.disable", ep.id, "410 Gone");
  auto r = store_->set_endpoint_disabled(app.id, ep.id, true, "gone", audit);
  ASSERT_TRUE(r.has_value());
  EXPECT_TRUE(r->endpoint.disabled);
  EXPECT_EQ(r->endpoint.disabled_reason, "gone");
  auto log = store_->list_audit(audit_by_target(ep.id), PageRequest{});
  ASSERT_TRUE(log.has_value());
  ASSERT_EQ(log->data.size(), 1u);
  EXPECT_EQ(log->data[0].action, "endpoint.disable");
  EXPECT_EQ(log->data[0].at, clock_.now_ms());
  auto enabled = store_->set_endpoint_disabled(app.id, ep.id, false, std::nullopt, std::nullopt);
  ASSERT_TRUE(enabled.has_value());
  EXPECT_FALSE(enabled->endpoint.disabled);
  EXPECT_FALSE(enabled->endpoint.disabled_reason.has_value());
}

TEST_P(StoreContract, AuditAppendAndFilter) {
  for (const char* action : {"a.one", "a.two", "a.one"}) {
    auto r = store_->append_audit(audit_entry(action, "x_1"));
    ASSERT_TRUE(r.has_value());
    EXPECT_FALSE(r->id.empty());
  }
  auto ones = store_->list_audit(audit_by_action("a.one"), PageRequest{});
  ASSERT_TRUE(ones.has_value());
  EXPECT_EQ(ones->data.size(), 2u);
}

TEST_P(StoreContract, DeletingApplicationCascades) {
  auto app = make_app();
  auto ep = make_endpoint(app.id);
  auto msg = publish(app.id, "a.b").message;
  ASSERT_TRUE(store_->delete_application(app.id).has_value());
  EXPECT_EQ(store_->get_endpoint(app.id, ep.id).error().code, ErrorCode::kNotFound);
  EXPECT_TRUE(store_->list_deliveries_for_message(msg.id)->empty());
}

}  // namespace
}  // namespace hookd::store::testing

namespace hookd::store::testing {
INSTANTIATE_TEST_SUITE_P(Store, StoreContract, ::testing::ValuesIn(all_factories()), factory_name);
}  // namespace hookd::store::testing
