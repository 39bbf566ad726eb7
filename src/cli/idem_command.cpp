#include "cli/idem_command.hpp"

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>
#include <ostream>

#include "app/store_factory.hpp"
#include "cli/exit_codes.hpp"
#include "store/proxy_resolution.hpp"

namespace hookd::cli {
namespace {

constexpr std::int64_t kDefaultTtlMs = 24LL * 3600 * 1000;

nlohmann::json key_json(const store::ProxyKey& k) {
  return {{"id", k.id},
          {"proxy", k.proxy},
          {"key", k.key},
          {"state", std::string(to_string(k.state))},
          {"owner", k.owner},
          {"status", k.status ? nlohmann::json(*k.status) : nlohmann::json(nullptr)},
          {"bodySize", k.body_size},
          {"createdAtMs", k.created_at},
          {"updatedAtMs", k.updated_at},
          {"expiresAtMs", k.expires_at},
          {"resolvedBy", k.resolved_by},
          {"reason", k.reason}};
}

int list(store::Store& store, const IdemArgs& args, std::ostream& out, std::ostream& err) {
  store::ProxyKeyFilter filter;
  filter.proxy = args.proxy;
  if (args.state) {
    filter.state = store::parse_proxy_key_state(*args.state);
    if (!filter.state) {
      err << "hookd idem list: unknown state \"" << *args.state
          << "\" (claimed, completed, not_replayable, unknown)\n";
      return kExitUsage;
    }
  }
  store::PageRequest page;
  page.limit = args.limit;
  page.descending = true;
  auto keys = store.proxy_list(filter, page);
  if (!keys) {
    err << "hookd idem list: " << keys.error().message << '\n';
    return kExitInvalid;
  }
  if (args.json) {
    nlohmann::json rows = nlohmann::json::array();
    for (const auto& k : keys->data) rows.push_back(key_json(k));
    out << rows.dump(2) << '\n';
    return kExitOk;
  }
  out << "ID\tPROXY\tKEY\tSTATE\tSTATUS\tOWNER\n";
  for (const auto& k : keys->data) {
    out << k.id << '\t' << k.proxy << '\t' << k.key << '\t' << to_string(k.state) << '\t'
        << (k.status ? std::to_string(*k.status) : "-") << '\t' << k.owner << '\n';
  }
  return kExitOk;
}

std::int64_t ttl_of(const config::Config& config, const std::string& proxy) {
  for (const auto& p : config.proxies) {
    if (p.name == proxy) return p.ttl.count();
  }
  return kDefaultTtlMs;
}

int resolve(store::Store& store, const config::Config& config, const IdemArgs& args,
            std::ostream& out, std::ostream& err) {
  auto current = store.proxy_get(args.id);
  if (!current) {
    err << "hookd idem resolve: " << current.error().message << '\n';
    return kExitInvalid;
  }
  store::ProxyResolution resolution;
  resolution.outcome = args.outcome == "completed" ? store::ProxyResolution::Outcome::kCompleted
                                                   : store::ProxyResolution::Outcome::kNotExecuted;
  resolution.resolved_by = args.actor;
  resolution.reason = args.reason;
  resolution.ttl_ms = ttl_of(config, current->proxy);
  if (args.status) {
    resolution.status = *args.status;
    resolution.headers = {{"Content-Type", args.content_type}};
    resolution.body = args.body;
  }
  store::fill_default_response(resolution, *current);
  auto resolved = store.proxy_resolve(
      args.id, resolution, store::proxy_resolution_audit(args.id, args.actor, args.reason));
  if (!resolved) {
    err << "hookd idem resolve: " << resolved.error().message << '\n';
    return kExitInvalid;
  }
  auto j = key_json(*resolved);
  if (resolution.outcome == store::ProxyResolution::Outcome::kNotExecuted) j["state"] = "released";
  out << j.dump(2) << '\n';
  return kExitOk;
}

}  // namespace

CLI::App* add_idem_command(CLI::App& app, IdemArgs& args) {
  CLI::App* idem =
      app.add_subcommand("idem", "Idempotency gateway keys: list, resolve unknown outcomes");
  idem->require_subcommand(1);
  args.list = idem->add_subcommand("list", "List idempotency keys, newest first");
  add_config_flags(*args.list, args.config);
  add_remote_flags(*args.list, args.remote);
  args.list->add_option("--proxy", args.proxy, "only this [[proxy]]");
  args.list->add_option("--state", args.state,
                        "only this state (claimed, completed, not_replayable, unknown)");
  args.list->add_option("--limit", args.limit, "at most this many (1-250)")
      ->check(CLI::Range(1, 250));
  args.list->add_flag("--json", args.json, "print JSON instead of a table");
  args.resolve = idem->add_subcommand(
      "resolve", "Resolve a key whose outcome is unknown (audited): completed or not_executed");
  add_config_flags(*args.resolve, args.config);
  add_remote_flags(*args.resolve, args.remote);
  args.resolve->add_option("id", args.id, "the key's id (idk_...)")->required();
  args.resolve->add_option("--outcome", args.outcome, "completed | not_executed")
      ->required()
      ->check(CLI::IsMember({"completed", "not_executed"}));
  args.resolve->add_option("--status", args.status, "completed: the operation's HTTP status")
      ->check(CLI::Range(100, 599));
  args.resolve->add_option("--body", args.body, "completed: the operation's answer body");
  args.resolve->add_option("--content-type", args.content_type, "of --body");
  add_audit_flags(*args.resolve, args.reason, args.actor);
  return idem;
}

int run_idem(const IdemArgs& args, std::ostream& out, std::ostream& err) {
  if (args.resolve != nullptr && args.resolve->parsed() && args.outcome == "not_executed" &&
      args.status) {
    err << "hookd idem resolve: --status is only for --outcome completed\n";
    return kExitUsage;
  }
  if (!args.remote.url.empty()) return run_idem_remote(args, out, err);
  const auto config = load_config(args.config, "idem", err);
  if (!config) return kExitUsage;
  auto opened = app::open_store(*config);
  if (!opened) {
    err << "hookd idem: cannot open the database: " << opened.error().message << '\n';
    return kExitInvalid;
  }
  store::Store& store = *(*opened)->store;
  if (args.resolve != nullptr && args.resolve->parsed()) {
    return resolve(store, *config, args, out, err);
  }
  return list(store, args, out, err);
}

}  // namespace hookd::cli
