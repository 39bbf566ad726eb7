#include "cli/dlq_actions.hpp"

#include <algorithm>
#include <ostream>

#include "cli/exit_codes.hpp"

namespace hookd::cli {
namespace {

struct Verb {
  const char* command;  // "replay"
  const char* done;     // "replayed"
  const char* audit;    // "dlq.replay"
};

Verb verb_of(DlqAction action) {
  return action == DlqAction::kReplay ? Verb{"replay", "replayed", "dlq.replay"}
                                      : Verb{"discard", "discarded", "dlq.discard"};
}

std::vector<std::string> unique_in_order(const std::vector<std::string>& ids) {
  std::vector<std::string> unique;
  for (const auto& id : ids) {
    if (std::find(unique.begin(), unique.end(), id) == unique.end()) unique.push_back(id);
  }
  return unique;
}

// One "  <id>: <why>" line per id that cannot be acted on; a storage failure instead.
Result<std::vector<std::string>> problems_with(store::Store& store,
                                               const std::vector<std::string>& ids) {
  std::vector<std::string> problems;
  for (const auto& id : ids) {
    auto delivery = store.get_delivery(id);
    if (!delivery && delivery.error().code == ErrorCode::kNotFound) {
      problems.push_back("  " + id + ": no such delivery");
    } else if (!delivery) {
      return std::unexpected(delivery.error());
    } else if (delivery->status != store::DeliveryStatus::kDead) {
      problems.push_back("  " + id + ": not dead (status " +
                         std::string(store::to_string(delivery->status)) + ")");
    }
  }
  return problems;
}

}  // namespace

int run_dlq_action(store::Store& store, DlqAction action, const DlqArgs& args, std::ostream& out,
                   std::ostream& err) {
  const Verb verb = verb_of(action);
  const std::vector<std::string> ids = unique_in_order(args.ids);
  auto problems = problems_with(store, ids);
  if (!problems) {
    err << "hookd dlq " << verb.command << ": " << problems.error().message << '\n';
    return kExitInvalid;
  }
  if (!problems->empty()) {
    err << "hookd dlq " << verb.command << ": nothing was changed (only dead letters can be "
        << verb.done << "):\n";
    for (const auto& line : *problems) err << line << '\n';
    return kExitInvalid;
  }
  // The same entry the API writes (api/handlers_hookd.cpp); the store adds before/after.
  store::AuditEntry audit;
  audit.actor = args.actor;
  audit.action = verb.audit;
  audit.target_type = "delivery";
  audit.target_id = ids.size() == 1 ? ids.front() : "";
  audit.reason = args.reason;
  const std::optional<std::string> to =
      action == DlqAction::kReplay ? args.to_endpoint : std::nullopt;
  auto count = action == DlqAction::kReplay ? store.replay_dead(ids, to, audit)
                                            : store.discard_dead(ids, audit);
  if (!count) {
    err << "hookd dlq " << verb.command << ": " << count.error().message;
    if (to && count.error().code == ErrorCode::kNotFound) {
      err << " (--to-endpoint must be an endpoint of the delivery's application)";
    }
    err << "; nothing was changed\n";
    return kExitInvalid;
  }
  out << verb.done << ' ' << *count << (*count == 1 ? " dead letter" : " dead letters");
  if (to) out << " to endpoint " << *to;
  out << '\n';
  return kExitOk;
}

}  // namespace hookd::cli
