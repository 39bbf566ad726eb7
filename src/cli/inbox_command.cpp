#include "cli/inbox_command.hpp"

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>
#include <ostream>

#include "app/store_factory.hpp"
#include "cli/audit_flags.hpp"
#include "cli/exit_codes.hpp"
#include "cli/remote_api.hpp"

namespace hookd::cli {
namespace {

template <class T>
nlohmann::json opt(const std::optional<T>& v) {
  return v ? nlohmann::json(*v) : nlohmann::json(nullptr);
}

nlohmann::json event_json(const store::InboxEvent& e) {
  return {{"id", e.id},
          {"source", e.source},
          {"eventId", e.event_id},
          {"businessKey", opt(e.business_key)},
          {"entityKey", opt(e.entity_key)},
          {"sequence", opt(e.sequence)},
          {"eventTimeMs", opt(e.event_time)},
          {"receivedAtMs", e.received_at},
          {"processedAtMs", opt(e.processed_at)},
          {"status", std::string(to_string(e.status))},
          {"attempts", e.attempts},
          {"nextAttemptAtMs", e.next_attempt_at},
          {"dependsOn", e.depends_on},
          {"lastError", opt(e.last_error)}};
}

int list(store::Store& store, const InboxArgs& args, std::ostream& out, std::ostream& err) {
  store::InboxFilter filter;
  filter.source = args.source;
  filter.entity_key = args.entity_key;
  if (args.status) {
    filter.status =
        store::inbox_status_from(*args.status == "forwarded" ? "processed" : *args.status);
    if (!filter.status) {
      err << "hookd inbox list: unknown status \"" << *args.status
          << "\" (received, processing, retry, parked, processed, stale, superseded, dead, "
             "duplicate-business-key)\n";
      return kExitUsage;
    }
  }
  store::PageRequest page;
  page.limit = args.limit;
  page.descending = true;
  auto events = store.inbox_list(filter, page);
  if (!events) {
    err << "hookd inbox list: " << events.error().message << '\n';
    return kExitInvalid;
  }
  if (args.json) {
    nlohmann::json rows = nlohmann::json::array();
    for (const auto& e : events->data) rows.push_back(event_json(e));
    out << rows.dump(2) << '\n';
    return kExitOk;
  }
  out << "ID\tSOURCE\tEVENT ID\tSTATUS\tATTEMPTS\tENTITY\tLAST ERROR\n";
  for (const auto& e : events->data) {
    out << e.id << '\t' << e.source << '\t' << e.event_id << '\t' << to_string(e.status) << '\t'
        << e.attempts << '\t' << e.entity_key.value_or("-") << '\t' << e.last_error.value_or("-")
        << '\n';
  }
  return kExitOk;
}

int show(store::Store& store, const InboxArgs& args, std::ostream& out, std::ostream& err) {
  auto event = store.inbox_get(args.id);
  if (!event) {
    err << "hookd inbox show: " << event.error().message << '\n';
    return kExitInvalid;
  }
  auto history = store.inbox_history(args.id);
  if (!history) {
    err << "hookd inbox show: " << history.error().message << '\n';
    return kExitInvalid;
  }
  nlohmann::json j = event_json(*event);
  j["headers"] = event->headers;
  auto payload = nlohmann::json::parse(event->payload, nullptr, false);
  j["payload"] = payload.is_discarded() ? nlohmann::json(event->payload) : payload;
  nlohmann::json rows = nlohmann::json::array();
  for (const auto& h : *history) {
    rows.push_back({{"atMs", h.at},
                    {"from", h.from ? nlohmann::json(std::string(to_string(*h.from)))
                                    : nlohmann::json(nullptr)},
                    {"to", std::string(to_string(h.to))},
                    {"note", h.note}});
  }
  j["history"] = std::move(rows);
  out << j.dump(2) << '\n';
  return kExitOk;
}

int replay(store::Store& store, const InboxArgs& args, std::ostream& out, std::ostream& err) {
  store::AuditEntry audit;
  audit.actor = args.actor;
  audit.action = "inbox.replay";
  audit.target_type = "inbox_event";
  audit.target_id = args.id;
  audit.reason = args.reason;
  audit.before = R"({"status":"dead"})";
  audit.after = R"({"status":"received"})";
  auto event = store.inbox_replay_dead(args.id, audit);
  if (!event) {
    err << "hookd inbox replay: " << event.error().message << '\n';
    return kExitInvalid;
  }
  out << event_json(*event).dump(2) << '\n';
  return kExitOk;
}

void print_remote_list(const nlohmann::json& page, std::ostream& out) {
  out << "ID\tSOURCE\tEVENT ID\tSTATUS\tATTEMPTS\tENTITY\tLAST ERROR\n";
  for (const auto& e : page.value("data", nlohmann::json::array())) {
    auto text = [&e](const char* key) { return json_cell(e, key); };
    out << text("id") << '\t' << text("source") << '\t' << text("eventId") << '\t' << text("status")
        << '\t' << text("attempts") << '\t' << text("entityKey") << '\t' << text("lastError")
        << '\n';
  }
}

// The API forms (see the header): the daemon's answer is printed as it is (JSON) or as a table.
int run_remote(const InboxArgs& args, std::ostream& out, std::ostream& err) {
  if (!remote_flags_complete(args.remote, "hookd inbox", err)) return kExitUsage;
  RemoteAnswer answer;
  const bool listing = args.show == nullptr || (!args.show->parsed() && !args.replay->parsed());
  if (!listing && args.show->parsed()) {
    answer = call_api(args.remote, "GET", "/api/v1/hookd/inbox/" + path_segment(args.id));
  } else if (!listing) {
    answer =
        call_api(args.remote, "POST", "/api/v1/hookd/inbox/" + path_segment(args.id) + "/replay",
                 nlohmann::json{{"reason", args.reason}}.dump());
  } else {
    answer = call_api(args.remote, "GET",
                      "/api/v1/hookd/inbox?limit=" + std::to_string(args.limit) +
                          query_part("source", args.source) + query_part("status", args.status) +
                          query_part("entity_key", args.entity_key));
  }
  if (int code = report_failure(answer, "hookd inbox", err); code != 0) return code;
  auto parsed = nlohmann::json::parse(answer.body, nullptr, false);
  if (listing && !args.json && parsed.is_object()) {
    print_remote_list(parsed, out);
  } else {
    out << (parsed.is_discarded() ? answer.body : parsed.dump(2)) << '\n';
  }
  return kExitOk;
}

}  // namespace

CLI::App* add_inbox_command(CLI::App& app, InboxArgs& args) {
  CLI::App* inbox = app.add_subcommand(
      "inbox", "The inbound inbox: list, show, replay (database, or a running hookd with --url)");
  inbox->require_subcommand(1);
  args.list = inbox->add_subcommand("list", "List inbound events, newest first");
  add_config_flags(*args.list, args.config);
  add_remote_flags(*args.list, args.remote);
  args.list->add_option("--source", args.source, "only this source");
  args.list->add_option("--status", args.status,
                        "only this status (received, retry, parked, processed, stale, "
                        "superseded, dead, duplicate-business-key, ...)");
  args.list->add_option("--entity-key", args.entity_key, "only this entity");
  args.list->add_option("--limit", args.limit, "at most this many (1-250)")
      ->check(CLI::Range(1, 250));
  args.list->add_flag("--json", args.json, "print JSON instead of a table");
  args.show = inbox->add_subcommand("show", "Show one inbound event with its status history");
  add_config_flags(*args.show, args.config);
  add_remote_flags(*args.show, args.remote);
  args.show->add_option("id", args.id, "the inbox id (inb_...)")->required();
  args.replay = inbox->add_subcommand(
      "replay", "Put a dead inbound event back in the queue (forwarded again; audited)");
  add_config_flags(*args.replay, args.config);
  add_remote_flags(*args.replay, args.remote);
  args.replay->add_option("id", args.id, "the inbox id (inb_...)")->required();
  add_audit_flags(*args.replay, args.reason, args.actor);
  return inbox;
}

int run_inbox(const InboxArgs& args, std::ostream& out, std::ostream& err) {
  if (!args.remote.url.empty()) return run_remote(args, out, err);
  const auto config = load_config(args.config, "inbox", err);
  if (!config) return kExitUsage;
  auto opened = app::open_store(*config);
  if (!opened) {
    err << "hookd inbox: cannot open the database: " << opened.error().message << '\n';
    return kExitInvalid;
  }
  store::Store& store = *(*opened)->store;
  if (args.show != nullptr && args.show->parsed()) return show(store, args, out, err);
  if (args.replay != nullptr && args.replay->parsed()) return replay(store, args, out, err);
  return list(store, args, out, err);
}

}  // namespace hookd::cli
