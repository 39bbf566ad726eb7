// The inbound gateway's pure parts: business-key templates, event-id and field extraction,
// request verification per scheme, the ordering decision.
#include <gtest/gtest.h>

#include "inbound/business_key.hpp"
#include "inbound/event_fields.hpp"
#include "inbound/inbound_fixtures.hpp"
#include "inbound/ordering.hpp"
#include "inbound/verification.hpp"

namespace hookd::inbound {
namespace {

using namespace testing;

TEST(BusinessKey, RendersPlaceholdersAndFallsBackWhenAValueIsMissing) {  // A11
  auto t = BusinessKeyTemplate::parse("delivery:{/data/order_id}:{/data/n}");
  ASSERT_TRUE(t);
  const auto doc = nlohmann::json::parse(R"({"data":{"order_id":"o-1","n":7}})");
  EXPECT_EQ(t->render(doc), "delivery:o-1:7");
  EXPECT_FALSE(t->render(nlohmann::json::parse(R"({"data":{"order_id":"o-1"}})")));
  EXPECT_FALSE(t->render(nlohmann::json::parse(R"({"data":{"order_id":{},"n":1}})")));
  EXPECT_FALSE(BusinessKeyTemplate::parse("x:{/a"));
  EXPECT_FALSE(BusinessKeyTemplate::parse("x:{a}"));
}

TEST(BusinessKey, JsonPointerEscapesAndArrays) {
  const auto doc = nlohmann::json::parse(R"({"a/b":{"m~n":[10,20]}})");
  ASSERT_NE(at_pointer(doc, "/a~1b/m~0n/1"), nullptr);
  EXPECT_EQ(*at_pointer(doc, "/a~1b/m~0n/1"), 20);
  EXPECT_EQ(at_pointer(doc, "/a~1b/m~0n/2"), nullptr);
  EXPECT_EQ(at_pointer(doc, "/a~1b/m~0n/01"), nullptr);
  EXPECT_EQ(at_pointer(doc, "/a~2b"), nullptr);
}

TEST(EventFields, StandardIdFromHeaderAndFieldsFromTheBody) {
  auto c = source_config();
  c.entity_key = "/data/contract_id";
  c.sequence = "/data/version";
  c.depends_on = "/after";
  c.state = "/data/status";
  c.business_key = "contract:{/data/contract_id}";
  const auto s = make_source(c);
  const std::string body =
      R"({"after":["a","b"],"data":{"contract_id":42,"version":"7","status":"sent"}})";
  auto f = extract_fields(s, signed_headers("evt_1", body), body, 64);
  ASSERT_TRUE(f) << f.error().message;
  EXPECT_EQ(f->event_id, "evt_1");
  EXPECT_EQ(f->entity_key, "42");
  EXPECT_EQ(f->sequence, 7);
  EXPECT_EQ(f->state, "sent");
  EXPECT_EQ(f->depends_on, (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ(f->business_key, "contract:42");
  EXPECT_EQ(f->event_time_ms, kNow * 1000);
}

TEST(EventFields, SvixHeadersPointerIdsAndErrors) {
  const auto standard = make_source(source_config());
  net::HttpHeaders svix;
  svix.add("svix-id", "msg_9");
  EXPECT_EQ(extract_fields(standard, svix, "{}", 64)->event_id, "msg_9");
  EXPECT_FALSE(extract_fields(standard, net::HttpHeaders{}, "{}", 64));

  auto c = source_config(config::Scheme::kNone);
  c.event_id = "/id";
  const auto none = make_source(c);
  EXPECT_EQ(extract_fields(none, {}, R"({"id":"x-1"})", 64)->event_id, "x-1");
  EXPECT_FALSE(extract_fields(none, {}, "not json", 64));
  EXPECT_FALSE(extract_fields(none, {}, R"({"id":"bad\r\nid"})", 64));
  EXPECT_FALSE(extract_fields(none, {}, R"({"id":"deep","x":[[[[1]]]]})", 3));
  EXPECT_TRUE(extract_fields(none, {}, R"({"id":"deep","x":"[[[["})", 3));
}

TEST(EventFields, CloudEventsIdentityIsSourcePlusIdInBothModes) {
  const auto s = make_source(source_config(config::Scheme::kCloudEvents));
  net::HttpHeaders binary;
  binary.add("ce-id", "1");
  binary.add("ce-source", "/orders");
  binary.add("ce-type", "order.paid");
  EXPECT_EQ(extract_fields(s, binary, "{}", 64)->event_id, "/orders|1");
  net::HttpHeaders structured;
  structured.add("Content-Type", "application/cloudevents+json; charset=utf-8");
  const std::string envelope =
      R"({"specversion":"1.0","id":"1","source":"/orders","type":"t","data":{}})";
  EXPECT_EQ(extract_fields(s, structured, envelope, 64)->event_id, "/orders|1");
  EXPECT_FALSE(extract_fields(s, structured, R"({"id":"1"})", 64));
}

TEST(Verification, StandardSchemeReasonsAndRotation) {  // A16, A18
  auto c = source_config();
  const std::string old_secret = "whsec_" + std::string(32, 'A');
  c.secrets = {kSecret, old_secret};
  const auto s = make_source(c);
  const std::string body = R"({"a":1})";
  EXPECT_TRUE(verify_request(s, signed_headers("e", body), body, kNow));
  EXPECT_TRUE(verify_request(s, signed_headers("e", body, kNow, old_secret), body, kNow));
  EXPECT_EQ(verify_request(s, signed_headers("e", body), R"({"a":2})", kNow).error().reason,
            "no_matching_signature");
  EXPECT_EQ(verify_request(s, signed_headers("e", body, kNow - 301), body, kNow).error().reason,
            "timestamp_too_old");
  EXPECT_EQ(verify_request(s, signed_headers("e", body, kNow + 301), body, kNow).error().reason,
            "timestamp_too_new");
  EXPECT_EQ(verify_request(s, net::HttpHeaders{}, body, kNow).error().reason, "missing_header");
}

TEST(Verification, SharedTokenIsComparedWholeAndNoneAcceptsAll) {
  auto c = source_config(config::Scheme::kToken);
  c.secrets = {"tok-1", "tok-2"};
  c.event_id = "X-Id";
  const auto s = make_source(c);
  net::HttpHeaders good;
  good.add("Authorization", "Bearer tok-2");
  EXPECT_TRUE(verify_request(s, good, "", kNow));
  net::HttpHeaders prefix_only;
  prefix_only.add("Authorization", "Bearer tok-");
  EXPECT_EQ(verify_request(s, prefix_only, "", kNow).error().reason, "bad_token");
  net::HttpHeaders no_prefix;
  no_prefix.add("Authorization", "tok-1");
  EXPECT_EQ(verify_request(s, no_prefix, "", kNow).error().reason, "bad_format");
  EXPECT_EQ(verify_request(s, {}, "", kNow).error().reason, "missing_header");

  auto n = source_config(config::Scheme::kNone);
  n.event_id = "/id";
  EXPECT_TRUE(verify_request(make_source(n), {}, "anything", kNow));
}

TEST(Verification, SeedsHmacHexTsWithConfiguredHeaders) {
  auto c = source_config(config::Scheme::kHmacHexTs);
  c.secrets = {"seed-secret"};
  c.event_id = "/event_id";
  c.hmac_hex_ts.signature_header = "X-Esign-Signature";
  c.hmac_hex_ts.timestamp_header = "X-Esign-Timestamp";
  const auto s = make_source(c);
  SchemeOptions o;
  o.kind = SchemeKind::kHmacHexTs;
  o.hmac_hex_ts = {"X-Esign-Signature", "X-Esign-Timestamp"};
  auto signer = Signer::create(o, std::vector<std::string>{"seed-secret"});
  const std::string body = R"({"event_id":"e1"})";
  net::HttpHeaders h;
  for (auto& x : signer->sign({"", kNow, body})) h.add(x.name, x.value);
  EXPECT_TRUE(verify_request(s, h, body, kNow));
  EXPECT_FALSE(verify_request(s, h, body + " ", kNow));
}

DecisionInput input(std::optional<std::int64_t> seq, std::optional<std::string> state,
                    std::optional<store::InboxEntity> entity = std::nullopt) {
  DecisionInput in;
  in.sequence = seq;
  in.state = std::move(state);
  in.entity = std::move(entity);
  return in;
}

store::InboxEntity entity(std::optional<std::int64_t> last, std::string state, bool terminal) {
  store::InboxEntity e;
  e.source = "shop";
  e.entity_key = "c-1";
  e.last_sequence = last;
  e.state = std::move(state);
  e.terminal = terminal;
  return e;
}

TEST(Ordering, DecisionsInTheirOrder) {  // A19, A20, A21, A11
  auto c = source_config();
  c.terminal_states = {"signed", "voided"};
  c.business_key = "k:{/id}";
  c.business_key_guard = true;
  const auto s = make_source(c);
  EXPECT_EQ(decide(s, input(1, "sent")).decision, Decision::kForward);
  auto parked = input(1, "sent");
  parked.dependencies_settled = false;
  EXPECT_EQ(decide(s, parked).decision, Decision::kPark);
  EXPECT_EQ(decide(s, input(2, "viewed", entity(3, "signed", true))).decision,
            Decision::kSuperseded);
  EXPECT_EQ(decide(s, input(9, "viewed", entity(3, "signed", true))).decision,
            Decision::kSuperseded);  // terminal is final
  EXPECT_EQ(decide(s, input(3, "sent", entity(3, "sent", false))).decision, Decision::kStale);
  EXPECT_EQ(decide(s, input(2, "sent", entity(3, "sent", false))).decision, Decision::kStale);
  EXPECT_EQ(decide(s, input(4, "sent", entity(3, "sent", false))).decision, Decision::kForward);
  EXPECT_EQ(decide(s, input(std::nullopt, "sent", entity(3, "sent", false))).decision,
            Decision::kForward);
  auto dup = input(4, "sent");
  dup.business_key_already_forwarded = true;
  EXPECT_EQ(decide(s, dup).decision, Decision::kDuplicateBusinessKey);
}

TEST(Ordering, EntityAfterForwardKeepsTheHighestSequenceAndTheTerminalFlag) {
  auto c = source_config();
  c.terminal_states = {"signed"};
  const auto s = make_source(c);
  auto e = entity_after_forward(s, "c-1", input(5, "signed", entity(3, "sent", false)));
  EXPECT_EQ(e.last_sequence, 5);
  EXPECT_EQ(e.state, "signed");
  EXPECT_TRUE(e.terminal);
  auto first = entity_after_forward(s, "c-2", input(std::nullopt, std::nullopt));
  EXPECT_EQ(first.entity_key, "c-2");
  EXPECT_FALSE(first.last_sequence);
}

}  // namespace
}  // namespace hookd::inbound
