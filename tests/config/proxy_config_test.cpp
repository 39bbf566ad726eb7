// [[proxy]] (the idempotency gateway, docs/proxy.md): defaults, every key read from the file
// and the environment, every validation rule with its message naming the key and its origin,
// and the dump.
#include <gtest/gtest.h>

#include "config/dump.hpp"
#include "config/loader.hpp"
#include "config_test_helpers.hpp"
#include "proxy/gateway_options.hpp"

namespace hookd::config {
namespace {

using testing::kWhsec;
using testing::load;
using testing::problems_of;

using namespace std::chrono_literals;

// A valid [[proxy]] named `name`; `extra` starts at line 4.
std::string proxy(std::string_view extra = "", std::string_view name = "p") {
  return "[[proxy]]\nname = \"" + std::string(name) + "\"\nupstream = \"http://127.0.0.1:9000\"\n" +
         std::string(extra) + "\n";
}

TEST(ConfigProxy, NoProxiesByDefault) {
  const auto out = load("");
  ASSERT_TRUE(out.problems.empty()) << format_problems(out.problems);
  EXPECT_TRUE(out.config.proxies.empty());
}

TEST(ConfigProxy, Defaults) {
  const auto out = load(proxy());
  ASSERT_TRUE(out.problems.empty()) << format_problems(out.problems);
  ASSERT_EQ(out.config.proxies.size(), 1u);
  const ProxyConfig& p = out.config.proxies[0];
  EXPECT_EQ(p.name, "p");
  EXPECT_EQ(p.upstream, "http://127.0.0.1:9000");
  EXPECT_EQ(p.methods, (std::vector<std::string>{"POST", "PATCH"}));
  EXPECT_TRUE(p.require_key);
  EXPECT_EQ(p.tenant_header, "Authorization");
  EXPECT_EQ(p.ttl, 24h);
  EXPECT_EQ(p.timeout, 10s);
  EXPECT_EQ(p.connect_timeout, 3s);
  EXPECT_EQ(p.max_stored_body, 1024u * 1024);
  EXPECT_EQ(p.max_response_body, 16u * 1024 * 1024);
  EXPECT_EQ(p.status_url, "");
  EXPECT_EQ(p.status_interval, 30s);
}

// The gateway's own defaults (used by code that builds a ProxyRoute by hand) are the same.
TEST(ConfigProxy, DefaultsAgreeWithTheGatewaysOptions) {
  const ProxyConfig c;
  const proxy::ProxyRoute r;
  EXPECT_EQ(c.methods, r.methods);
  EXPECT_EQ(c.require_key, r.require_key);
  EXPECT_EQ(c.tenant_header, r.tenant_header);
  EXPECT_EQ(c.ttl, r.ttl);
  EXPECT_EQ(c.timeout, r.timeout);
  EXPECT_EQ(c.connect_timeout, r.connect_timeout);
  EXPECT_EQ(c.max_stored_body, r.max_stored_body);
  EXPECT_EQ(c.max_response_body, r.max_response_body);
  EXPECT_EQ(c.status_url, r.status_url);
  EXPECT_EQ(c.status_interval, r.status_interval);
}

TEST(ConfigProxy, ParsesEveryKey) {
  const auto out = load(R"(
[[proxy]]
name = "esign"
upstream = "https://esign.internal:8443/api/v2"
methods = ["POST", "PUT", "DELETE"]
require_key = false
tenant_header = "X-Tenant"
ttl = "2d"
timeout = "30s"
connect_timeout = "500ms"
max_stored_body = "256KiB"
max_response_body = "4MiB"
status_url = "http://127.0.0.1:9000/ops/{key}"
status_interval = "1m"

[[proxy]]
name = "billing"
upstream = "http://[::1]:9001"
tenant_header = ""
max_stored_body = 0
)");
  ASSERT_TRUE(out.problems.empty()) << format_problems(out.problems);
  ASSERT_EQ(out.config.proxies.size(), 2u);
  const ProxyConfig& p = out.config.proxies[0];
  EXPECT_EQ(p.name, "esign");
  EXPECT_EQ(p.upstream, "https://esign.internal:8443/api/v2");
  EXPECT_EQ(p.methods, (std::vector<std::string>{"POST", "PUT", "DELETE"}));
  EXPECT_FALSE(p.require_key);
  EXPECT_EQ(p.tenant_header, "X-Tenant");
  EXPECT_EQ(p.ttl, 48h);
  EXPECT_EQ(p.timeout, 30s);
  EXPECT_EQ(p.connect_timeout, 500ms);
  EXPECT_EQ(p.max_stored_body, 256u * 1024);
  EXPECT_EQ(p.max_response_body, 4u * 1024 * 1024);
  EXPECT_EQ(p.status_url, "http://127.0.0.1:9000/ops/{key}");
  EXPECT_EQ(p.status_interval, 1min);
  EXPECT_EQ(out.origins.of("proxy[esign].timeout"), "hookd.toml line 9");
  const ProxyConfig& b = out.config.proxies[1];
  EXPECT_EQ(b.name, "billing");
  EXPECT_EQ(b.upstream, "http://[::1]:9001");
  EXPECT_EQ(b.tenant_header, "");  // one tenant
  EXPECT_EQ(b.max_stored_body, 0u);
  EXPECT_EQ(b.timeout, 10s);  // the defaults are per proxy
}

TEST(ConfigProxy, UnknownKeysAndWrongTypes) {
  const auto text =
      problems_of(proxy("timout = \"5s\"\nrequire_key = \"yes\"\ntimeout = 10\nmethods = \"POST\"\n"
                        "max_stored_body = \"1MB\"\n[proxy.retry]\n"));
  EXPECT_PROBLEM(text,
                 "proxy[p].timout (hookd.toml line 4): unknown key; did you mean \"timeout\"?");
  EXPECT_PROBLEM(text, "proxy[p].require_key (hookd.toml line 5): expected true or false");
  EXPECT_PROBLEM(text,
                 "proxy[p].timeout (hookd.toml line 6): expected a duration string with a unit, "
                 "got the integer 10");
  EXPECT_PROBLEM(text, "proxy[p].methods (hookd.toml line 7): expected a list of strings");
  EXPECT_PROBLEM(text, "proxy[p].max_stored_body (hookd.toml line 8): unknown size unit \"MB\"");
  EXPECT_PROBLEM(text, "proxy[p].retry (hookd.toml line 9): unknown key");
  EXPECT_PROBLEM(problems_of("proxy = 1\n"),
                 "proxy (hookd.toml line 1): expected [[proxy]] tables, got an integer");
  EXPECT_PROBLEM(problems_of("[proxy]\nname = \"p\"\n"),
                 "proxy (hookd.toml line 1): expected "
                 "[[proxy]] tables, got a table");
}

TEST(ConfigProxy, Names) {
  const auto text =
      problems_of(proxy("", "dup") + proxy("", "dup") + proxy("", "a-b") + proxy("", "a_b") +
                  proxy("", "../etc") + "[[proxy]]\nupstream = \"http://127.0.0.1:1\"\n" +
                  "[[proxy]]\nname = 7\nupstream = \"http://127.0.0.1:1\"\n");
  EXPECT_PROBLEM(
      text,
      "proxy[dup].name (hookd.toml line 6): another [[proxy]] already has the name \"dup\"; "
      "names must be unique");
  EXPECT_PROBLEM(text,
                 "proxy[a_b].name (hookd.toml line 14): \"a_b\" and \"a-b\" have the same "
                 "environment variables (HOOKD_PROXY_A_B_...); rename one");
  EXPECT_PROBLEM(text,
                 "proxy[../etc].name (hookd.toml line 18): name \"../etc\" must be 1-64 "
                 "characters of a-z, 0-9, _ and -");
  EXPECT_PROBLEM(text,
                 "proxy[#5].name (hookd.toml line 21): every [[proxy]] needs a name (its path "
                 "is /proxy/<name>/...)");
  EXPECT_PROBLEM(text, "proxy[#6].name (hookd.toml line 24): expected a string, got an integer");
  EXPECT_PROBLEM(problems_of(proxy("", std::string(65, 'a'))), "must be 1-64 characters");
  // A source and a proxy may share a name: their paths and variables differ.
  EXPECT_EQ(problems_of("[[source]]\nname = \"x\"\nscheme = \"none\"\nevent_id = \"/id\"\n"
                        "[source.forward]\nurl = \"http://127.0.0.1:3000/in\"\n"
                        "secret = \"whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw\"\n" +
                        proxy("", "x")),
            "");
}

TEST(ConfigProxy, UpstreamIsRequired) {
  EXPECT_PROBLEM(problems_of("[[proxy]]\nname = \"p\"\n"),
                 "proxy[p].upstream (default): is required: the http(s) URL that /proxy/p/<rest> "
                 "is sent to");
}

TEST(ConfigProxy, UpstreamMustBeAPlainHttpUrl) {
  const auto upstream = [](std::string_view url) {
    return problems_of("[[proxy]]\nname = \"p\"\nupstream = \"" + std::string(url) + "\"\n");
  };
  EXPECT_PROBLEM(upstream("ftp://127.0.0.1/x"),
                 "proxy[p].upstream (hookd.toml line 3): URL \"ftp://127.0.0.1/x\" must start with "
                 "http:// or https://");
  EXPECT_PROBLEM(upstream("http:///x"),
                 "proxy[p].upstream (hookd.toml line 3): URL \"http:///x\" "
                 "has no host");
  EXPECT_PROBLEM(upstream("http://127.0.0.1:9000/api?v=2"),
                 "proxy[p].upstream (hookd.toml line 3): URL \"http://127.0.0.1:9000/api?v=2\" "
                 "must not have a query or fragment");
  EXPECT_PROBLEM(upstream("http://127.0.0.1:9000/api#x"), "must not have a query or fragment");
  EXPECT_PROBLEM(upstream("http://127.0.0.1:9000?"), "must not have a query or fragment");
  const auto userinfo = upstream("http://ops:hunter2@127.0.0.1:9000");
  EXPECT_PROBLEM(userinfo, "proxy[p].upstream (hookd.toml line 3): URL must not hold user info");
  EXPECT_EQ(userinfo.find("hunter2"), std::string::npos) << userinfo;
  EXPECT_PROBLEM(upstream("http://127.0.0.1:0"),
                 "proxy[p].upstream (hookd.toml line 3): URL \"http://127.0.0.1:0\": port must be "
                 "1-65535");
  EXPECT_PROBLEM(upstream("http://127.0.0.1:99999/x"), "port must be 1-65535");
  EXPECT_PROBLEM(upstream("http://127.0.0.1:/x"), "port must be 1-65535");
  EXPECT_PROBLEM(upstream("http://[::1]:x"), "port must be 1-65535");
  for (const char* ok : {"http://127.0.0.1:9000", "https://esign.example", "http://[::1]:9000/base",
                         "http://h:1/a/b/", "http://localhost/"}) {
    EXPECT_EQ(upstream(ok), "") << ok;
  }
}

TEST(ConfigProxy, Methods) {
  EXPECT_PROBLEM(problems_of(proxy("methods = []")),
                 "proxy[p].methods (hookd.toml line 4): is empty; list the methods that need an "
                 "Idempotency-Key");
  const auto text = problems_of(proxy("methods = [\"POST\", \"post\", \"PO ST\", \"\", \"POST\"]"));
  EXPECT_PROBLEM(text,
                 "proxy[p].methods (hookd.toml line 4): item 1: method \"post\" must be an "
                 "upper-case HTTP method token");
  EXPECT_PROBLEM(text, "item 2: method \"PO ST\" must be an upper-case HTTP method token");
  EXPECT_PROBLEM(text, "item 3: method \"\" must be an upper-case HTTP method token");
  EXPECT_PROBLEM(text, "proxy[p].methods (hookd.toml line 4): item 4: \"POST\" is listed twice");
  EXPECT_EQ(text.find("item 0"), std::string::npos) << text;
  EXPECT_EQ(problems_of(proxy("methods = [\"PUT\", \"DELETE\", \"M-SEARCH\"]")), "");
}

TEST(ConfigProxy, TenantHeader) {
  EXPECT_PROBLEM(problems_of(proxy("tenant_header = \"X Tenant\"")),
                 "proxy[p].tenant_header (hookd.toml line 4): header name \"X Tenant\" may only "
                 "contain letters, digits and");
  EXPECT_PROBLEM(problems_of(proxy("tenant_header = \"X-Tenant:\"")), "header name \"X-Tenant:\"");
  EXPECT_EQ(problems_of(proxy("tenant_header = \"\"")), "");
  EXPECT_EQ(problems_of(proxy("tenant_header = \"X-Api-Key\"")), "");
}

TEST(ConfigProxy, DurationsMustBePositiveAndBounded) {
  const auto zero = problems_of(
      proxy("ttl = \"0\"\ntimeout = \"0\"\nconnect_timeout = \"0\"\nstatus_interval = \"0\"\n"));
  EXPECT_PROBLEM(zero,
                 "proxy[p].ttl (hookd.toml line 4): must be between \"1ms\" and \"365d\", got "
                 "\"0\"");
  EXPECT_PROBLEM(zero,
                 "proxy[p].timeout (hookd.toml line 5): must be between \"1ms\" and \"1h\", got "
                 "\"0\"");
  EXPECT_PROBLEM(zero,
                 "proxy[p].connect_timeout (hookd.toml line 6): must be between \"1ms\" and "
                 "\"1h\", got \"0\"");
  EXPECT_PROBLEM(zero,
                 "proxy[p].status_interval (hookd.toml line 7): must be between \"1ms\" and "
                 "\"1d\", got \"0\"");
  const auto large = problems_of(proxy(
      "ttl = \"366d\"\ntimeout = \"2h\"\nconnect_timeout = \"2h\"\nstatus_interval = \"2d\"\n"));
  EXPECT_PROBLEM(large, "proxy[p].ttl (hookd.toml line 4): must be between");
  EXPECT_PROBLEM(large, "proxy[p].timeout (hookd.toml line 5): must be between");
  EXPECT_PROBLEM(large, "proxy[p].connect_timeout (hookd.toml line 6): must be between");
  EXPECT_PROBLEM(large, "proxy[p].status_interval (hookd.toml line 7): must be between");
  EXPECT_EQ(problems_of(proxy("ttl = \"1ms\"\ntimeout = \"1ms\"\nconnect_timeout = \"1ms\"\n"
                              "status_interval = \"1ms\"\n")),
            "");
}

TEST(ConfigProxy, ConnectTimeoutFitsInTheTimeout) {
  EXPECT_PROBLEM(problems_of(proxy("timeout = \"2s\"\nconnect_timeout = \"3s\"\n")),
                 "proxy[p].connect_timeout (hookd.toml line 5): must not be longer than "
                 "proxy[p].timeout (2s), which includes it");
  // The default connect_timeout (3s) against a shorter timeout from the file.
  EXPECT_PROBLEM(problems_of(proxy("timeout = \"1s\"")),
                 "proxy[p].connect_timeout (default): must not be longer than proxy[p].timeout");
  EXPECT_EQ(problems_of(proxy("timeout = \"3s\"\nconnect_timeout = \"3s\"\n")), "");
}

TEST(ConfigProxy, BodyLimits) {
  EXPECT_PROBLEM(problems_of(proxy("max_stored_body = \"2MiB\"\nmax_response_body = \"1MiB\"\n")),
                 "proxy[p].max_response_body (hookd.toml line 5): must be at least "
                 "proxy[p].max_stored_body (2MiB)");
  // Against the other's default.
  EXPECT_PROBLEM(problems_of(proxy("max_response_body = \"512KiB\"")),
                 "proxy[p].max_response_body (hookd.toml line 4): must be at least "
                 "proxy[p].max_stored_body (1MiB)");
  EXPECT_EQ(problems_of(proxy("max_stored_body = \"4MiB\"\nmax_response_body = \"4MiB\"\n")), "");
  const auto bounds =
      problems_of(proxy("max_stored_body = \"65MiB\"\nmax_response_body = \"2GiB\"\n"));
  EXPECT_PROBLEM(bounds,
                 "proxy[p].max_stored_body (hookd.toml line 4): must be between \"0\" and "
                 "\"64MiB\", got \"65MiB\"");
  EXPECT_PROBLEM(bounds,
                 "proxy[p].max_response_body (hookd.toml line 5): must be between \"1KiB\" and "
                 "\"1GiB\", got \"2GiB\"");
  EXPECT_PROBLEM(problems_of(proxy("max_stored_body = 0\nmax_response_body = 100\n")),
                 "proxy[p].max_response_body (hookd.toml line 5): must be between \"1KiB\"");
}

TEST(ConfigProxy, StatusUrl) {
  EXPECT_PROBLEM(problems_of(proxy("status_url = \"http://127.0.0.1:9000/ops\"")),
                 "proxy[p].status_url (hookd.toml line 4): URL \"http://127.0.0.1:9000/ops\" must "
                 "contain {key} in its path or query");
  EXPECT_PROBLEM(problems_of(proxy("status_url = \"http://{key}.example/ops\"")),
                 "must contain {key} in its path or query");
  EXPECT_PROBLEM(problems_of(proxy("status_url = \"ftp://127.0.0.1/ops/{key}\"")),
                 "proxy[p].status_url (hookd.toml line 4): URL \"ftp://127.0.0.1/ops/{key}\" must "
                 "start with http:// or https://");
  EXPECT_EQ(problems_of(proxy("status_url = \"http://127.0.0.1:9000/ops/{key}\"")), "");
  EXPECT_EQ(problems_of(proxy("status_url = \"https://ops.example/status?key={key}\"")), "");
}

TEST(ConfigProxy, Environment) {
  const auto out = load(proxy("", "esign-v2"), {{"HOOKD_PROXY_ESIGN_V2_TIMEOUT", "20s"},
                                                {"HOOKD_PROXY_ESIGN_V2_METHODS", "POST, PUT"},
                                                {"HOOKD_PROXY_ESIGN_V2_MAX_STORED_BODY", "2MiB"},
                                                {"HOOKD_PROXY_ESIGN_V2_REQUIRE_KEY", "off"}});
  ASSERT_TRUE(out.problems.empty()) << format_problems(out.problems);
  const ProxyConfig& p = out.config.proxies.at(0);
  EXPECT_EQ(p.timeout, 20s);
  EXPECT_EQ(p.methods, (std::vector<std::string>{"POST", "PUT"}));
  EXPECT_EQ(p.max_stored_body, 2u * 1024 * 1024);
  EXPECT_FALSE(p.require_key);
  EXPECT_EQ(out.origins.of("proxy[esign-v2].timeout"), "env HOOKD_PROXY_ESIGN_V2_TIMEOUT");

  EXPECT_PROBLEM(problems_of(proxy(), {{"HOOKD_PROXY_P_TIMEOUT", "0"}}),
                 "proxy[p].timeout (env HOOKD_PROXY_P_TIMEOUT): must be between");
  EXPECT_PROBLEM(problems_of(proxy(), {{"HOOKD_PROXY_P_TIMOUT", "5s"}}),
                 "(environment) (env HOOKD_PROXY_P_TIMOUT): unknown configuration variable; did "
                 "you mean HOOKD_PROXY_P_TIMEOUT?");
  EXPECT_PROBLEM(problems_of("", {{"HOOKD_PROXY_ESIGN_UPSTREAM", "http://127.0.0.1:1"}}),
                 "(environment) (env HOOKD_PROXY_ESIGN_UPSTREAM): unknown configuration variable; "
                 "HOOKD_PROXY_<NAME>_<KEY> can only override a [[proxy]] defined in the file");
}

TEST(ConfigProxy, DumpShowsProxiesAndRoundTrips) {
  const auto out =
      load(proxy("methods = [\"PUT\"]\nttl = \"1h30m\"\nmax_stored_body = 1500\n"
                 "status_url = \"http://127.0.0.1:9000/ops/{key}\"\n",
                 "esign"));
  ASSERT_TRUE(out.problems.empty()) << format_problems(out.problems);
  const std::string text = dump_toml(out.config);
  for (const char* part :
       {"[[proxy]]", "name = 'esign'", "upstream = 'http://127.0.0.1:9000'", "methods = [ 'PUT' ]",
        "require_key = true", "tenant_header = 'Authorization'", "ttl = '1h30m'", "timeout = '10s'",
        "connect_timeout = '3s'", "max_stored_body = 1500", "max_response_body = '16MiB'",
        "status_url = 'http://127.0.0.1:9000/ops/{key}'", "status_interval = '30s'"}) {
    EXPECT_NE(text.find(part), std::string::npos) << part << " not in\n" << text;
  }
  const auto again = load(text);
  ASSERT_TRUE(again.problems.empty()) << format_problems(again.problems);
  EXPECT_EQ(dump_toml(again.config), text);
  EXPECT_EQ(dump_toml(Config{}).find("[[proxy]]"), std::string::npos);
}

}  // namespace
}  // namespace hookd::config
