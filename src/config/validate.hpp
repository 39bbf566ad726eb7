// Checks a Config for values that parse but cannot work: out of range, wrong syntax (JSON
// pointers, CIDRs, URLs, templates, secrets' format), duplicate or unsafe source and proxy names,
// options that contradict the chosen scheme, and cross-key rules (backoff_base <= backoff_max,
// lease_duration > timeout, ...). Messages never contain secret values.
// Thread-safety: pure function.
#pragma once

#include <vector>

#include "config/config.hpp"
#include "config/problems.hpp"

namespace hookd::config {

// Every problem found (empty = valid). `origins` (optional) names where values came from.
std::vector<Problem> validate(const Config& config, const Origins& origins = {});

}  // namespace hookd::config
