// [retention]: defaults, "0" = kept forever, every limit refused with a clear message, the
// reconcile overlap rule, and the translation into the purger's options (app/module_options).
#include <gtest/gtest.h>

#include "app/module_options.hpp"
#include "config/environment.hpp"
#include "config/loader.hpp"

namespace hookd::config {
namespace {

using namespace std::chrono_literals;

LoadOutcome load(std::string_view toml,
                 std::initializer_list<std::pair<const std::string, std::string>> env = {}) {
  const MapEnvironment environment(env);
  return load_config_detailed(toml, "hookd.toml", environment, {});
}

std::string problems_of(std::string_view toml) {
  const auto outcome = load(toml);
  return outcome.problems.empty() ? "" : format_problems(outcome.problems);
}

#define EXPECT_PROBLEM(text, part) EXPECT_NE((text).find(part), std::string::npos) << (text)

TEST(RetentionConfig, DefaultsAreTheIssuesPeriods) {
  const RetentionConfig r;
  EXPECT_EQ(r.delivered, std::chrono::days(30));
  EXPECT_EQ(r.dead, std::chrono::days(90));
  EXPECT_EQ(r.inbox, std::chrono::days(30));
  EXPECT_EQ(r.audit, std::chrono::days(365));
  EXPECT_TRUE(r.expired_keys);
  EXPECT_EQ(r.interval, 10min);
  EXPECT_EQ(r.batch_size, 500);
  EXPECT_EQ(r.pause, 20ms);
  const auto o = app::purger_options(Config{});
  EXPECT_EQ(o.policy.delivered, 30 * 86'400'000LL);
  EXPECT_EQ(o.policy.audit, 365 * 86'400'000LL);
  EXPECT_EQ(o.reconcile_margin, 86'400'000);  // no reconciled source: a day
}

TEST(RetentionConfig, ZeroKeepsAKindForeverAndEnvironmentOverrides) {
  const auto outcome = load("[retention]\naudit = \"0\"\ndead = \"0\"\n",
                            {{"HOOKD_RETENTION_INBOX", "7d"}, {"HOOKD_RETENTION_PAUSE", "0"}});
  ASSERT_TRUE(outcome.problems.empty()) << format_problems(outcome.problems);
  const auto o = app::purger_options(outcome.config);
  EXPECT_FALSE(o.policy.audit.has_value());
  EXPECT_FALSE(o.policy.dead.has_value());
  EXPECT_EQ(o.policy.inbox, 7 * 86'400'000LL);
  EXPECT_EQ(o.pause, 0ms);
}

TEST(RetentionConfig, LimitsAreRefusedWithTheKeyAndTheRange) {
  EXPECT_PROBLEM(problems_of("[retention]\ndelivered = \"1h\"\n"),
                 "retention.delivered (hookd.toml line 2): must be between \"1d\" and \"36500d\"");
  EXPECT_PROBLEM(problems_of("[retention]\ndead = \"10d\"\n"),
                 "retention.dead (hookd.toml line 2): must be at least retention.delivered");
  EXPECT_PROBLEM(problems_of("[retention]\ninterval = \"100ms\"\n"), "retention.interval");
  EXPECT_PROBLEM(problems_of("[retention]\nbatch_size = 0\n"), "retention.batch_size");
  EXPECT_PROBLEM(problems_of("[retention]\npause = \"1m\"\n"), "retention.pause");
  EXPECT_PROBLEM(problems_of("[retention]\nkeep = \"1d\"\n"), "retention.keep");
  EXPECT_EQ(problems_of("[retention]\ninterval = \"0\"\ndelivered = \"0\"\ndead = \"1d\"\n"), "");
}

TEST(RetentionConfig, TheInboxOutlivesEveryReconcileOverlap) {
  const std::string source = R"([[source]]
name = "esign"
scheme = "none"
event_id = "/id"
[source.forward]
url = "http://127.0.0.1:3000/in"
secret = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"
[source.reconcile]
feed_url = "http://127.0.0.1:9000/feed"
items = "/items"
item_id = "/id"
overlap = "3d"
)";
  const auto ok = load(source + "[retention]\ninbox = \"5d\"\ndead = \"5d\"\ndelivered = \"1d\"\n");
  ASSERT_TRUE(ok.problems.empty()) << format_problems(ok.problems);
  EXPECT_EQ(app::purger_options(ok.config).reconcile_margin, 4 * 86'400'000LL);
  const auto text = problems_of(source + "[retention]\ninbox = \"4d\"\n");
  EXPECT_PROBLEM(text, "retention.inbox (hookd.toml line");
  EXPECT_PROBLEM(text, "reconcile overlap of source \"esign\"");
}

}  // namespace
}  // namespace hookd::config
