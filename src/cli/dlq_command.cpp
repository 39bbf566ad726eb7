#include "cli/dlq_command.hpp"

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cctype>
#include <charconv>
#include <ostream>

#include "app/store_factory.hpp"
#include "cli/dlq_actions.hpp"
#include "cli/exit_codes.hpp"
#include "wire/json.hpp"
#include "wire/time.hpp"

namespace hookd::cli {
namespace {

// A CLI11 check for --since/--until: "" when fine, else why not.
std::string time_flag_problem(const std::string& text) {
  return parse_time_flag(text) ? std::string()
                               : "must be an RFC 3339 time such as 2024-01-01T00:00:00Z, or "
                                 "Unix milliseconds";
}

// Table cells are tab-separated, one row a line: a multi-line error must not break the row.
std::string one_line(std::string text) {
  std::replace_if(
      text.begin(), text.end(), [](char c) { return c == '\t' || c == '\n' || c == '\r'; }, ' ');
  return text;
}

Result<store::DeadLetterFilter> filter_of(store::Store& store, const DlqArgs& args) {
  store::DeadLetterFilter filter;
  if (args.app) {
    auto app = store.get_application(*args.app);  // the id or the uid
    if (!app && app.error().code == ErrorCode::kNotFound) {
      return fail(ErrorCode::kNotFound, "application \"" + *args.app + "\" not found");
    }
    if (!app) return std::unexpected(app.error());
    filter.app_id = app->id;
  }
  filter.endpoint_id = args.endpoint;
  if (args.since) filter.since = parse_time_flag(*args.since);
  if (args.until) filter.until = parse_time_flag(*args.until);
  return filter;
}

void print_table(const std::vector<store::Delivery>& dead, std::ostream& out) {
  out << "DELIVERY ID\tMESSAGE ID\tENDPOINT ID\tATTEMPTS\tLAST STATUS\tLAST ERROR\tDEAD SINCE\n";
  for (const auto& d : dead) {
    out << d.id << '\t' << d.msg_id << '\t' << d.endpoint_id << '\t' << d.attempts << '\t'
        << (d.last_response_status ? std::to_string(*d.last_response_status) : "-") << '\t'
        << one_line(d.last_error.value_or("-")) << '\t' << wire::format_time(d.updated_at) << '\n';
  }
}

int list(store::Store& store, const DlqArgs& args, std::ostream& out, std::ostream& err) {
  auto filter = filter_of(store, args);
  if (!filter) {
    err << "hookd dlq list: " << filter.error().message << '\n';
    return kExitInvalid;
  }
  store::PageRequest page;
  page.limit = args.limit;
  page.descending = true;
  auto dead = store.list_dead(*filter, page);
  if (!dead) {
    err << "hookd dlq list: " << dead.error().message << '\n';
    return kExitInvalid;
  }
  if (args.json) {
    nlohmann::json rows = nlohmann::json::array();
    for (const auto& d : dead->data) rows.push_back(wire::to_json(d));
    out << rows.dump(2) << '\n';
  } else {
    print_table(dead->data, out);
  }
  if (!dead->done) {
    err << "hookd dlq list: more dead letters match than --limit " << args.limit
        << "; narrow them with --app, --endpoint, --since or --until\n";
  }
  return kExitOk;
}

}  // namespace

std::optional<std::int64_t> parse_time_flag(std::string_view text) {
  if (!text.empty() && std::all_of(text.begin(), text.end(), [](char c) {
        return std::isdigit(static_cast<unsigned char>(c)) != 0;
      })) {
    std::int64_t ms = 0;
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), ms);
    if (ec != std::errc() || end != text.data() + text.size()) return std::nullopt;
    return ms;
  }
  return wire::parse_time(text);
}

CLI::App* add_dlq_command(CLI::App& app, DlqArgs& args) {
  CLI::App* dlq = app.add_subcommand(
      "dlq",
      "The outbound dead-letter queue: list, replay, discard (database, or hookd with --url)");
  dlq->require_subcommand(1);
  const CLI::Validator time_check(time_flag_problem, "", "RFC 3339 or Unix ms");

  args.list = dlq->add_subcommand("list", "List dead letters, newest first");
  add_config_flags(*args.list, args.config);
  add_remote_flags(*args.list, args.remote);
  args.list->add_option("--app", args.app, "only this application (id or uid)");
  args.list->add_option("--endpoint", args.endpoint, "only this endpoint id");
  args.list->add_option("--since", args.since, "dead at or after this time (RFC 3339 or Unix ms)")
      ->check(time_check);
  args.list->add_option("--until", args.until, "dead before this time (RFC 3339 or Unix ms)")
      ->check(time_check);
  args.list->add_option("--limit", args.limit, "at most this many (1-250; default 50)")
      ->check(CLI::Range(1, 250));
  args.list->add_flag("--json", args.json, "print the API's JSON objects instead of a table");

  args.replay = dlq->add_subcommand(
      "replay", "Deliver dead letters again: back to pending, attempts reset (audited)");
  add_config_flags(*args.replay, args.config);
  add_remote_flags(*args.replay, args.remote);
  args.replay->add_option("ids", args.ids, "delivery ids (del_...)")->required();
  args.replay->add_option("--to-endpoint", args.to_endpoint,
                          "deliver to this endpoint of the same application instead");
  add_audit_flags(*args.replay, args.reason, args.actor);

  args.discard = dlq->add_subcommand(
      "discard", "Give dead letters up for good: they leave the list (audited)");
  add_config_flags(*args.discard, args.config);
  add_remote_flags(*args.discard, args.remote);
  args.discard->add_option("ids", args.ids, "delivery ids (del_...)")->required();
  add_audit_flags(*args.discard, args.reason, args.actor);
  return dlq;
}

int run_dlq_on(store::Store& store, const DlqArgs& args, std::ostream& out, std::ostream& err) {
  if (args.replay != nullptr && args.replay->parsed()) {
    return run_dlq_action(store, DlqAction::kReplay, args, out, err);
  }
  if (args.discard != nullptr && args.discard->parsed()) {
    return run_dlq_action(store, DlqAction::kDiscard, args, out, err);
  }
  return list(store, args, out, err);
}

int run_dlq(const DlqArgs& args, std::ostream& out, std::ostream& err) {
  if (!args.remote.url.empty()) return run_dlq_remote(args, out, err);
  const auto config = load_config(args.config, "dlq", err);
  if (!config) return kExitUsage;
  auto opened = app::open_store(*config);
  if (!opened) {
    err << "hookd dlq: cannot open the database: " << opened.error().message << '\n';
    return kExitInvalid;
  }
  return run_dlq_on(*(*opened)->store, args, out, err);
}

}  // namespace hookd::cli
