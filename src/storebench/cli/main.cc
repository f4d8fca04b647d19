// The storebench binary's entry point; the program is cli/command_line.h.
#include "storebench/cli/command_line.h"

int main(int argc, char** argv) { return storebench::cli::Main(argc, argv); }
