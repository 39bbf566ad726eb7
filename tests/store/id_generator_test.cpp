// RandomIdGenerator: prefixed, parseable, time-sortable, unique, monotonic within a millisecond.
#include "store/id_generator.hpp"

#include <algorithm>
#include <set>
#include <span>

#include "env/system_env.hpp"
#include "hookd/ids.hpp"
#include "store/store_contract.hpp"

namespace hookd::store::testing {
namespace {

TEST(RandomIdGeneratorTest, IdsCarryPrefixAndClockTimeAndSortByTime) {
  FakeClock clock(1'700'000'000'000);
  env::SystemRandom random;
  RandomIdGenerator ids(clock, random);
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

// The worst case for ordering: the random source always gives the largest bytes but one.
class AlmostMaxRandom final : public Random {
 public:
  double uniform01() override { return 0.5; }
  void fill(std::span<std::uint8_t> bytes) override {
    std::ranges::fill(bytes, std::uint8_t{0xff});
    bytes.back() = 0xfe;
  }
};

TEST(RandomIdGeneratorTest, IdsInOneMillisecondStillSortInCreationOrder) {
  FakeClock clock;
  AlmostMaxRandom random;
  RandomIdGenerator ids(clock, random);
  std::string previous = ids.next("msg");
  for (int i = 0; i < 1000; ++i) {
    if (i == 500) clock.advance(-5);  // the wall clock steps back
    std::string id = ids.next("msg");
    EXPECT_LT(previous, id) << i;
    ASSERT_TRUE(parse_id(id, "msg"));
    previous = std::move(id);
  }
}

TEST(RandomIdGeneratorTest, SystemRandomGivesDistinctIds) {
  FakeClock clock;
  env::SystemRandom random;
  RandomIdGenerator ids(clock, random);
  std::set<std::string> seen;
  for (int i = 0; i < 1000; ++i) seen.insert(ids.next("app"));
  EXPECT_EQ(seen.size(), 1000u);
}

}  // namespace
}  // namespace hookd::store::testing
