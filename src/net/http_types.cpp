// HTTP value types: header lookup, percent-decoding, problem+json responses.
#include "net/http_types.hpp"

#include <cstdio>
#include <ostream>  // Boost 1.74's string_view.hpp uses std::ostream without including it

#include <boost/beast/http/status.hpp>

namespace hookd::net {
namespace {

char lower(char c) { return (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c; }

int hex_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

}  // namespace

bool iequals(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (lower(a[i]) != lower(b[i])) return false;
  }
  return true;
}

std::optional<std::string_view> HttpHeaders::get(std::string_view name) const {
  for (const auto& field : fields_) {
    if (iequals(field.name, name)) return std::string_view(field.value);
  }
  return std::nullopt;
}

std::vector<std::string_view> HttpHeaders::get_all(std::string_view name) const {
  std::vector<std::string_view> values;
  for (const auto& field : fields_) {
    if (iequals(field.name, name)) values.emplace_back(field.value);
  }
  return values;
}

void HttpHeaders::add(std::string name, std::string value) {
  fields_.push_back(HttpHeader{std::move(name), std::move(value)});
}

void HttpHeaders::set(std::string_view name, std::string value) {
  remove(name);
  fields_.push_back(HttpHeader{std::string(name), std::move(value)});
}

void HttpHeaders::remove(std::string_view name) {
  std::erase_if(fields_, [name](const HttpHeader& field) { return iequals(field.name, name); });
}

std::optional<std::string> percent_decode(std::string_view text, bool plus_is_space) {
  std::string out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (c == '+' && plus_is_space) {
      out.push_back(' ');
    } else if (c != '%') {
      out.push_back(c);
    } else {
      if (i + 2 >= text.size()) return std::nullopt;
      int high = hex_value(text[i + 1]);
      int low = hex_value(text[i + 2]);
      if (high < 0 || low < 0) return std::nullopt;
      out.push_back(static_cast<char>(high * 16 + low));
      i += 2;
    }
  }
  return out;
}

std::string_view HttpRequest::path() const {
  std::string_view view(target);
  return view.substr(0, view.find('?'));
}

std::string_view HttpRequest::query() const {
  std::string_view view(target);
  auto mark = view.find('?');
  return mark == std::string_view::npos ? std::string_view() : view.substr(mark + 1);
}

std::optional<std::string> HttpRequest::query_param(std::string_view name) const {
  std::string_view rest = query();
  while (!rest.empty()) {
    auto amp = rest.find('&');
    std::string_view pair = rest.substr(0, amp);
    rest = amp == std::string_view::npos ? std::string_view() : rest.substr(amp + 1);
    auto eq = pair.find('=');
    auto key = percent_decode(pair.substr(0, eq), true);
    if (!key || *key != name) continue;
    if (eq == std::string_view::npos) return std::string();
    return percent_decode(pair.substr(eq + 1), true);
  }
  return std::nullopt;
}

std::string json_escape(std::string_view text) {
  std::string out;
  out.reserve(text.size() + 8);
  for (char c : text) {
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\r':
        out += "\\r";
        break;
      case '\t':
        out += "\\t";
        break;
      default:
        if (static_cast<unsigned char>(c) < 0x20) {
          char buf[8];
          std::snprintf(buf, sizeof buf, "\\u%04x", static_cast<unsigned>(c));
          out += buf;
        } else {
          out.push_back(c);
        }
    }
  }
  return out;
}

HttpResponse problem_response(int status, std::string_view detail, std::string_view type,
                              std::string_view title) {
  if (type.empty()) type = "about:blank";
  std::string reason;
  if (title.empty()) {
    auto phrase =
        boost::beast::http::obsolete_reason(static_cast<boost::beast::http::status>(status));
    reason.assign(phrase.data(), phrase.size());
    title = reason;
  }
  HttpResponse response;
  response.status = status;
  response.headers.add("Content-Type", "application/problem+json");
  response.body = "{\"type\":\"" + json_escape(type) + "\",\"title\":\"" + json_escape(title) +
                  "\",\"status\":" + std::to_string(status) + ",\"detail\":\"" +
                  json_escape(detail) + "\"}";
  return response;
}

}  // namespace hookd::net
