// Fuzz target for the configuration loader (TOML text + environment): any text gives a
// Config or an error with a message; never an escaping exception or a crash.
#include <fstream>
#include <sstream>

#include "config/environment.hpp"
#include "config/loader.hpp"
#include "fuzz/fuzz_target.hpp"

namespace hookd::fuzz {

namespace {

void run_config(std::string_view input) {
  const config::MapEnvironment env;
  auto loaded = config::load_config_string(input, env);
  if (!loaded) expect(!loaded.error().message.empty(), "config error without a message");
  // The same text through the environment: HOOKD_* values are parsed by the same readers.
  const config::MapEnvironment from_env{{"HOOKD_DELIVERY_MAX_ATTEMPTS", std::string(input)},
                                        {"HOOKD_SERVER_MAX_BODY_BYTES", std::string(input)},
                                        {"HOOKD_SERVER_LISTEN", std::string(input)}};
  auto env_loaded = config::load_config_string("", from_env);
  if (!env_loaded) expect(!env_loaded.error().message.empty(), "env error without a message");
}

std::string read_file(const char* path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

}  // namespace

FuzzTarget config_target() {
  return {"config",
          run_config,
          {read_file(HOOKD_EXAMPLE_CONFIG), "[server]\nlisten = \"127.0.0.1:0\"\n",
           "[delivery]\nschedule = [\"5s\", \"1m\"]\nmax_attempts = 3\n",
           "[[source]]\nname = \"s\"\nscheme = \"standard\"\nsecrets = "
           "[\"whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw\"]\n",
           "[auth]\ntokens = [{name = \"a\", token = \"t\"}]\n", "5s", "1MiB"},
          {"[",   "]",       "[[source]]", "=",    "\"",
           "'''", "\n",      "{",          "}",    ",",
           "1.5", "MiB",     "ms",         "true", "-",
           "#",   "\\u0000", "inf",        "nan",  "1979-05-27T07:32:00Z"}};
}

}  // namespace hookd::fuzz
