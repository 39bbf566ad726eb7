// [source.reconcile] (docs/reconciliation.md): absent by default, every key's default, every
// key read from the file and the environment, every validation rule with its message naming
// the key and its origin, and the dump (the feed token redacted).
#include <gtest/gtest.h>

#include "config/dump.hpp"
#include "config/loader.hpp"
#include "config_test_helpers.hpp"

namespace hookd::config {
namespace {

using testing::kWhsec;
using testing::load;
using testing::problems_of;

using namespace std::chrono_literals;

// A valid [[source]] "src" with entity_key and state, then `reconcile` as its
// [source.reconcile] (whose first key is at line 11); no table when `reconcile` is nullopt.
std::string reconciled_source(std::optional<std::string_view> reconcile) {
  std::string text =
      "[[source]]\nname = \"src\"\nscheme = \"stripe\"\nsecrets = [\"sk-1\"]\n"
      "entity_key = \"/data/id\"\nstate = \"/data/status\"\n"
      "[source.forward]\nurl = \"http://127.0.0.1:3000/in\"\nsecret = \"" +
      std::string(kWhsec) + "\"\n";
  if (reconcile) text += "[source.reconcile]\n" + std::string(*reconcile) + "\n";
  return text;
}

// A [source.reconcile] with a feed and `extra` keys (from line 12 on).
std::string with_feed(std::string_view extra = "") {
  return reconciled_source("feed_url = \"http://127.0.0.1:9100/events\"\n" + std::string(extra));
}

TEST(ConfigReconcile, AbsentByDefault) {
  const auto out = load(reconciled_source(std::nullopt));
  ASSERT_TRUE(out.problems.empty()) << format_problems(out.problems);
  ASSERT_EQ(out.config.sources.size(), 1u);
  EXPECT_FALSE(out.config.sources[0].reconcile.has_value());
  EXPECT_EQ(dump_toml(out.config).find("reconcile"), std::string::npos);
}

TEST(ConfigReconcile, Defaults) {
  const auto out = load(with_feed());
  ASSERT_TRUE(out.problems.empty()) << format_problems(out.problems);
  ASSERT_TRUE(out.config.sources[0].reconcile.has_value());
  const ReconcileConfig& r = *out.config.sources[0].reconcile;
  EXPECT_EQ(r.interval, 5min);
  EXPECT_EQ(r.feed_url, "http://127.0.0.1:9100/events");
  EXPECT_EQ(r.feed_token, "");
  EXPECT_EQ(r.items, "/data");
  EXPECT_EQ(r.item_id, "/id");
  EXPECT_EQ(r.item_body, "/payload");
  EXPECT_EQ(r.item_time, "/timestamp");
  EXPECT_EQ(r.next_cursor, "/iterator");
  EXPECT_EQ(r.done, "/done");
  EXPECT_EQ(r.cursor_param, "iterator");
  EXPECT_EQ(r.since_param, "");
  EXPECT_EQ(r.since_format, SinceFormat::kUnix);
  EXPECT_EQ(r.overlap, 10min);
  EXPECT_EQ(r.status_url, "");
  EXPECT_EQ(r.status_state, "/status");
  EXPECT_EQ(r.stuck_after, 30min);
  EXPECT_EQ(r.repair, ReconcileRepair::kAuto);
  EXPECT_EQ(r.max_pages_per_run, 10000);
  EXPECT_EQ(r.max_page_bytes, 16u * 1024 * 1024);
  EXPECT_EQ(r.page_timeout, 30s);
  EXPECT_EQ(r.status_timeout, 10s);
  EXPECT_EQ(r.max_stuck_per_run, 1000);
  EXPECT_EQ(r.lease, 60s);
}

TEST(ConfigReconcile, ReadsEveryKeyFromTheFile) {
  const auto out = load(reconciled_source(R"(interval = "0"
feed_url = "https://provider.example/v1/events?kind=contract"
feed_token = "ft-secret"
items = ""
item_id = "/event/id"
item_body = ""
item_time = ""
next_cursor = "/next"
done = ""
cursor_param = "after"
since_format = "rfc3339"
overlap = "0"
status_url = "https://provider.example/v1/contracts/{entity}"
status_state = "/contract/state"
stuck_after = "2h"
repair = "manual"
max_pages_per_run = 5
max_page_bytes = "1KiB"
page_timeout = "1s"
status_timeout = "10m"
max_stuck_per_run = 7
lease = "1h")"));
  ASSERT_TRUE(out.problems.empty()) << format_problems(out.problems);
  const ReconcileConfig& r = *out.config.sources[0].reconcile;
  EXPECT_EQ(r.interval, 0ms);
  EXPECT_EQ(r.feed_url, "https://provider.example/v1/events?kind=contract");
  EXPECT_EQ(r.feed_token, "ft-secret");
  EXPECT_EQ(r.items, "");
  EXPECT_EQ(r.item_id, "/event/id");
  EXPECT_EQ(r.item_body, "");
  EXPECT_EQ(r.item_time, "");
  EXPECT_EQ(r.next_cursor, "/next");
  EXPECT_EQ(r.done, "");
  EXPECT_EQ(r.cursor_param, "after");
  EXPECT_EQ(r.since_format, SinceFormat::kRfc3339);
  EXPECT_EQ(r.overlap, 0ms);
  EXPECT_EQ(r.status_url, "https://provider.example/v1/contracts/{entity}");
  EXPECT_EQ(r.status_state, "/contract/state");
  EXPECT_EQ(r.stuck_after, 2h);
  EXPECT_EQ(r.repair, ReconcileRepair::kManual);
  EXPECT_EQ(r.max_pages_per_run, 5);
  EXPECT_EQ(r.max_page_bytes, 1024u);
  EXPECT_EQ(r.page_timeout, 1s);
  EXPECT_EQ(r.status_timeout, 10min);
  EXPECT_EQ(r.max_stuck_per_run, 7);
  EXPECT_EQ(r.lease, 1h);
}

TEST(ConfigReconcile, StatusUrlAloneIsEnough) {
  EXPECT_EQ(problems_of(reconciled_source("status_url = \"http://127.0.0.1:9100/c/{entity}\"")),
            "");
}

TEST(ConfigReconcile, EnvironmentOverridesEveryKey) {
  const auto out =
      load(with_feed(), {
                            {"HOOKD_SOURCE_SRC_RECONCILE_INTERVAL", "1h"},
                            {"HOOKD_SOURCE_SRC_RECONCILE_FEED_URL", "http://h/f"},
                            {"HOOKD_SOURCE_SRC_RECONCILE_FEED_TOKEN", "tok"},
                            {"HOOKD_SOURCE_SRC_RECONCILE_ITEMS", "/items"},
                            {"HOOKD_SOURCE_SRC_RECONCILE_ITEM_ID", "/eid"},
                            {"HOOKD_SOURCE_SRC_RECONCILE_ITEM_BODY", "/body"},
                            {"HOOKD_SOURCE_SRC_RECONCILE_ITEM_TIME", "/at"},
                            {"HOOKD_SOURCE_SRC_RECONCILE_NEXT_CURSOR", "/c"},
                            {"HOOKD_SOURCE_SRC_RECONCILE_DONE", "/end"},
                            {"HOOKD_SOURCE_SRC_RECONCILE_CURSOR_PARAM", "c"},
                            {"HOOKD_SOURCE_SRC_RECONCILE_SINCE_PARAM", "created[gte]"},
                            {"HOOKD_SOURCE_SRC_RECONCILE_SINCE_FORMAT", "rfc3339"},
                            {"HOOKD_SOURCE_SRC_RECONCILE_OVERLAP", "1d"},
                            {"HOOKD_SOURCE_SRC_RECONCILE_STATUS_URL", "http://h/{entity}"},
                            {"HOOKD_SOURCE_SRC_RECONCILE_STATUS_STATE", "/s"},
                            {"HOOKD_SOURCE_SRC_RECONCILE_STUCK_AFTER", "1m"},
                            {"HOOKD_SOURCE_SRC_RECONCILE_REPAIR", "manual"},
                            {"HOOKD_SOURCE_SRC_RECONCILE_MAX_PAGES_PER_RUN", "3"},
                            {"HOOKD_SOURCE_SRC_RECONCILE_MAX_PAGE_BYTES", "2MiB"},
                            {"HOOKD_SOURCE_SRC_RECONCILE_PAGE_TIMEOUT", "5s"},
                            {"HOOKD_SOURCE_SRC_RECONCILE_STATUS_TIMEOUT", "6s"},
                            {"HOOKD_SOURCE_SRC_RECONCILE_MAX_STUCK_PER_RUN", "9"},
                            {"HOOKD_SOURCE_SRC_RECONCILE_LEASE", "20s"},
                        });
  ASSERT_TRUE(out.problems.empty()) << format_problems(out.problems);
  const ReconcileConfig& r = *out.config.sources[0].reconcile;
  EXPECT_EQ(r.interval, 1h);
  EXPECT_EQ(r.feed_url, "http://h/f");
  EXPECT_EQ(r.feed_token, "tok");
  EXPECT_EQ(r.items, "/items");
  EXPECT_EQ(r.item_id, "/eid");
  EXPECT_EQ(r.item_body, "/body");
  EXPECT_EQ(r.item_time, "/at");
  EXPECT_EQ(r.next_cursor, "/c");
  EXPECT_EQ(r.done, "/end");
  EXPECT_EQ(r.cursor_param, "c");
  EXPECT_EQ(r.since_param, "created[gte]");
  EXPECT_EQ(r.since_format, SinceFormat::kRfc3339);
  EXPECT_EQ(r.overlap, 24h);
  EXPECT_EQ(r.status_url, "http://h/{entity}");
  EXPECT_EQ(r.status_state, "/s");
  EXPECT_EQ(r.stuck_after, 1min);
  EXPECT_EQ(r.repair, ReconcileRepair::kManual);
  EXPECT_EQ(r.max_pages_per_run, 3);
  EXPECT_EQ(r.max_page_bytes, 2u * 1024 * 1024);
  EXPECT_EQ(r.page_timeout, 5s);
  EXPECT_EQ(r.status_timeout, 6s);
  EXPECT_EQ(r.max_stuck_per_run, 9);
  EXPECT_EQ(r.lease, 20s);
  EXPECT_EQ(out.origins.of("source[src].reconcile.feed_token"),
            "env HOOKD_SOURCE_SRC_RECONCILE_FEED_TOKEN");
}

TEST(ConfigReconcile, EnvironmentTurnsTheTableOn) {
  const auto out = load(reconciled_source(std::nullopt),
                        {{"HOOKD_SOURCE_SRC_RECONCILE_FEED_URL", "http://h/feed"}});
  ASSERT_TRUE(out.problems.empty()) << format_problems(out.problems);
  ASSERT_TRUE(out.config.sources[0].reconcile.has_value());
  EXPECT_EQ(out.config.sources[0].reconcile->feed_url, "http://h/feed");
  EXPECT_EQ(out.config.sources[0].reconcile->items, "/data");
}

TEST(ConfigReconcile, EnvironmentErrorsNameTheVariable) {
  const auto text = problems_of(with_feed(), {{"HOOKD_SOURCE_SRC_RECONCILE_REPAIR", "later"},
                                              {"HOOKD_SOURCE_SRC_RECONCILE_LEASEE", "1m"}});
  EXPECT_PROBLEM(
      text,
      "source[src].reconcile.repair (env HOOKD_SOURCE_SRC_RECONCILE_REPAIR): must be one "
      "of \"auto\" or \"manual\"");
  EXPECT_PROBLEM(text,
                 "env HOOKD_SOURCE_SRC_RECONCILE_LEASEE): unknown configuration variable; did you "
                 "mean HOOKD_SOURCE_SRC_RECONCILE_LEASE?");
  EXPECT_FALSE(
      load(reconciled_source(std::nullopt), {{"HOOKD_SOURCE_SRC_RECONCILE_REPAIR", "later"}})
          .config.sources[0]
          .reconcile.has_value());
}

TEST(ConfigReconcile, NeedsAFeedOrAStatusUrl) {
  EXPECT_PROBLEM(problems_of(reconciled_source("repair = \"manual\"")),
                 "source[src].reconcile (hookd.toml line 11): needs feed_url (a feed of the "
                 "provider's events) or status_url");
  EXPECT_PROBLEM(problems_of(reconciled_source("")),
                 "source[src].reconcile (default): needs feed_url");
}

TEST(ConfigReconcile, UnknownKeysAndWrongTypes) {
  const auto text =
      problems_of(with_feed("feed_urls = \"x\"\nmax_pages_per_run = \"5\"\n"
                            "interval = 10\nrepair = true\nmax_page_bytes = 1.5"));
  EXPECT_PROBLEM(text,
                 "source[src].reconcile.feed_urls (hookd.toml line 12): unknown key; did you mean "
                 "\"feed_url\"?");
  EXPECT_PROBLEM(text,
                 "source[src].reconcile.max_pages_per_run (hookd.toml line 13): expected an "
                 "integer, got a string");
  EXPECT_PROBLEM(text, "source[src].reconcile.interval (hookd.toml line 14): expected a duration");
  EXPECT_PROBLEM(text,
                 "source[src].reconcile.repair (hookd.toml line 15): expected a string, one "
                 "of \"auto\" or \"manual\"");
  EXPECT_PROBLEM(text,
                 "source[src].reconcile.max_page_bytes (hookd.toml line 16): expected a "
                 "byte count or a size string");
  EXPECT_PROBLEM(problems_of("[[source]]\nname = \"src\"\nreconcile = 3\n"),
                 "expected a table ([source[src].reconcile])");
}

TEST(ConfigReconcile, Urls) {
  EXPECT_PROBLEM(problems_of(reconciled_source("feed_url = \"ftp://h/feed\"")),
                 "source[src].reconcile.feed_url (hookd.toml line 11): URL \"ftp://h/feed\" must "
                 "start with http:// or https://");
  const auto user_info = problems_of(reconciled_source("feed_url = \"http://u:pw-9@h/feed\""));
  EXPECT_PROBLEM(
      user_info,
      "source[src].reconcile.feed_url (hookd.toml line 11): URL must not hold user info");
  EXPECT_EQ(user_info.find("pw-9"), std::string::npos) << user_info;
  EXPECT_PROBLEM(
      problems_of(reconciled_source("status_url = \"file:///x/{entity}\"")),
      "source[src].reconcile.status_url (hookd.toml line 11): URL \"file:///x/{entity}\" "
      "must start with http:// or https://");
  EXPECT_PROBLEM(
      problems_of(reconciled_source("status_url = \"http://h/contracts\"")),
      "source[src].reconcile.status_url (hookd.toml line 11): URL \"http://h/contracts\" "
      "must contain {entity} in its path or query (it is replaced by the URL-encoded "
      "entity), e.g. \"http://provider/contracts/{entity}\"");
  EXPECT_PROBLEM(problems_of(reconciled_source("status_url = \"http://{entity}/c\"")),
                 "must contain {entity} in its path or query");
  EXPECT_EQ(problems_of(reconciled_source("status_url = \"http://h/c?id={entity}\"")), "");
}

TEST(ConfigReconcile, StatusUrlNeedsEntityKeyAndState) {
  const std::string toml =
      "[[source]]\nname = \"src\"\nscheme = \"stripe\"\nsecrets = [\"sk-1\"]\n"
      "[source.forward]\nurl = \"http://127.0.0.1:3000/in\"\nsecret = \"" +
      std::string(kWhsec) + "\"\n[source.reconcile]\nstatus_url = \"http://h/c/{entity}\"\n";
  const auto text = problems_of(toml);
  EXPECT_PROBLEM(text,
                 "source[src].reconcile.status_url (hookd.toml line 9): needs "
                 "source[src].entity_key: stuck entities are found by their key and state");
  EXPECT_PROBLEM(text,
                 "source[src].reconcile.status_url (hookd.toml line 9): needs "
                 "source[src].state");
}

TEST(ConfigReconcile, Pointers) {
  for (const char* key :
       {"items", "item_id", "item_body", "item_time", "next_cursor", "done", "status_state"}) {
    const auto text = problems_of(with_feed(std::string(key) + " = \"data\""));
    EXPECT_PROBLEM(text, "source[src].reconcile." + std::string(key) +
                             " (hookd.toml line 12): JSON pointer \"data\" must start with \"/\"");
  }
  EXPECT_PROBLEM(problems_of(with_feed("item_id = \"/a~2\"")),
                 "source[src].reconcile.item_id (hookd.toml line 12): JSON pointer \"/a~2\": \"~\" "
                 "must be followed by 0");
  EXPECT_PROBLEM(problems_of(with_feed("item_id = \"\"")),
                 "source[src].reconcile.item_id (hookd.toml line 12): is required with feed_url");
  EXPECT_PROBLEM(
      problems_of(reconciled_source("status_url = \"http://h/{entity}\"\nstatus_state = \"\"")),
      "source[src].reconcile.status_state (hookd.toml line 12): is required with status_url");
  // Not used without a status_url / a feed: "" is fine.
  EXPECT_EQ(problems_of(with_feed("status_state = \"\"")), "");
  EXPECT_EQ(problems_of(reconciled_source("status_url = \"http://h/{entity}\"\nitem_id = \"\"")),
            "");
}

TEST(ConfigReconcile, CursorParam) {
  EXPECT_PROBLEM(problems_of(with_feed("cursor_param = \"a&b\"")),
                 "source[src].reconcile.cursor_param (hookd.toml line 12): must be a query "
                 "parameter name (letters, digits, -._~), got \"a&b\"");
  EXPECT_PROBLEM(problems_of(with_feed("cursor_param = \"\"")),
                 "source[src].reconcile.cursor_param");
  EXPECT_EQ(problems_of(with_feed("cursor_param = \"\"\nnext_cursor = \"\"")), "");
}

TEST(ConfigReconcile, SinceParam) {
  EXPECT_EQ(problems_of(with_feed("since_param = \"created[gte]\"\nsince_format = \"unix\"")), "");
  EXPECT_PROBLEM(problems_of(with_feed("since_param = \"from date\"")),
                 "source[src].reconcile.since_param (hookd.toml line 12): must be a query "
                 "parameter name (letters, digits, -._~[]), got \"from date\"");
  EXPECT_PROBLEM(problems_of(with_feed("since_param = \"since\"\nitem_time = \"\"")),
                 "source[src].reconcile.since_param (hookd.toml line 12): needs item_time: the "
                 "watermark it starts from is the newest item_time read");
  EXPECT_PROBLEM(
      problems_of(reconciled_source("status_url = \"http://h/{entity}\"\nsince_param = \"s\"")),
      "source[src].reconcile.since_param (hookd.toml line 12): is set but feed_url is empty");
  EXPECT_PROBLEM(problems_of(with_feed("since_format = \"iso\"")),
                 "source[src].reconcile.since_format (hookd.toml line 12): must be one of "
                 "\"unix\" or \"rfc3339\"");
}

TEST(ConfigReconcile, FeedToken) {
  const auto spaced = problems_of(with_feed("feed_token = \"tok en-42\""));
  EXPECT_PROBLEM(spaced,
                 "source[src].reconcile.feed_token (hookd.toml line 12): contains "
                 "whitespace (the value is not shown)");
  EXPECT_EQ(spaced.find("en-42"), std::string::npos) << spaced;
  EXPECT_PROBLEM(
      problems_of(reconciled_source("status_url = \"http://h/{entity}\"\nfeed_token = \"t\"")),
      "source[src].reconcile.feed_token (hookd.toml line 12): is set but feed_url is "
      "empty");
}

TEST(ConfigReconcile, Repair) {
  EXPECT_PROBLEM(problems_of(with_feed("repair = \"sometimes\"")),
                 "source[src].reconcile.repair (hookd.toml line 12): must be one of \"auto\" or "
                 "\"manual\"");
}

struct RangeCase {
  const char* key;
  const char* value;
  const char* message;
};

TEST(ConfigReconcile, Ranges) {
  const RangeCase cases[] = {
      {"interval", "\"9s\"", "must be between \"10s\" and \"7d\", got \"9s\""},
      {"interval", "\"8d\"", "must be between \"10s\" and \"7d\", got \"8d\""},
      {"overlap", "\"31d\"", "must be between \"0\" and \"30d\", got \"31d\""},
      {"stuck_after", "\"999ms\"", "must be between \"1s\" and \"365d\", got \"999ms\""},
      {"stuck_after", "\"366d\"", "must be between \"1s\" and \"365d\", got \"366d\""},
      {"max_pages_per_run", "0", "must be between 1 and 1000000, got 0"},
      {"max_pages_per_run", "1000001", "must be between 1 and 1000000, got 1000001"},
      {"max_page_bytes", "1023", "must be between \"1KiB\" and \"256MiB\", got \"1023\""},
      {"max_page_bytes", "\"257MiB\"", "must be between \"1KiB\" and \"256MiB\", got \"257MiB\""},
      {"page_timeout", "\"999ms\"", "must be between \"1s\" and \"10m\", got \"999ms\""},
      {"page_timeout", "\"11m\"", "must be between \"1s\" and \"10m\", got \"11m\""},
      {"status_timeout", "\"0\"", "must be between \"1s\" and \"10m\", got \"0\""},
      {"status_timeout", "\"11m\"", "must be between \"1s\" and \"10m\", got \"11m\""},
      {"max_stuck_per_run", "0", "must be between 1 and 100000, got 0"},
      {"max_stuck_per_run", "100001", "must be between 1 and 100000, got 100001"},
      {"lease", "\"9s\"", "must be between \"10s\" and \"1h\", got \"9s\""},
      {"lease", "\"2h\"", "must be between \"10s\" and \"1h\", got \"2h\""},
  };
  for (const auto& c : cases) {
    const auto text = problems_of(with_feed(std::string(c.key) + " = " + c.value));
    EXPECT_PROBLEM(text, "source[src].reconcile." + std::string(c.key) +
                             " (hookd.toml line 12): " + c.message);
  }
  // The longest overlap is valid, but the default inbox retention (30d) is then too short to
  // keep what the reconciler re-reads: the retention rule names the default it refuses.
  const std::string longest = "interval = \"0\"\noverlap = \"30d\"\nstuck_after = \"1m\"";
  EXPECT_PROBLEM(problems_of(with_feed(longest)),
                 "retention.inbox (default): must be longer than the reconcile overlap of source "
                 "\"src\" plus a day (\"30d\" + 1d), or 0");
  EXPECT_EQ(problems_of(with_feed(longest + "\n[retention]\ninbox = \"32d\"")), "");
}

TEST(ConfigReconcile, LeaseOutlastsAPage) {
  EXPECT_PROBLEM(problems_of(with_feed("lease = \"30s\"")),
                 "source[src].reconcile.lease (hookd.toml line 12): must be longer than "
                 "source[src].reconcile.page_timeout (the lease is renewed after each page), got "
                 "\"30s\" <= \"30s\"");
}

TEST(ConfigReconcile, DumpMasksTheFeedTokenAndLoadsAgain) {
  const auto out = load(with_feed("feed_token = \"ft-very-secret\"\nrepair = \"manual\""));
  ASSERT_TRUE(out.problems.empty()) << format_problems(out.problems);
  const std::string redacted = dump_toml(out.config);
  EXPECT_EQ(redacted.find("ft-very-secret"), std::string::npos) << redacted;
  EXPECT_NE(redacted.find("feed_token = '<redacted>'"), std::string::npos) << redacted;
  EXPECT_NE(redacted.find("[source.reconcile]"), std::string::npos) << redacted;
  EXPECT_NE(redacted.find("repair = 'manual'"), std::string::npos) << redacted;
  const std::string shown = dump_toml(out.config, Secrets::kShow);
  EXPECT_NE(shown.find("feed_token = 'ft-very-secret'"), std::string::npos) << shown;
  const auto again = load(shown);
  ASSERT_TRUE(again.problems.empty()) << format_problems(again.problems);
  EXPECT_EQ(dump_toml(again.config, Secrets::kShow), shown);
  // No token: nothing to hide, "" stays "".
  EXPECT_NE(dump_toml(load(with_feed()).config).find("feed_token = ''"), std::string::npos);
}

}  // namespace
}  // namespace hookd::config
