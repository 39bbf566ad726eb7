// hookd's entry point: everything happens in run_cli (src/cli/cli.hpp).
#include "cli/cli.hpp"

int main(int argc, char** argv) { return hookd::cli::run_cli(argc, argv); }
