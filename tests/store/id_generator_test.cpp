// RandomIdGenerator: prefixed, parseable, time-sortable, unique.
#include "store/id_generator.hpp"

#include <set>

#include "hookd/ids.hpp"
#include "store/store_contract.hpp"

namespace hookd::store::testing {
namespace {

TEST(RandomIdGeneratorTest, IdsCarryPrefixAndClockTimeAndSortByTime) {
  FakeClock clock(1'700'000'000'000);
  RandomIdGenerator ids(clock);
  std::vector<std::string> made;
  std::set<std::string> unique;
  for (int i = 0; i < 50; ++i) {
    made.push_back(ids.next("msg"));
    unique.insert(made.back());
    clock.advance(1);
  }
  EXPECT_EQ(unique.size(), made.size());
  EXPECT_TRUE(std::is_sorted(made.begin(), made.end()));
  auto parsed = parse_id(made.front(), "msg");
  ASSERT_TRUE(parsed.has_value());
  EXPECT_EQ(parsed->unix_ms, 1'700'000'000'000);
}

}  // namespace
}  // namespace hookd::store::testing
