#include <gtest/gtest.h>

#include "hookd/retry.hpp"

namespace hookd {
namespace {

struct StatusCase {
  int status;
  StatusAction expected;
};

// SPEC §3 delivery policy; A01 (5xx retried), A03 (4xx dead-lettered, 401/403 alert).
TEST(StatusClassTest, DefaultClassificationOfEveryInterestingStatus) {
  const StatusCase cases[] = {
      {200, StatusAction::kSuccess},
      {201, StatusAction::kSuccess},
      {202, StatusAction::kSuccess},
      {204, StatusAction::kSuccess},
      {299, StatusAction::kSuccess},
      {100, StatusAction::kRetry},
      {101, StatusAction::kRetry},
      {300, StatusAction::kRetry},
      {301, StatusAction::kRetry},
      {302, StatusAction::kRetry},
      {304, StatusAction::kRetry},
      {307, StatusAction::kRetry},
      {308, StatusAction::kRetry},
      {400, StatusAction::kDeadLetter},
      {401, StatusAction::kDeadLetterAlert},
      {402, StatusAction::kDeadLetter},
      {403, StatusAction::kDeadLetterAlert},
      {404, StatusAction::kDeadLetter},
      {405, StatusAction::kDeadLetter},
      {408, StatusAction::kRetry},
      {409, StatusAction::kDeadLetter},
      {410, StatusAction::kDisableEndpoint},
      {413, StatusAction::kDeadLetter},
      {415, StatusAction::kDeadLetter},
      {422, StatusAction::kDeadLetter},
      {429, StatusAction::kRetry},
      {451, StatusAction::kDeadLetter},
      {499, StatusAction::kDeadLetter},
      {500, StatusAction::kRetry},
      {501, StatusAction::kRetry},
      {502, StatusAction::kRetry},
      {503, StatusAction::kRetry},
      {504, StatusAction::kRetry},
      {599, StatusAction::kRetry},
      {0, StatusAction::kRetry},
      {99, StatusAction::kRetry},
      {600, StatusAction::kRetry},
      {999, StatusAction::kRetry},
  };
  for (const auto& c : cases) {
    EXPECT_EQ(default_status_action(c.status), c.expected) << c.status;
    EXPECT_EQ(classify_status(c.status, {}), c.expected) << c.status;
  }
}

TEST(StatusClassTest, ExactOverrideWinsOverClassOverrideWinsOverDefault) {
  StatusOverrides overrides;
  ASSERT_TRUE(overrides.add("4xx", "retry").has_value());
  ASSERT_TRUE(overrides.add("404", "dead_letter_alert").has_value());
  ASSERT_TRUE(overrides.add("3XX", "dead_letter").has_value());
  ASSERT_TRUE(overrides.add("503", "disable_endpoint").has_value());
  EXPECT_EQ(classify_status(400, overrides), StatusAction::kRetry);
  EXPECT_EQ(classify_status(410, overrides), StatusAction::kRetry);
  EXPECT_EQ(classify_status(404, overrides), StatusAction::kDeadLetterAlert);
  EXPECT_EQ(classify_status(302, overrides), StatusAction::kDeadLetter);
  EXPECT_EQ(classify_status(503, overrides), StatusAction::kDisableEndpoint);
  EXPECT_EQ(classify_status(500, overrides), StatusAction::kRetry);
  EXPECT_EQ(classify_status(200, overrides), StatusAction::kSuccess);
}

TEST(StatusClassTest, RejectsBadOverrideText) {
  StatusOverrides overrides;
  for (auto selector : {"", "4x", "6xx", "0xx", "4xxx", "x4x", "99", "600", "40a", " 404", "-1"}) {
    EXPECT_FALSE(overrides.add(selector, "retry").has_value()) << selector;
  }
  EXPECT_FALSE(overrides.add("404", "Retry").has_value());
  EXPECT_FALSE(overrides.add("404", "ignore").has_value());
  EXPECT_TRUE(overrides.empty());
}

TEST(StatusClassTest, ActionNamesRoundTrip) {
  for (auto action : {StatusAction::kSuccess, StatusAction::kRetry, StatusAction::kDeadLetter,
                      StatusAction::kDeadLetterAlert, StatusAction::kDisableEndpoint}) {
    EXPECT_EQ(parse_status_action(to_string(action)), action);
  }
}

}  // namespace
}  // namespace hookd
