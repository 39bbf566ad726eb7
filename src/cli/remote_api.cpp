#include "cli/remote_api.hpp"

#include <CLI/CLI.hpp>
#include <cctype>
#include <future>
#include <ostream>

#include "net/http_client.hpp"

namespace hookd::cli {
namespace {

constexpr std::size_t kMaxAnswerBytes = 16 * 1024 * 1024;

std::string trimmed_base(std::string url) {
  while (!url.empty() && url.back() == '/') url.pop_back();
  return url;
}

// The most useful line of an error answer: problem+json `detail`, Svix `detail` or the body.
std::string error_summary(const std::string& body) {
  auto parsed = nlohmann::json::parse(body, nullptr, false);
  if (parsed.is_object()) {
    if (auto d = parsed.find("detail"); d != parsed.end() && d->is_string()) return *d;
    if (auto m = parsed.find("message"); m != parsed.end() && m->is_string()) return *m;
  }
  return body.substr(0, 300);
}

}  // namespace

void add_remote_flags(CLI::App& command, RemoteFlags& flags) {
  command.add_option("--url", flags.url, "hookd's API base URL, e.g. http://127.0.0.1:8071")
      ->envname("HOOKD_URL");
  command.add_option("--token", flags.token, "API token (sent as Bearer)")->envname("HOOKD_TOKEN");
  command
      .add_option_function<int>(
          "--timeout-ms", [&flags](int ms) { flags.timeout = std::chrono::milliseconds(ms); },
          "Give up on the API after this many milliseconds (default 30000)")
      ->check(CLI::Range(100, 3600000));
}

bool remote_flags_complete(const RemoteFlags& flags, const char* command, std::ostream& err) {
  if (flags.url.empty()) {
    err << command << ": --url (or HOOKD_URL) is required: the address of a running hookd\n";
    return false;
  }
  if (flags.token.empty()) {
    err << command << ": --token (or HOOKD_TOKEN) is required: an API token of that hookd\n";
    return false;
  }
  return true;
}

RemoteAnswer call_api(const RemoteFlags& flags, std::string_view method, std::string_view path,
                      std::string body) {
  net::HttpClientOptions options;
  options.total_timeout = flags.timeout;
  options.body_limit = kMaxAnswerBytes;
  options.drain_limit = 0;
  options.max_idle_age = std::chrono::seconds(1);
  options.user_agent = "hookd-cli/0.1";
  options.thread_name = "hookd-cli";
  net::HttpClient client(options);
  client.start();
  net::OutboundRequest request;
  request.method = std::string(method);
  request.url = trimmed_base(flags.url) + std::string(path);
  request.headers.emplace_back("Authorization", "Bearer " + flags.token);
  request.headers.emplace_back("Accept", "application/json");
  if (!body.empty()) request.headers.emplace_back("Content-Type", "application/json");
  request.body = std::move(body);
  std::promise<net::AttemptResult> done;
  auto result = done.get_future();
  client.send(std::move(request), [&done](net::AttemptResult r) { done.set_value(std::move(r)); });
  net::AttemptResult r = result.get();
  client.stop();
  RemoteAnswer answer;
  if (!r.ok()) {
    answer.problem = std::string(net::to_string(r.error)) +
                     (r.error_detail.empty() ? "" : ": " + r.error_detail);
    return answer;
  }
  answer.reached = true;
  answer.status = r.status;
  answer.body = std::move(r.body);
  return answer;
}

int report_failure(const RemoteAnswer& answer, const char* command, std::ostream& err) {
  if (!answer.reached) {
    err << command << ": hookd could not be reached (" << answer.problem << ")\n";
    return 1;
  }
  if (answer.status >= 200 && answer.status < 300) return 0;
  err << command << ": hookd answered " << answer.status << ": " << error_summary(answer.body)
      << '\n';
  return 1;
}

nlohmann::json page_rows(const RemoteAnswer& answer, bool& done) {
  auto page = nlohmann::json::parse(answer.body, nullptr, false);
  done = !page.is_object() || page.value("done", true);
  return page.is_object() ? page.value("data", nlohmann::json::array()) : nlohmann::json::array();
}

void print_page(const nlohmann::json& rows, bool json,
                void (*table)(const nlohmann::json&, std::ostream&), std::ostream& out) {
  if (json) {
    out << rows.dump(2) << '\n';
  } else {
    table(rows, out);
  }
}

std::string json_cell(const nlohmann::json& object, const char* key) {
  auto it = object.find(key);
  if (it == object.end() || it->is_null()) return "-";
  std::string text = it->is_string() ? it->get<std::string>() : it->dump();
  for (char& c : text) {
    if (c == '\t' || c == '\n' || c == '\r') c = ' ';
  }
  return text;
}

std::string query_part(const char* name, const std::optional<std::string>& value) {
  return value ? std::string("&") + name + "=" + path_segment(*value) : std::string();
}

std::string path_segment(std::string_view segment) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  if (segment == "." || segment == "..") return segment == "." ? "%2E" : "%2E%2E";
  std::string out;
  for (unsigned char c : segment) {
    bool plain = std::isalnum(c) || c == '_' || c == '-' || c == '.' || c == '~';
    if (plain) {
      out += static_cast<char>(c);
    } else {
      out += '%';
      out += kHex[c >> 4];
      out += kHex[c & 15];
    }
  }
  return out;
}

}  // namespace hookd::cli
