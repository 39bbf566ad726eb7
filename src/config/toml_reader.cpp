// Reads a TOML document into Config through the key lists in config/fields.hpp.
#include <algorithm>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "config/fields.hpp"
#include "config/readers.hpp"
#include "config/values.hpp"

namespace hookd::config {
namespace {

std::string where(std::string_view file_label, const toml::node& node) {
  return std::string(file_label) + " line " + std::to_string(node.source().begin.line);
}

class TomlReader {
 public:
  TomlReader(const toml::table& table, std::string path_prefix, std::string_view file_label,
             Origins& origins, Problems& problems)
      : table_(table),
        prefix_(std::move(path_prefix)),
        file_label_(file_label),
        origins_(origins),
        problems_(problems) {}

  template <class T>
  void field(std::string_view key, T& out) {
    read(key, [&](const toml::node& node) { return from_toml(node, out); });
  }

  void bytes(std::string_view key, std::uint64_t& out) {
    read(key, [&](const toml::node& node) { return size_from_toml(node, out); });
  }

  template <class F>
  void table(std::string_view key, F&& visit) {
    const toml::node* node = take(key);
    if (node == nullptr) return;
    if (!node->is_table()) {
      problems_.add(path(key), where(*node),
                    "expected a table ([" + path(key) + "]), got " + describe_type(*node));
      return;
    }
    TomlReader child(*node->as_table(), path(key) + ".", file_label_, origins_, problems_);
    visit(child);
    child.report_unknown_keys();
  }

  // A sub-table that may be absent: `out` is created when the file has it.
  template <class T, class F>
  void optional_table(std::string_view key, std::optional<T>& out, F&& visit) {
    table(key, [&](TomlReader& child) { visit(child, out ? *out : out.emplace()); });
  }

  // Marks a key as known and returns its node, if present.
  const toml::node* take(std::string_view key) {
    known_.emplace_back(key);
    return table_.get(key);
  }

  void report_unknown_keys() const {
    for (const auto& [key, node] : table_) {
      const std::string name(key.str());
      if (std::ranges::find(known_, name) != known_.end()) continue;
      std::string message = "unknown key";
      if (const auto guess = closest_match(name, known_); !guess.empty()) {
        message += "; did you mean \"" + guess + "\"?";
      }
      problems_.add(path(name), where(node), message);
    }
  }

  std::string where(const toml::node& node) const { return config::where(file_label_, node); }

  std::string path(std::string_view key) const { return prefix_ + std::string(key); }

 private:
  template <class F>
  void read(std::string_view key, F&& parse) {
    const toml::node* node = take(key);
    if (node == nullptr) return;
    if (auto ok = parse(*node); !ok) {
      problems_.add(path(key), where(*node), ok.error());
    } else {
      origins_.set(path(key), where(*node));
    }
  }

  const toml::table& table_;
  std::string prefix_;
  std::string_view file_label_;
  Origins& origins_;
  Problems& problems_;
  std::vector<std::string> known_;
};

// An array-of-tables section ([[source]], [[proxy]]) whose items are identified by name.
struct NamedSection {
  std::string_view key;         // "source"
  std::string_view name_usage;  // why a name is needed: "its path is /in/<name>"
};

// One item of a NamedSection: its name first (it makes the item's path), then `visit`.
template <class T, class Path, class Visit>
T read_named_table(const NamedSection& section, const toml::table& table, std::size_t index,
                   std::string_view file_label, Origins& origins, Problems& problems, Path path,
                   Visit visit) {
  T item;
  if (const auto* name = table.get("name"); name != nullptr && name->is_string()) {
    item.name = name->as_string()->get();
  }
  TomlReader reader(table, path(item, index) + ".", file_label, origins, problems);
  if (const toml::node* name = reader.take("name"); name == nullptr) {
    problems.add(reader.path("name"), where(file_label, table),
                 "every [[" + std::string(section.key) + "]] needs a name (" +
                     std::string(section.name_usage) + ")");
  } else if (!name->is_string()) {
    problems.add(reader.path("name"), reader.where(*name),
                 "expected a string, got " + describe_type(*name));
  } else {
    origins.set(reader.path("name"), reader.where(*name));
  }
  visit(reader, item);
  reader.report_unknown_keys();
  return item;
}

// Every item of a NamedSection into `out`; `path` names an item ("source[x]"), `visit`
// reads its other keys.
template <class T, class Path, class Visit>
void read_named_tables(TomlReader& root, const NamedSection& section, std::string_view file_label,
                       std::vector<T>& out, Origins& origins, Problems& problems, Path path,
                       Visit visit) {
  const toml::node* node = root.take(section.key);
  if (node == nullptr) return;
  const auto* array = node->as_array();
  const std::string key(section.key);
  if (array == nullptr || !array->is_array_of_tables()) {
    problems.add(key, root.where(*node),
                 "expected [[" + key + "]] tables, got " + describe_type(*node));
    return;
  }
  for (std::size_t i = 0; i < array->size(); ++i) {
    out.push_back(read_named_table<T>(section, *array->get(i)->as_table(), i, file_label, origins,
                                      problems, path, visit));
  }
}

std::string item_path(std::string_view section, const std::string& name, std::size_t index) {
  const std::string inside = name.empty() ? "#" + std::to_string(index) : name;
  return std::string(section) + "[" + inside + "]";
}

}  // namespace

std::string source_path(const SourceConfig& source, std::size_t index) {
  return item_path("source", source.name, index);
}

std::string proxy_path(const ProxyConfig& proxy, std::size_t index) {
  return item_path("proxy", proxy.name, index);
}

void read_toml(const toml::table& root, std::string_view file_label, Config& config,
               Origins& origins, Problems& problems) {
  TomlReader reader(root, "", file_label, origins, problems);
  visit_sections(reader, config);
  read_named_tables(reader, {"source", "its path is /in/<name>"}, file_label, config.sources,
                    origins, problems, source_path,
                    [](TomlReader& r, SourceConfig& s) { visit_source(r, s); });
  read_named_tables(reader, {"proxy", "its path is /proxy/<name>/..."}, file_label, config.proxies,
                    origins, problems, proxy_path,
                    [](TomlReader& r, ProxyConfig& p) { visit_proxy(r, p); });
  reader.report_unknown_keys();
}

}  // namespace hookd::config
