#include "storebench/measure/metrics.h"

#include <algorithm>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <set>

namespace storebench::measure {

std::string Metric::Name() const { return fmt::format("{}", fmt::join(path, ".")); }

Metric& MetricSet::Add(Metric m) {
  metrics_.push_back(std::move(m));
  return metrics_.back();
}

Metric& MetricSet::Counter(MetricPath path, uint64_t count, Unit unit) {
  Metric m;
  m.path = std::move(path);
  m.kind = MetricKind::kCounter;
  m.unit = unit;
  m.count = count;
  return Add(std::move(m));
}

Metric& MetricSet::Gauge(MetricPath path, double value, Unit unit, MergeRule merge) {
  Metric m;
  m.path = std::move(path);
  m.kind = MetricKind::kGauge;
  m.unit = unit;
  m.merge = merge;
  m.value = value;
  return Add(std::move(m));
}

Metric& MetricSet::Text(MetricPath path, std::string text) {
  Metric m;
  m.path = std::move(path);
  m.kind = MetricKind::kText;
  m.merge = MergeRule::kSame;
  m.text = std::move(text);
  return Add(std::move(m));
}

Metric& MetricSet::Ratio(MetricPath path, MetricPath num, MetricPath den, double scale, Unit unit) {
  Metric m;
  m.path = std::move(path);
  m.kind = MetricKind::kRatio;
  m.unit = unit;
  m.num = std::move(num);
  m.den = std::move(den);
  m.scale = scale;
  return Add(std::move(m));
}

Metric& MetricSet::Unknown(MetricPath path, std::string why, Unit unit) {
  Metric m;
  m.path = std::move(path);
  m.kind = MetricKind::kGauge;
  m.unit = unit;
  m.known = false;
  m.text = std::move(why);
  return Add(std::move(m));
}

const Metric* MetricSet::Find(const MetricPath& path) const {
  for (const Metric& m : metrics_)
    if (m.path == path) return &m;
  return nullptr;
}

std::optional<double> MetricSet::Value(const MetricPath& path) const {
  const Metric* m = Find(path);
  if (!m || !m->known) return std::nullopt;
  switch (m->kind) {
    case MetricKind::kCounter:
      return static_cast<double>(m->count);
    case MetricKind::kGauge:
      return m->value;
    case MetricKind::kText:
      return std::nullopt;
    case MetricKind::kRatio: {
      std::optional<double> num = Value(m->num), den = Value(m->den);
      if (!num || !den || *den == 0) return std::nullopt;
      double r = m->scale * *num / *den;
      return m->complement ? std::max(0.0, 1.0 - r) : r;
    }
  }
  return std::nullopt;
}

void MetricSet::Append(const MetricSet& other) {
  for (const Metric& m : other.metrics_) metrics_.push_back(m);
}

void MetricSet::FollowedBy(const MetricSet& later) {
  for (const Metric& m : later.metrics_) {
    auto mine = std::find_if(metrics_.begin(), metrics_.end(), [&](const Metric& x) { return x.path == m.path; });
    if (mine == metrics_.end()) {
      metrics_.push_back(m);
      continue;
    }
    const uint64_t before = mine->kind == MetricKind::kCounter && m.kind == MetricKind::kCounter ? mine->count : 0;
    *mine = m;
    mine->count += before;
  }
}

Status MetricSet::Merge(const MetricSet& other) {
  for (const Metric& o : other.metrics_) {
    Metric* mine = nullptr;
    for (Metric& m : metrics_)
      if (m.path == o.path) mine = &m;
    if (!mine) {
      metrics_.push_back(o);
      continue;
    }
    if (mine->kind != o.kind || mine->unit != o.unit)
      return Status::InvalidArgument(fmt::format("merge: {} has another kind or unit on the other side", o.Name()));
    if (!o.known || !mine->known) {
      if (mine->known) *mine = o;
      continue;
    }
    switch (o.kind) {
      case MetricKind::kCounter:
        mine->count += o.count;
        break;
      case MetricKind::kGauge:
        switch (mine->merge) {
          case MergeRule::kSum: mine->value += o.value; break;
          case MergeRule::kMax: mine->value = std::max(mine->value, o.value); break;
          case MergeRule::kMin: mine->value = std::min(mine->value, o.value); break;
          case MergeRule::kSame:
            if (mine->value != o.value) {
              mine->known = false;
              mine->text = "differs between the merged results";
            }
            break;
        }
        break;
      case MetricKind::kText:
        if (mine->text != o.text) mine->text = "mixed";
        break;
      case MetricKind::kRatio:
        if (mine->num != o.num || mine->den != o.den || mine->scale != o.scale || mine->complement != o.complement)
          return Status::InvalidArgument(fmt::format("merge: ratio {} is defined differently", o.Name()));
        break;
    }
  }
  return Status::Ok();
}

Status MetricSet::Validate() const {
  std::set<MetricPath> leaves;
  for (const Metric& m : metrics_) {
    if (m.path.empty()) return Status::InvalidArgument("metrics: a figure without a name");
    if (!leaves.insert(m.path).second)
      return Status::InvalidArgument(fmt::format("metrics: {} is reported twice", m.Name()));
  }
  for (const MetricPath& p : leaves) {
    for (size_t n = 1; n < p.size(); ++n) {
      MetricPath prefix(p.begin(), p.begin() + static_cast<long>(n));
      if (leaves.count(prefix))
        return Status::InvalidArgument(
            fmt::format("metrics: {} is both a figure and a section", fmt::format("{}", fmt::join(prefix, "."))));
    }
  }
  return Status::Ok();
}

}  // namespace storebench::measure
