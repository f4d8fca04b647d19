#include "storebench/cli/table_flags.h"

namespace storebench::cli {
namespace {

constexpr const char* kNonEmpty = "non-empty";

CLI::Validator NonEmpty(std::string reason) {
  return CLI::Validator([reason](std::string& v) { return v.empty() ? reason : std::string(); }, "", kNonEmpty);
}

bool HasValidator(CLI::Option* o, const std::string& name) {
  try {
    return o->get_validator(name) != nullptr;
  } catch (const CLI::OptionNotFound&) {
    return false;
  }
}

}  // namespace

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
    // Marked as checked either way, so RefuseEmptyValues leaves it to the table.
    opt->check(spec.empty_ok() ? CLI::Validator([](std::string&) { return std::string(); }, "", kNonEmpty)
                               : NonEmpty(EmptyValueReason(spec)));
  }
  opt->group(group);
}

void AddTableOptions(CLI::App* app, const std::vector<OptionSpec>& specs, OptionValues* values,
                     const std::string& group) {
  for (const OptionSpec& spec : specs) AddTableOption(app, spec, spec.Help(), spec.default_value, group, values);
}

void RefuseEmptyValues(CLI::App* app) {
  for (CLI::Option* o : app->get_options()) {
    if (o->get_expected_min() == 0 || o->get_name() == "run-args" || HasValidator(o, kNonEmpty)) continue;
    // First, before a check of its own (a list of choices) words it otherwise.
    o->transform(NonEmpty("an empty value means nothing here; give a value or leave the flag out"));
  }
  for (CLI::App* sub : app->get_subcommands([](CLI::App*) { return true; })) RefuseEmptyValues(sub);
}

}  // namespace storebench::cli
