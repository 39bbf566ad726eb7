// Reads a TOML document into Config through the key lists in config/fields.hpp.
#include <algorithm>
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

void read_source(const toml::table& table, std::size_t index, std::string_view file_label,
                 Config& config, Origins& origins, Problems& problems) {
  SourceConfig source;
  if (const auto* name = table.get("name"); name != nullptr && name->is_string()) {
    source.name = name->as_string()->get();
  }
  TomlReader reader(table, source_path(source, index) + ".", file_label, origins, problems);
  if (const toml::node* name = reader.take("name"); name == nullptr) {
    problems.add(reader.path("name"), where(file_label, table),
                 "every [[source]] needs a name (its path is /in/<name>)");
  } else if (!name->is_string()) {
    problems.add(reader.path("name"), reader.where(*name),
                 "expected a string, got " + describe_type(*name));
  } else {
    origins.set(reader.path("name"), reader.where(*name));
  }
  visit_source(reader, source);
  reader.report_unknown_keys();
  config.sources.push_back(std::move(source));
}

}  // namespace

std::string source_path(const SourceConfig& source, std::size_t index) {
  return source.name.empty() ? "source[#" + std::to_string(index) + "]"
                             : "source[" + source.name + "]";
}

void read_toml(const toml::table& root, std::string_view file_label, Config& config,
               Origins& origins, Problems& problems) {
  TomlReader reader(root, "", file_label, origins, problems);
  visit_sections(reader, config);
  const toml::node* sources = reader.take("source");
  if (sources != nullptr) {
    const auto* array = sources->as_array();
    if (array == nullptr || !array->is_array_of_tables()) {
      problems.add("source", reader.where(*sources),
                   "expected [[source]] tables, got " + describe_type(*sources));
    } else {
      for (std::size_t i = 0; i < array->size(); ++i) {
        read_source(*array->get(i)->as_table(), i, file_label, config, origins, problems);
      }
    }
  }
  reader.report_unknown_keys();
}

}  // namespace hookd::config
