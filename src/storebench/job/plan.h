// Planning: a Job checked once and resolved into what runs — the driver's
// RunConfig (every group's threads, depth, schedule and ops), the two-phase
// settings, and the backend made from its parsed options. Everything that
// can be refused without touching a data set is refused here, with one line
// naming the flag (InvalidArgument): unknown or malformed options, a group
// the backend's read method cannot run as asked (e.g. --iodepth 8 with a
// synchronous method), --cache for a backend without data. `matrix` plans
// every variant before it starts a single run.
// Thread-safety: MakePlan is reentrant; a Plan belongs to one thread.
#pragma once

#include <memory>

#include "storebench/backend/backend.h"
#include "storebench/driver/config.h"
#include "storebench/job/job.h"

namespace storebench::job {

struct Plan {
  Job job;  // as given, with the backend's and the core defaults filled in
  const backend::BackendInfo* info = nullptr;
  CoreOptions core;
  driver::RunConfig config;
  std::unique_ptr<backend::Backend> backend;  // made, not opened
};

// The plan's job (plan.job) holds every option, defaults filled in, and the
// backend's path options (--data) as absolute paths: its JSON, a result's
// `config`, reruns from any directory.
StatusOr<Plan> MakePlan(const Job& job);

// `options` with each of `info`'s path options made absolute (lexically
// normal, relative to the working directory); templates such as {rank} are kept.
OptionValues AbsolutePathOptions(const backend::BackendInfo& info, OptionValues options);

// One --class as written: NAME and its key=value settings in order (a value
// may hold commas: sine:A,B,C,D). ToText() writes it back.
struct ClassText {
  std::string name;
  std::vector<std::pair<std::string, std::string>> settings;
  std::string ToText() const;
};
// InvalidArgument with the accepted --class form when `text` is not NAME:key=value,...
StatusOr<ClassText> SplitClass(const std::string& text);
// The keys a --class may set, as an option table declares them.
const std::vector<OptionSpec>& ClassOptionSpecs();

// The message for a --backend that names no backend of this binary.
Status UnknownBackend(const std::string& name);

}  // namespace storebench::job
