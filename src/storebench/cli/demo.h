// The default job: what `storebench` runs with no arguments — a short
// demonstration on the null backend of what coordinated omission hides.
#pragma once

#include <atomic>

namespace storebench::cli {

int RunDemo(const std::atomic<bool>* stop);

}  // namespace storebench::cli
