// hookd_fuzz: runs the fuzz targets for a while with a random (or given) seed; `make fuzz`.
//   hookd_fuzz [--target NAME] [--seconds N] [--runs N] [--seed S] [--replay FILE]
// On a finding it writes the input to fuzz-finding-<target>.bin and exits 1.
#include <CLI/CLI.hpp>
#include <chrono>
#include <fstream>
#include <iostream>
#include <random>
#include <sstream>

#include "fuzz/fuzz_driver.hpp"
#include "fuzz/fuzz_target.hpp"

int main(int argc, char** argv) {
  using namespace hookd::fuzz;
  CLI::App app{"hookd's parser fuzzer (A33)"};
  std::string only;
  int seconds = 10;
  std::size_t runs = 0;
  std::uint64_t seed = std::random_device{}();
  std::string replay;
  app.add_option("--target", only, "run only this target");
  auto* seconds_option =
      app.add_option("--seconds", seconds, "time per target")->check(CLI::Range(1, 86400));
  app.add_option(
      "--runs", runs,
      "inputs per target (0: until --seconds; with --runs and no --seconds, at most a day)");
  app.add_option("--seed", seed, "mutation seed (printed, so a run can be repeated)");
  app.add_option("--replay", replay, "run one input file through --target and exit");
  CLI11_PARSE(app, argc, argv);
  const bool seconds_given = seconds_option->count() > 0;

  int found = 0;
  for (const auto& target : all_targets()) {
    if (!only.empty() && target.name != only) continue;
    if (!replay.empty()) {
      std::ifstream in(replay, std::ios::binary);
      std::stringstream bytes;
      bytes << in.rdbuf();
      auto what = run_one(target, bytes.str());
      std::cout << target.name << ": " << (what ? *what : std::string("ok")) << "\n";
      found += what ? 1 : 0;
      continue;
    }
    FuzzLimits limits;
    limits.iterations = runs > 0 ? runs : static_cast<std::size_t>(-1);
    limits.max_time = std::chrono::seconds(runs > 0 && !seconds_given ? 86400 : seconds);
    limits.seed = seed;
    const auto began = std::chrono::steady_clock::now();
    const auto run = run_target(target, limits);
    const std::chrono::duration<double> took = std::chrono::steady_clock::now() - began;
    std::cout << target.name << ": " << run.executed << " inputs in " << took.count() << " s, seed "
              << seed;
    if (run.finding) {
      ++found;
      const std::string file = "fuzz-finding-" + target.name + ".bin";
      std::ofstream(file, std::ios::binary) << run.finding->input;
      std::cout << ", FINDING: " << run.finding->what << " (input in " << file << ": "
                << printable(run.finding->input) << ")";
    }
    std::cout << std::endl;
  }
  return found == 0 ? 0 : 1;
}
