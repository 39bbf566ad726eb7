#include "config/dump.hpp"

#include <toml++/toml.h>

#include <optional>
#include <sstream>
#include <type_traits>

#include "config/fields.hpp"
#include "config/names.hpp"
#include "config/units.hpp"

namespace hookd::config {
namespace {

constexpr const char* kRedacted = "<redacted>";

// "postgresql://user:pw@host/db" -> "postgresql://user:<redacted>@host/db".
std::string redact_url_password(const std::string& url) {
  const auto scheme_end = url.find("://");
  const auto at = url.find('@');
  if (scheme_end == std::string::npos || at == std::string::npos || at < scheme_end) return url;
  const auto colon = url.find(':', scheme_end + 3);
  if (colon == std::string::npos || colon > at) return url;
  return url.substr(0, colon + 1) + kRedacted + url.substr(at);
}

bool is_secret_key(std::string_view key) {
  return key == "secrets" || key == "secret" || key == "feed_token";
}

class TomlWriter {
 public:
  TomlWriter(toml::table& table, Secrets secrets) : table_(table), secrets_(secrets) {}

  template <class T>
  void field(std::string_view key, const T& value) {
    const bool redact = secrets_ == Secrets::kRedact && is_secret_key(key);
    table_.insert_or_assign(key, to_node(value, redact));
  }

  void bytes(std::string_view key, std::uint64_t value) {
    const std::string text = format_size(value);
    if (text == std::to_string(value)) {
      table_.insert_or_assign(key, static_cast<std::int64_t>(value));
    } else {
      table_.insert_or_assign(key, text);
    }
  }

  toml::table& target() { return table_; }

  template <class F>
  void table(std::string_view key, F&& visit) {
    toml::table child;
    TomlWriter writer(child, secrets_);
    visit(writer);
    table_.insert_or_assign(key, std::move(child));
  }

  template <class T, class F>
  void optional_table(std::string_view key, std::optional<T>& value, F&& visit) {
    if (value) table(key, [&](TomlWriter& child) { visit(child, *value); });
  }

 private:
  toml::array to_node(const std::vector<ApiToken>& tokens, bool) const {
    toml::array out;
    for (const auto& t : tokens) {
      out.push_back(toml::table{{"name", t.name},
                                {"token", secrets_ == Secrets::kRedact ? kRedacted : t.token}});
    }
    return out;
  }
  template <class T>
  toml::array to_node(const std::vector<T>& items, bool redact) const {
    toml::array out;
    for (const auto& item : items) out.push_back(to_node(item, redact));
    return out;
  }
  std::string to_node(const std::string& text, bool redact) const {
    return redact && !text.empty() ? kRedacted : text;  // "" stays "": nothing is hidden
  }
  std::string to_node(Duration value, bool) const { return format_duration(value); }
  std::int64_t to_node(int value, bool) const { return value; }
  bool to_node(bool value, bool) const { return value; }
  template <class E>
  requires std::is_enum_v<E> std::string to_node(E value, bool)
  const { return std::string(enum_name(value)); }

  toml::table& table_;
  Secrets secrets_;
};

// The loader refuses options of a scheme the source does not use; leave them out.
void drop_other_schemes_options(Scheme scheme, toml::table& source) {
  if (scheme != Scheme::kHmacHexTs) source.erase("hmac_hex_ts");
  if (scheme != Scheme::kHmac) source.erase("hmac");
  if (scheme != Scheme::kToken && scheme != Scheme::kCloudEvents) source.erase("token");
  if (scheme != Scheme::kCloudEvents) source.erase("allowed_origins");
}

// An array-of-tables section ([[source]], [[proxy]]): each item's name, then its keys.
template <class T, class Visit>
toml::array dump_named(std::vector<T>& items, Secrets secrets, Visit visit) {
  toml::array out;
  for (auto& item : items) {
    toml::table table;
    table.insert("name", item.name);
    TomlWriter writer(table, secrets);
    visit(writer, item);
    out.push_back(std::move(table));
  }
  return out;
}

}  // namespace

std::string dump_toml(const Config& original, Secrets secrets) {
  Config config = original;  // the visitors take mutable references
  if (secrets == Secrets::kRedact) config.database.url = redact_url_password(config.database.url);
  toml::table root;
  TomlWriter writer(root, secrets);
  visit_sections(writer, config);
  const auto insert = [&](std::string_view key, toml::array items) {
    if (!items.empty()) root.insert(key, std::move(items));
  };
  insert("source", dump_named(config.sources, secrets, [](TomlWriter& w, SourceConfig& s) {
           visit_source(w, s);
           drop_other_schemes_options(s.scheme, w.target());
         }));
  insert("proxy", dump_named(config.proxies, secrets,
                             [](TomlWriter& w, ProxyConfig& p) { visit_proxy(w, p); }));
  std::ostringstream out;
  out << root << "\n";
  return out.str();
}

}  // namespace hookd::config
