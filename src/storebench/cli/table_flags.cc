#include "storebench/cli/table_flags.h"

namespace storebench::cli {

void AddTableOption(CLI::App* app, const OptionSpec& spec, const std::string& help, const std::string& default_value,
                    const std::string& group, OptionValues* values) {
  const std::string name = "--" + spec.name;
  const std::string n = spec.name;
  CLI::Option* opt = nullptr;
  if (spec.is_flag()) {
    opt = app->add_flag_callback(name, [values, n] { (*values)[n] = "1"; }, help);
  } else {
    opt = app->add_option_function<std::string>(name, [values, n](const std::string& v) { (*values)[n] = v; }, help);
    if (!default_value.empty()) opt->default_str(default_value);
  }
  opt->group(group);
}

void AddTableOptions(CLI::App* app, const std::vector<OptionSpec>& specs, OptionValues* values,
                     const std::string& group) {
  for (const OptionSpec& spec : specs) AddTableOption(app, spec, spec.Help(), spec.default_value, group, values);
}

}  // namespace storebench::cli
