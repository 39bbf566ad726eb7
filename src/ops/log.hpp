// Structured logging: one line per event, JSON lines or human text, over an spdlog sink.
//   logger.info("delivery.failed", {{"endpoint", id}, {"status", 503}});
//   → {"ts":"2026-11-29T20:04:00.123Z","level":"info","msg":"delivery.failed",
//      "endpoint":"ep_…","status":503}
// Every field passes through the Masker first (secret-looking keys redacted, strings and
// nested JSON masked, see masking.hpp), so no call site can log a secret or unmasked personal
// data by accident. Fields named ts/level/msg are renamed _ts/_level/_msg.
// The sink is injected: stderr in the daemon, CaptureSink in tests.
// Thread-safety: log calls are safe from any thread (formatting on the caller's thread, the
// sink serialises writes); set_level is atomic.
#pragma once

#include <spdlog/logger.h>
#include <spdlog/sinks/base_sink.h>

#include <nlohmann/json.hpp>

#include <chrono>
#include <functional>
#include <initializer_list>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "hookd/result.hpp"
#include "ops/masking.hpp"

namespace hookd::ops {

enum class LogLevel { kTrace, kDebug, kInfo, kWarn, kError, kOff };
enum class LogFormat { kJson, kText };

// "trace", "debug", "info", "warn"/"warning", "error", "off" (case-insensitive).
Result<LogLevel> parse_log_level(std::string_view text);
Result<LogFormat> parse_log_format(std::string_view text);  // "json" or "text"
std::string_view to_string(LogLevel level);

using LogField = std::pair<std::string_view, nlohmann::json>;
using LogFields = std::initializer_list<LogField>;
using WallClock = std::function<std::chrono::system_clock::time_point()>;

struct LogOptions {
  LogLevel level = LogLevel::kInfo;
  LogFormat format = LogFormat::kJson;
};

class Logger {
 public:
  // masker null → built-in rules only; clock null → system clock.
  Logger(LogOptions options, spdlog::sink_ptr sink, std::shared_ptr<const Masker> masker = nullptr,
         WallClock clock = nullptr);

  void log(LogLevel level, std::string_view msg, LogFields fields = {}) const;
  void trace(std::string_view msg, LogFields fields = {}) const {
    log(LogLevel::kTrace, msg, fields);
  }
  void debug(std::string_view msg, LogFields fields = {}) const {
    log(LogLevel::kDebug, msg, fields);
  }
  void info(std::string_view msg, LogFields fields = {}) const {
    log(LogLevel::kInfo, msg, fields);
  }
  void warn(std::string_view msg, LogFields fields = {}) const {
    log(LogLevel::kWarn, msg, fields);
  }
  void error(std::string_view msg, LogFields fields = {}) const {
    log(LogLevel::kError, msg, fields);
  }

  bool enabled(LogLevel level) const;
  void set_level(LogLevel level);
  void flush() const;

  // The line that log() would write (without newline); exposed for tests and the console.
  std::string format_line(LogLevel level, std::string_view msg, LogFields fields) const;

 private:
  nlohmann::json masked_value(std::string_view key, const nlohmann::json& value) const;

  LogFormat format_;
  std::shared_ptr<spdlog::logger> logger_;
  std::shared_ptr<const Masker> masker_;
  WallClock clock_;
};

spdlog::sink_ptr make_stderr_sink();

// A sink that keeps every line in memory (tests). Thread-safe.
class CaptureSink : public spdlog::sinks::base_sink<std::mutex> {
 public:
  std::vector<std::string> lines();
  void clear();

 protected:
  void sink_it_(const spdlog::details::log_msg& msg) override;
  void flush_() override {}

 private:
  std::vector<std::string> lines_;
};

}  // namespace hookd::ops
