#include "storebench/report/page_template.h"

#include <fmt/format.h>

namespace storebench::report {
namespace {

struct Filler {
  std::string_view tmpl;
  const std::map<std::string, std::string_view>& values;
  std::string out;

  StatusOr<std::string_view> Value(std::string_view name) const {
    auto it = values.find(std::string(name));
    if (it == values.end()) return Status::Corruption(fmt::format("page template: no value for {{{{{}}}}}", name));
    return it->second;
  }

  // Fills tmpl[at, end of the block `open` or of the template); returns where it stopped.
  StatusOr<size_t> Fill(size_t at, std::string_view open, bool emit) {
    while (at < tmpl.size()) {
      const size_t tag = tmpl.find("{{", at);
      if (emit) out.append(tmpl.substr(at, (tag == std::string_view::npos ? tmpl.size() : tag) - at));
      if (tag == std::string_view::npos) break;
      const size_t close = tmpl.find("}}", tag + 2);
      if (close == std::string_view::npos) return Status::Corruption("page template: a '{{' is not closed");
      const std::string_view body = tmpl.substr(tag + 2, close - tag - 2);
      at = close + 2;
      if (body.starts_with('!')) {
        if (at < tmpl.size() && tmpl[at] == '\n') ++at;
      } else if (body.starts_with('/')) {
        if (open.empty() || body.substr(1) != open)
          return Status::Corruption(fmt::format("page template: {{{{{}}}}} closes no open block", body));
        return at;
      } else if (body.starts_with('?')) {
        auto v = Value(body.substr(1));
        if (!v.ok()) return v.status();
        auto end = Fill(at, body.substr(1), emit && !v->empty());
        if (!end.ok()) return end.status();
        at = *end;
      } else {
        auto v = Value(body);
        if (!v.ok()) return v.status();
        if (emit) out.append(*v);
      }
    }
    if (!open.empty()) return Status::Corruption(fmt::format("page template: {{{{?{}}}}} is not closed", open));
    return tmpl.size();
  }
};

}  // namespace

StatusOr<std::string> FillTemplate(std::string_view tmpl, const std::map<std::string, std::string_view>& values) {
  Filler f{tmpl, values, {}};
  size_t size = tmpl.size();
  for (const auto& [name, v] : values) size += v.size();
  f.out.reserve(size);
  auto end = f.Fill(0, "", true);
  if (!end.ok()) return end.status();
  return std::move(f.out);
}

}  // namespace storebench::report
