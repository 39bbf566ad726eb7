#include "ops/log.hpp"

#include <spdlog/pattern_formatter.h>
#include <spdlog/sinks/stdout_sinks.h>

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <ctime>

namespace hookd::ops {
namespace {

spdlog::level::level_enum to_spdlog(LogLevel level) {
  switch (level) {
    case LogLevel::kTrace:
      return spdlog::level::trace;
    case LogLevel::kDebug:
      return spdlog::level::debug;
    case LogLevel::kInfo:
      return spdlog::level::info;
    case LogLevel::kWarn:
      return spdlog::level::warn;
    case LogLevel::kError:
      return spdlog::level::err;
    case LogLevel::kOff:
      return spdlog::level::off;
  }
  return spdlog::level::info;
}

std::string lower(std::string_view text) {
  std::string out(text);
  std::transform(out.begin(), out.end(), out.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return out;
}

// RFC 3339 UTC with milliseconds: 2026-11-29T20:04:00.123Z
std::string format_timestamp(std::chrono::system_clock::time_point tp) {
  const auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(tp.time_since_epoch());
  const std::time_t seconds =
      static_cast<std::time_t>(std::chrono::floor<std::chrono::seconds>(ms).count());
  std::tm tm{};
  gmtime_r(&seconds, &tm);
  char buf[64];
  std::snprintf(buf, sizeof buf, "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", tm.tm_year + 1900,
                tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec,
                static_cast<int>(((ms.count() % 1000) + 1000) % 1000));
  return buf;
}

std::string dump(const nlohmann::json& value) {
  // Invalid UTF-8 in a field must not throw on the logging path.
  return value.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

// Text format: bare strings when unambiguous, JSON otherwise.
std::string text_value(const nlohmann::json& value) {
  if (!value.is_string()) return dump(value);
  const auto& s = value.get_ref<const std::string&>();
  const bool bare = !s.empty() && std::none_of(s.begin(), s.end(), [](unsigned char c) {
    return c <= ' ' || c == '"' || c == '=' || c == '\\' || c >= 0x7f;
  });
  return bare ? s : dump(value);
}

std::string field_key(std::string_view key) {
  std::string out;
  if (key == "ts" || key == "level" || key == "msg") out += '_';
  out.append(key);
  return out;
}

}  // namespace

Result<LogLevel> parse_log_level(std::string_view text) {
  const std::string l = lower(text);
  if (l == "trace") return LogLevel::kTrace;
  if (l == "debug") return LogLevel::kDebug;
  if (l == "info") return LogLevel::kInfo;
  if (l == "warn" || l == "warning") return LogLevel::kWarn;
  if (l == "error") return LogLevel::kError;
  if (l == "off") return LogLevel::kOff;
  return fail(ErrorCode::kInvalidArgument,
              "log level must be trace, debug, info, warn, error or off: " + std::string(text));
}

Result<LogFormat> parse_log_format(std::string_view text) {
  const std::string l = lower(text);
  if (l == "json") return LogFormat::kJson;
  if (l == "text") return LogFormat::kText;
  return fail(ErrorCode::kInvalidArgument, "log format must be json or text: " + std::string(text));
}

std::string_view to_string(LogLevel level) {
  switch (level) {
    case LogLevel::kTrace:
      return "trace";
    case LogLevel::kDebug:
      return "debug";
    case LogLevel::kInfo:
      return "info";
    case LogLevel::kWarn:
      return "warn";
    case LogLevel::kError:
      return "error";
    case LogLevel::kOff:
      return "off";
  }
  return "info";
}

Logger::Logger(LogOptions options, spdlog::sink_ptr sink, std::shared_ptr<const Masker> masker,
               WallClock clock)
    : format_(options.format),
      logger_(std::make_shared<spdlog::logger>("hookd", std::move(sink))),
      masker_(masker ? std::move(masker) : std::make_shared<const Masker>()),
      clock_(clock ? std::move(clock) : [] { return std::chrono::system_clock::now(); }) {
  logger_->set_formatter(std::make_unique<spdlog::pattern_formatter>("%v"));
  logger_->set_level(to_spdlog(options.level));
  logger_->flush_on(spdlog::level::warn);
}

bool Logger::enabled(LogLevel level) const {
  return level != LogLevel::kOff && logger_->should_log(to_spdlog(level));
}

void Logger::set_level(LogLevel level) { logger_->set_level(to_spdlog(level)); }

void Logger::flush() const { logger_->flush(); }

nlohmann::json Logger::masked_value(std::string_view key, const nlohmann::json& value) const {
  if (is_secret_name(key)) return std::string(kRedacted);
  return masker_->mask_json(value);
}

std::string Logger::format_line(LogLevel level, std::string_view msg, LogFields fields) const {
  const std::string ts = format_timestamp(clock_());
  const nlohmann::json masked_msg = masker_->mask_text(msg);
  std::string line;
  if (format_ == LogFormat::kJson) {
    line.append(R"({"ts":")").append(ts).append(R"(","level":")").append(to_string(level));
    line.append(R"(","msg":)").append(dump(masked_msg));
    for (const auto& [key, value] : fields) {
      line.append(",").append(dump(field_key(key))).append(":");
      line.append(dump(masked_value(key, value)));
    }
    line += '}';
  } else {
    std::string level_name(to_string(level));
    std::transform(level_name.begin(), level_name.end(), level_name.begin(),
                   [](unsigned char c) { return static_cast<char>(std::toupper(c)); });
    line.append(ts).append(" ").append(level_name).append(" ");
    line.append(masked_msg.get_ref<const std::string&>());
    for (const auto& [key, value] : fields) {
      line.append(" ").append(field_key(key)).append("=");
      line.append(text_value(masked_value(key, value)));
    }
  }
  return line;
}

void Logger::log(LogLevel level, std::string_view msg, LogFields fields) const {
  if (!enabled(level)) return;
  const std::string line = format_line(level, msg, fields);
  logger_->log(to_spdlog(level), spdlog::string_view_t(line.data(), line.size()));
}

spdlog::sink_ptr make_stderr_sink() { return std::make_shared<spdlog::sinks::stderr_sink_mt>(); }

std::vector<std::string> CaptureSink::lines() {
  std::lock_guard lock(mutex_);
  return lines_;
}

void CaptureSink::clear() {
  std::lock_guard lock(mutex_);
  lines_.clear();
}

void CaptureSink::sink_it_(const spdlog::details::log_msg& msg) {
  spdlog::memory_buf_t buf;
  formatter_->format(msg, buf);
  std::string line(buf.data(), buf.size());
  while (!line.empty() && (line.back() == '\n' || line.back() == '\r')) line.pop_back();
  lines_.push_back(std::move(line));
}

}  // namespace hookd::ops
