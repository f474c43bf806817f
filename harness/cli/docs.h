// The man pages foliolab(1) and foliolab-SUBCOMMAND(1) and the bash completion script, all made
// from the subcommand table as the CLI built it (each command's help and flags), so that none
// can fall behind it. The build runs the hidden `foliolab --write-man DIR` and
// `--print-completion bash` (cmake/install.cmake).
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

#include "util/result.h"

namespace CLI {
class App;
}

namespace foliolab::cli {

// `text` safe in a roff line: backslashes and hyphens escaped, a leading control character
// neutralised ("build-kernel" -> "build\\-kernel").
std::string roff(std::string_view text);
// roff for man(1): name, synopsis, every subcommand with its arguments and flags, environment,
// files, exit status.
std::string man_page(const CLI::App& app, const std::string& version);
// "foliolab-run": the page of a subcommand, as man(1) finds it.
std::string man_page_name(const CLI::App& sub);
// roff for foliolab-SUBCOMMAND(1): its synopsis, description, flags and arguments, its own
// subcommands (cache list, cache gc), exit status.
std::string subcommand_man_page(const CLI::App& sub, const std::string& version);
// DIR/foliolab.1 and DIR/foliolab-SUBCOMMAND.1 for every subcommand.
Result<void> write_man_pages(const CLI::App& app, const std::string& version,
                             const std::filesystem::path& dir);
// A bash completion script: subcommands at the first word, then that subcommand's flags.
std::string bash_completion(const CLI::App& app);
// `--print-man`, `--write-man DIR` and `--print-completion bash` as the only arguments: prints
// (writes) and returns the exit status; nullopt for any other command line.
std::optional<int> print_docs(const CLI::App& app, int argc, char** argv);

}  // namespace foliolab::cli
