// The CLI's thin client of a running hookd's HTTP API: `--url` / `--token` (or HOOKD_URL /
// HOOKD_TOKEN) and one synchronous call. Commands built on it act on a remote node and are
// audited under the token's name, like any API caller.
// Thread-safety: call from main only (each call starts and stops its own HttpClient).
#pragma once

#include <chrono>
#include <iosfwd>
#include <optional>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

namespace CLI {
class App;
}

namespace hookd::cli {

struct RemoteFlags {
  std::string url;    // base URL of the API, e.g. http://127.0.0.1:8071
  std::string token;  // API token, sent as Bearer
  std::chrono::milliseconds timeout{30000};
};

// Adds --url (env HOOKD_URL), --token (env HOOKD_TOKEN) and --timeout to `command`.
void add_remote_flags(CLI::App& command, RemoteFlags& flags);

struct RemoteAnswer {
  bool reached = false;  // an HTTP answer arrived (else `problem` says why not)
  int status = 0;
  std::string body;
  std::string problem;  // transport failure, when !reached
};

// One request to `flags.url + path` with the token and, when `body` is not empty, a JSON body.
RemoteAnswer call_api(const RemoteFlags& flags, std::string_view method, std::string_view path,
                      std::string body = {});

// Exit code for an answer (0 for 2xx; 1 for an HTTP error or an unreachable daemon) after
// printing a one-line reason to `err` for the failures, prefixed with `command`.
int report_failure(const RemoteAnswer& answer, const char* command, std::ostream& err);

// Checks --url/--token are set; prints what is missing and returns false otherwise.
bool remote_flags_complete(const RemoteFlags& flags, const char* command, std::ostream& err);

// The `data` rows of a page answer (an empty array when the body is not a page); `done` is set
// to the page's `done` (true when absent).
nlohmann::json page_rows(const RemoteAnswer& answer, bool& done);

// Prints a page's rows: as JSON with `json`, else through `table`.
void print_page(const nlohmann::json& rows, bool json,
                void (*table)(const nlohmann::json&, std::ostream&), std::ostream& out);

// A table cell from one member of an API object: strings as they are, null or absent as "-",
// other values as JSON; tabs and newlines become spaces so a row stays one line.
std::string json_cell(const nlohmann::json& object, const char* key);

// "&name=<escaped value>" when `value` is set, else "".
std::string query_part(const char* name, const std::optional<std::string>& value);

// `segment` escaped for a URL path (ids and uids are [A-Za-z0-9_.-] in practice; anything else
// is percent-encoded so a hostile id cannot change the route).
std::string path_segment(std::string_view segment);

}  // namespace hookd::cli
