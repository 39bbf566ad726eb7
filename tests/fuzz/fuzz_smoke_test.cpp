// A33 "parsers are fuzzed": every fuzz target runs its seeds and a few thousand mutants with a
// fixed seed (so a failure repeats). In `make test` this runs in the ASan+UBSan build too,
// which turns memory errors and undefined behaviour into failures. Longer, randomly seeded
// runs: `make fuzz` (hookd_fuzz).
#include <gtest/gtest.h>

#include <cstdlib>

#include "fuzz/fuzz_driver.hpp"
#include "fuzz/fuzz_target.hpp"
#include "fuzz/mutator.hpp"

namespace hookd::fuzz {
namespace {

std::size_t iterations_for(const std::string& name) {
  if (const char* env = std::getenv("HOOKD_FUZZ_ITERATIONS")) return std::strtoul(env, nullptr, 10);
  if (name == "signing" || name == "api") return 1500;
  if (name == "config") return 3000;
  return 20000;
}

class FuzzSmoke : public ::testing::TestWithParam<FuzzTarget> {};

TEST_P(FuzzSmoke, A33_PropertiesHoldForSeedsAndMutants) {
  const auto& target = GetParam();
  FuzzLimits limits;
  limits.iterations = iterations_for(target.name);
  limits.max_time = std::chrono::seconds(120);  // a bound, not an assertion
  limits.seed = 20261129;
  const auto run = run_target(target, limits);
  ASSERT_FALSE(run.finding.has_value())
      << target.name << ": " << run.finding->what << "\ninput: " << printable(run.finding->input);
  EXPECT_GT(run.executed, target.seeds.size());
}

INSTANTIATE_TEST_SUITE_P(AllTargets, FuzzSmoke, ::testing::ValuesIn(all_targets()),
                         [](const auto& info) { return info.param.name; });

// The harness itself: a broken property is reported with the input that broke it.
void breaks_on_brace_pair(std::string_view input) {
  expect(input.find("}}") == std::string_view::npos, "found }}");
}

TEST(FuzzDriver, ReportsTheInputThatBreaksAProperty) {
  FuzzTarget target{"broken", breaks_on_brace_pair, {"{\"a\":{}"}, {"}"}};
  FuzzLimits limits;
  limits.iterations = 100000;
  const auto run = run_target(target, limits);
  ASSERT_TRUE(run.finding.has_value());
  EXPECT_NE(run.finding->input.find("}}"), std::string::npos);
  EXPECT_EQ(run.finding->what, "property: found }}");
}

TEST(FuzzDriver, EscapingExceptionsAreFindings) {
  FuzzTarget target{"throws", [](std::string_view) { throw std::out_of_range("oops"); }, {"x"}, {}};
  auto what = run_one(target, "x");
  ASSERT_TRUE(what.has_value());
  EXPECT_EQ(*what, "exception escaped: oops");
}

TEST(FuzzMutator, SameSeedSameMutants) {
  const std::vector<std::string> dict = {"tok"};
  const std::vector<std::string> corpus = {"abc", "defgh"};
  Mutator a(7), b(7);
  for (int i = 0; i < 200; ++i) {
    ASSERT_EQ(a.mutate("hello world", dict, corpus), b.mutate("hello world", dict, corpus));
  }
}

TEST(FuzzMutator, StaysWithinTheSizeCap) {
  Mutator m(3);
  std::string s(Mutator::kMaxSize, 'a');
  const std::vector<std::string> corpus = {s};
  for (int i = 0; i < 200; ++i) {
    s = m.mutate(s, {}, corpus);
    ASSERT_LE(s.size(), Mutator::kMaxSize);
  }
}

}  // namespace
}  // namespace hookd::fuzz
