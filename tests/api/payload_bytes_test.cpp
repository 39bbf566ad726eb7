// A38: the payload a caller publishes is stored and returned byte-for-byte — the 202, GET,
// the list, the 409 of a duplicate eventId, an Idempotency-Key replay and the dead-letter
// view all carry the exact text of the request's `payload` member (key order, number forms,
// escapes, whitespace); the inbox view carries an inbound event's body as received. A payload that
// is not a JSON object is refused with a problem+json.
#include "api_fixture.hpp"
#include "support/payload_cases.hpp"

namespace hookd::api::testing {
namespace {

using hookd::testing::a38_payload_cases;
using hookd::testing::publish_body;

// The rendering of a message member holding exactly `payload`.
std::string payload_member(const std::string& payload) { return "\"payload\":" + payload; }

std::size_t occurrences(const std::string& haystack, const std::string& needle) {
  std::size_t n = 0;
  for (auto at = haystack.find(needle); at != std::string::npos; at = haystack.find(needle, at + 1))
    ++n;
  return n;
}

class PayloadBytesTest : public ApiTest {
 protected:
  Answer publish_raw(const std::string& app, const std::string& body,
                     std::vector<net::HttpHeader> headers = {}) {
    return call("POST", "/api/v1/app/" + app + "/msg", body, std::move(headers));
  }
};

TEST_F(PayloadBytesTest, A38_PublishStoresAndAnswersThePayloadBytes) {
  const auto app = make_app();
  for (const auto& c : a38_payload_cases()) {
    SCOPED_TRACE(c.name);
    const auto r = publish_raw(app, publish_body(c.text));
    ASSERT_EQ(r.status, 202) << r.body;
    ASSERT_FALSE(r.json().is_discarded()) << r.body;
    EXPECT_EQ(occurrences(r.body, payload_member(c.text)), 1u) << r.body;
    const auto stored = store_->get_message(app, r.json()["id"].get<std::string>());
    ASSERT_TRUE(stored.has_value());
    EXPECT_EQ(stored->payload, c.text);
  }
}

TEST_F(PayloadBytesTest, A38_GetAndListReturnThePayloadBytes) {
  const auto app = make_app();
  std::vector<std::string> ids;
  for (const auto& c : a38_payload_cases()) {
    const auto r = publish_raw(app, publish_body(c.text));
    ASSERT_EQ(r.status, 202) << r.body;
    ids.push_back(r.json()["id"].get<std::string>());
  }
  const auto list = call("GET", "/api/v1/app/" + app + "/msg?limit=250");
  ASSERT_EQ(list.status, 200) << list.body;
  ASSERT_FALSE(list.json().is_discarded()) << list.body;
  EXPECT_EQ(list.json()["data"].size(), ids.size());
  EXPECT_EQ(list.json()["done"], true);
  const auto cases = a38_payload_cases();
  for (std::size_t i = 0; i < cases.size(); ++i) {
    SCOPED_TRACE(cases[i].name);
    const auto got = call("GET", "/api/v1/app/" + app + "/msg/" + ids[i]);
    ASSERT_EQ(got.status, 200) << got.body;
    ASSERT_FALSE(got.json().is_discarded()) << got.body;
    EXPECT_EQ(occurrences(got.body, payload_member(cases[i].text)), 1u) << got.body;
    EXPECT_GE(occurrences(list.body, payload_member(cases[i].text)), 1u) << list.body;
  }
}

TEST_F(PayloadBytesTest, A38_IdempotentReplayCarriesThePayloadBytes) {
  const auto app = make_app();
  int n = 0;
  for (const auto& c : a38_payload_cases()) {
    SCOPED_TRACE(c.name);
    const net::HttpHeader key{"Idempotency-Key", "key-" + std::to_string(n++)};
    const auto first = publish_raw(app, publish_body(c.text), {key});
    ASSERT_EQ(first.status, 202) << first.body;
    const auto replay = publish_raw(app, publish_body(c.text), {key});
    ASSERT_EQ(replay.status, 202) << replay.body;
    EXPECT_EQ(replay.header("Idempotent-Replayed"), "true");
    EXPECT_EQ(replay.body, first.body);
    EXPECT_EQ(occurrences(replay.body, payload_member(c.text)), 1u) << replay.body;
  }
}

TEST_F(PayloadBytesTest, A38_DuplicateEventIdAnswersTheStoredPayloadBytes) {
  const auto app = make_app();
  const std::string original = a38_payload_cases().front().text;
  ASSERT_EQ(publish_raw(app, publish_body(original, ",\"eventId\":\"evt-1\"")).status, 202);
  const auto dup = publish_raw(app, publish_body(R"({"other":1})", ",\"eventId\":\"evt-1\""));
  ASSERT_EQ(dup.status, 409) << dup.body;
  EXPECT_EQ(dup.header("Content-Type"), "application/problem+json");
  ASSERT_FALSE(dup.json().is_discarded()) << dup.body;
  EXPECT_EQ(dup.json()["code"], "conflict") << dup.body;
  EXPECT_EQ(dup.json()["message"]["eventId"], "evt-1") << dup.body;
  EXPECT_EQ(occurrences(dup.body, payload_member(original)), 1u) << dup.body;
}

TEST_F(PayloadBytesTest, A38_DeadLetterViewCarriesThePayloadBytes) {
  const auto app = make_app();
  make_endpoint(app);
  const std::string payload = a38_payload_cases().front().text;
  ASSERT_EQ(publish_raw(app, publish_body(payload)).status, 202);
  ASSERT_EQ(dead_letter_all(), 1);
  const auto dead = call("GET", "/api/v1/hookd/dlq");
  ASSERT_EQ(dead.status, 200) << dead.body;
  const auto id = dead.json()["data"][0]["id"].get<std::string>();
  const auto one = call("GET", "/api/v1/hookd/dlq/" + id);
  ASSERT_EQ(one.status, 200) << one.body;
  ASSERT_FALSE(one.json().is_discarded()) << one.body;
  EXPECT_EQ(one.json()["delivery"]["id"], id);
  EXPECT_EQ(one.json()["attempts"].size(), 1u);
  EXPECT_EQ(occurrences(one.body, payload_member(payload)), 1u) << one.body;
}

TEST_F(PayloadBytesTest, A38_ThePayloadMemberIsFoundWhereverAndHoweverItIsWritten) {
  const auto app = make_app();
  const std::string p = R"({"b":1.10,"a":[ 2 ]})";
  const std::vector<std::string> bodies = {
      "{\"payload\":" + p + ",\"eventType\":\"x\"}",                                 // first
      "{\"eventType\":\"x\",\"payload\":" + p + "}",                                 // last
      "\xEF\xBB\xBF {\r\n\t\"eventType\" : \"x\" , \"payload\"\n:\t" + p + "\n}\n",  // BOM, spaces
      "{\"eventType\":\"x\",\"pay\\u006coad\":" + p + "}",                           // escaped name
      "{\"eventType\":\"x\",\"payloads\":{\"n\":1},\"payload\":" + p + ",\"xpayload\":{}}",
      "{\"eventType\":\"x\",\"tags\":[\"\\\"payload\\\":{}\"],\"payload\":" + p + "}",
      "{\"eventType\":\"x\",\"payload\":{\"first\":1},\"payload\":" + p + "}",  // last one wins
  };
  for (const auto& body : bodies) {
    SCOPED_TRACE(body);
    const auto r = publish_raw(app, body);
    ASSERT_EQ(r.status, 202) << r.body;
    const auto stored = store_->get_message(app, r.json()["id"].get<std::string>());
    ASSERT_TRUE(stored.has_value());
    EXPECT_EQ(stored->payload, p);
  }
}

TEST_F(PayloadBytesTest, A38_APayloadThatIsNotAJsonObjectIsRefusedWithAProblem) {
  const auto app = make_app();
  for (const std::string payload : {"\"text\"", "[1,2]", "12.50", "true"}) {
    SCOPED_TRACE(payload);
    const auto r = publish_raw(app, publish_body(payload));
    ASSERT_EQ(r.status, 422) << r.body;
    EXPECT_EQ(r.header("Content-Type"), "application/problem+json");
    const auto problem = r.json();
    ASSERT_EQ(problem["errors"].size(), 1u) << r.body;
    EXPECT_EQ(problem["errors"][0]["field"], "payload");
    EXPECT_TRUE(
        problem["errors"][0]["message"].get<std::string>().starts_with("must be a JSON object"))
        << r.body;
  }
  for (const std::string& body :
       {std::string(R"({"eventType":"x"})"), std::string(R"({"eventType":"x","payload":null})")}) {
    const auto r = publish_raw(app, body);
    ASSERT_EQ(r.status, 422) << r.body;
    EXPECT_EQ(r.json()["errors"][0]["field"], "payload") << r.body;
  }
  // Invalid JSON inside the payload: 400 naming the byte offset; nothing stored.
  for (const std::string payload : {R"({"a":})", R"({"a":1,})", R"({"a":01})", "{\"a\":\"\xC3\"}",
                                    R"({"a":NaN})", R"({"a" 1})", "{\"a\":1"}) {
    SCOPED_TRACE(payload);
    const auto r = publish_raw(app, publish_body(payload));
    ASSERT_EQ(r.status, 400) << r.body;
    EXPECT_EQ(r.header("Content-Type"), "application/problem+json");
    EXPECT_NE(r.json()["detail"].get<std::string>().find("Malformed JSON"), std::string::npos)
        << r.body;
  }
  EXPECT_EQ(call("GET", "/api/v1/app/" + app + "/msg").json()["data"].size(), 0u);
}

TEST_F(PayloadBytesTest, A38_TheInboxViewCarriesTheReceivedBytes) {
  int n = 0;
  auto cases = a38_payload_cases();
  cases.push_back({"not_json", "a=1&b=%C3%A9"});  // a form body: shown as a JSON string
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    store::InboxEvent e;
    e.source = "shop";
    e.event_id = "evt-" + std::to_string(n++);
    e.payload = c.text;
    const auto id = store_->inbox_insert(e).value().id;
    const auto shown = call("GET", "/api/v1/hookd/inbox/" + id);
    ASSERT_EQ(shown.status, 200) << shown.body;
    ASSERT_FALSE(shown.json().is_discarded()) << shown.body;
    EXPECT_EQ(shown.json()["eventId"], e.event_id);
    EXPECT_TRUE(shown.json()["history"].is_array()) << shown.body;
    if (c.text.starts_with("{")) {
      EXPECT_EQ(occurrences(shown.body, payload_member(c.text)), 1u) << shown.body;
    } else {
      EXPECT_EQ(shown.json()["payload"], c.text) << shown.body;
    }
  }
}

}  // namespace
}  // namespace hookd::api::testing
