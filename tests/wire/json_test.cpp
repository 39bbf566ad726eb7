// message_json splices the stored payload as it is (A38), page_json of messages does the
// same for every item, and append_member adds a member to an object's text.
#include "wire/json.hpp"

#include <gtest/gtest.h>

namespace hookd::wire {
namespace {

store::Message message_with(std::string payload) {
  store::Message m;
  m.id = "msg_1";
  m.app_id = "app_1";
  m.event_type = "order.created";
  m.event_id = "evt-1";
  m.channels = std::vector<std::string>{"eu"};
  m.payload = std::move(payload);
  m.ordering_key = "order-7";
  m.sequence = 3;
  m.created_at = 1'700'000'000'000;
  return m;
}

TEST(MessageJsonTest, A38_SplicesAJsonPayloadByteForByte) {
  for (const char* payload :
       {R"({"z":1,"a":[true,null,"x"],"c":{"d":"é\n\"q\""}})", R"({"n":12.50,"b":1e3,"m":-0})",
        R"([1,2])", R"("text")", "42", "{ \"spaced\" :\n 1 }"}) {
    SCOPED_TRACE(payload);
    const auto m = message_with(payload);
    for (bool known : {false, true}) {
      const auto rendered = message_json(m, known);
      auto parsed = nlohmann::json::parse(rendered, nullptr, false);
      ASSERT_FALSE(parsed.is_discarded()) << rendered;
      EXPECT_TRUE(rendered.ends_with(",\"payload\":" + std::string(payload) + "}")) << rendered;
      EXPECT_EQ(parsed["id"], "msg_1");
      EXPECT_EQ(parsed["eventType"], "order.created");
      EXPECT_EQ(parsed["eventId"], "evt-1");
      EXPECT_EQ(parsed["channels"], nlohmann::json({"eu"}));
      EXPECT_EQ(parsed["orderingKey"], "order-7");
      EXPECT_EQ(parsed["sequence"], 3);
      EXPECT_EQ(parsed["timestamp"], "2023-11-14T22:13:20.000Z");
      EXPECT_TRUE(parsed["tags"].is_null());
    }
  }
}

TEST(MessageJsonTest, ANonJsonPayloadBecomesAString) {
  for (const char* payload : {"not json", "{\"open\":"}) {
    SCOPED_TRACE(payload);
    const auto m = message_with(payload);
    auto parsed = nlohmann::json::parse(message_json(m), nullptr, false);
    ASSERT_FALSE(parsed.is_discarded());
    EXPECT_EQ(parsed["payload"], payload);
    EXPECT_EQ(parsed["id"], "msg_1");
  }
}

// An empty payload is an expunged one (store::payload_expunged): shown as Svix shows it.
// Mutation checked: dropping the expunged branch of message_json renders "" and fails this.
TEST(MessageJsonTest, AnExpungedPayloadIsShownAsExpired) {
  auto parsed = nlohmann::json::parse(message_json(message_with("")), nullptr, false);
  ASSERT_FALSE(parsed.is_discarded());
  EXPECT_EQ(parsed["payload"], nlohmann::json({{"expired", true}}));
}

TEST(MessageJsonTest, A38_AMessagePageSplicesEveryPayload) {
  store::Page<store::Message> page;
  page.data = {message_with(R"({"b":1.0})"), message_with(R"({"a":1E+2})")};
  page.iterator = "msg_1";
  page.done = false;
  store::PageRequest request;
  request.iterator = "msg_0";
  const auto text = page_json(page, request);
  const auto parsed = nlohmann::json::parse(text, nullptr, false);
  ASSERT_FALSE(parsed.is_discarded()) << text;
  EXPECT_EQ(parsed["data"].size(), 2u);
  EXPECT_EQ(parsed["done"], false);
  EXPECT_EQ(parsed["iterator"], "msg_1");
  EXPECT_EQ(parsed["prevIterator"], "msg_0");
  EXPECT_NE(text.find(R"("payload":{"b":1.0}})"), std::string::npos) << text;
  EXPECT_NE(text.find(R"("payload":{"a":1E+2}})"), std::string::npos) << text;

  page.data.clear();
  page.iterator.reset();
  page.done = true;
  const auto empty = nlohmann::json::parse(page_json(page, store::PageRequest{}));
  EXPECT_EQ(empty, nlohmann::json::parse(
                       R"({"data":[],"done":true,"iterator":null,"prevIterator":null})"));
}

TEST(AppendMemberTest, AddsAMemberToObjectText) {
  std::string empty = "{}";
  append_member(empty, "a", "1.50");
  EXPECT_EQ(empty, R"({"a":1.50})");
  std::string some = R"({"x":true})";
  append_member(some, "q\"name", R"({"k" : [ ]})");
  EXPECT_EQ(some, R"({"x":true,"q\"name":{"k" : [ ]}})");
  std::string not_object = "[1]";
  append_member(not_object, "a", "1");
  EXPECT_EQ(not_object, "[1]");
}

}  // namespace
}  // namespace hookd::wire
