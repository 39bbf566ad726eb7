// `hookd dlq replay` and `hookd dlq discard` (see cli/dlq_command.hpp): check every id first
// so that each unknown or not-dead one is named, then one audited, all-or-nothing store call.
// Thread-safety: call from main only.
#pragma once

#include <iosfwd>

#include "cli/dlq_command.hpp"
#include "store/store.hpp"

namespace hookd::cli {

enum class DlqAction { kReplay, kDiscard };

// Acts on args.ids (duplicates ignored) with args.reason, args.actor and, for a replay,
// args.to_endpoint. Returns the exit code; prints the count on `out`, problems on `err`.
int run_dlq_action(store::Store& store, DlqAction action, const DlqArgs& args, std::ostream& out,
                   std::ostream& err);

}  // namespace hookd::cli
