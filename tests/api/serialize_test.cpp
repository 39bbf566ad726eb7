// message_json (the publish path's cheap rendering) says exactly what to_json does.
#include "api/serialize.hpp"

#include <gtest/gtest.h>

namespace hookd::api {
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

TEST(MessageJsonTest, SplicesAJsonPayloadAndMatchesToJson) {
  for (const char* payload : {R"({"a":1,"b":[true,null,"x"],"c":{"d":"é\n\"q\""}})", R"([1,2])",
                              R"("text")", "42", R"({ "spaced" : 1 })"}) {
    SCOPED_TRACE(payload);
    const auto m = message_with(payload);
    for (bool known : {false, true}) {
      const auto rendered = message_json(m, known);
      auto parsed = nlohmann::json::parse(rendered, nullptr, false);
      ASSERT_FALSE(parsed.is_discarded()) << rendered;
      EXPECT_EQ(parsed, to_json(m));
    }
  }
}

TEST(MessageJsonTest, ANonJsonPayloadBecomesAStringAsInToJson) {
  for (const char* payload : {"not json", "", "{\"open\":"}) {
    SCOPED_TRACE(payload);
    const auto m = message_with(payload);
    auto parsed = nlohmann::json::parse(message_json(m), nullptr, false);
    ASSERT_FALSE(parsed.is_discarded());
    EXPECT_EQ(parsed, to_json(m));
    EXPECT_EQ(parsed["payload"], payload);
  }
}

}  // namespace
}  // namespace hookd::api
