// Fuzz targets for hookd's parsers (A33: "parsers are fuzzed").
//
// A target takes arbitrary bytes, feeds them to one parser (or to the API as a request),
// and checks properties that must hold for every input: no crash (the ASan/UBSan build runs
// the smoke test), no exception escaping, round trips that agree, errors that are values
// with a message. A property that does not hold throws FuzzFailure; the driver reports the
// input that caused it so it can be replayed (`hookd_fuzz --target NAME --replay FILE`).
//
// Why our own mutation fuzzer and not libFuzzer: libFuzzer needs clang, and Debian 12's
// clang 14 cannot compile this C++23 code base against libstdc++ 12 (no std::expected).
// See docs/testing.md.
//
// Thread-safety: targets are called from one thread at a time.
#pragma once

#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace hookd::fuzz {

struct FuzzFailure : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// Throws FuzzFailure(what) unless ok.
inline void expect(bool ok, std::string_view what) {
  if (!ok) throw FuzzFailure(std::string(what));
}

using TargetFn = void (*)(std::string_view input);

struct FuzzTarget {
  std::string name;
  TargetFn run = nullptr;
  std::vector<std::string> seeds;       // valid and near-valid inputs to start from
  std::vector<std::string> dictionary;  // tokens the mutator splices in
};

// Every target, in a fixed order.
std::vector<FuzzTarget> all_targets();

// One function per target (defined in target_*.cpp).
FuzzTarget retry_after_target();
FuzzTarget ids_target();
FuzzTarget encoding_target();
FuzzTarget signing_target();
FuzzTarget address_target();
FuzzTarget config_target();
FuzzTarget api_target();

}  // namespace hookd::fuzz
