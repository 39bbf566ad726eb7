// The flags of `hookd dlq` and the ones every audited CLI action shares: a missing, empty,
// blank or over-long --reason (and a blank --actor) is a parse error — exit 2 from the
// binary — for `dlq replay`, `dlq discard` and `inbox replay`; list times and limits.
#include <gtest/gtest.h>

#include <CLI/CLI.hpp>
#include <string>
#include <vector>

#include "cli/dlq_command.hpp"
#include "cli/inbox_command.hpp"

namespace hookd::cli {
namespace {

// Parses `words` (after "hookd") with the dlq and inbox subcommands; true when CLI11 accepts.
bool parses(const std::vector<std::string>& words) {
  CLI::App app;
  DlqArgs dlq;
  InboxArgs inbox;
  add_dlq_command(app, dlq);
  add_inbox_command(app, inbox);
  std::vector<std::string> reversed(words.rbegin(), words.rend());  // CLI11 pops from the back
  try {
    app.parse(reversed);
  } catch (const CLI::ParseError&) {
    return false;
  }
  return true;
}

TEST(DlqFlags, AMissingEmptyOrBlankReasonIsAUsageErrorForEveryAuditedAction) {
  for (const std::vector<std::string>& command :
       {std::vector<std::string>{"dlq", "replay", "del_1"},
        {"dlq", "discard", "del_1"},
        {"inbox", "replay", "inb_1"}}) {
    auto with = [&](std::vector<std::string> extra) {
      auto words = command;
      words.insert(words.end(), extra.begin(), extra.end());
      return words;
    };
    EXPECT_TRUE(parses(with({"--reason", "receiver fixed"}))) << command[0] << ' ' << command[1];
    EXPECT_FALSE(parses(with({}))) << command[0] << ' ' << command[1];
    EXPECT_FALSE(parses(with({"--reason", ""}))) << command[0] << ' ' << command[1];
    EXPECT_FALSE(parses(with({"--reason", " \t\n"}))) << command[0] << ' ' << command[1];
    EXPECT_FALSE(parses(with({"--reason", std::string(1025, 'x')}))) << command[0];
    EXPECT_TRUE(parses(with({"--reason", std::string(1024, 'x')}))) << command[0];
    EXPECT_FALSE(parses(with({"--reason", "ok", "--actor", " "}))) << command[0];
  }
}

TEST(DlqFlags, ReplayAndDiscardNeedAtLeastOneId) {
  EXPECT_FALSE(parses({"dlq", "replay", "--reason", "r"}));
  EXPECT_FALSE(parses({"dlq", "discard", "--reason", "r"}));
  EXPECT_TRUE(parses({"dlq", "discard", "del_1", "del_2", "--reason", "r"}));
  EXPECT_FALSE(parses({"dlq"}));  // a subcommand is required
}

TEST(DlqFlags, ListTimesAreRfc3339OrUnixMillisAndLimitIsBounded) {
  EXPECT_TRUE(
      parses({"dlq", "list", "--since", "2024-01-01T00:00:00Z", "--until", "1700000000000"}));
  EXPECT_TRUE(parses({"dlq", "list", "--since", "2024-01-01T02:00:00.5+02:00"}));
  EXPECT_FALSE(parses({"dlq", "list", "--since", "yesterday"}));
  EXPECT_FALSE(parses({"dlq", "list", "--until", "-5"}));
  EXPECT_FALSE(parses({"dlq", "list", "--limit", "0"}));
  EXPECT_FALSE(parses({"dlq", "list", "--limit", "251"}));
  EXPECT_EQ(parse_time_flag("1700000000123"), 1'700'000'000'123);
  EXPECT_EQ(parse_time_flag("2024-01-01T00:00:00Z"), 1'704'067'200'000);
  EXPECT_EQ(parse_time_flag("2024-01-01T02:00:00+02:00"), 1'704'067'200'000);
  EXPECT_EQ(parse_time_flag(""), std::nullopt);
  EXPECT_EQ(parse_time_flag("99999999999999999999999"), std::nullopt);  // overflows
}

}  // namespace
}  // namespace hookd::cli
