// The man page foliolab(1) and the bash completion script, both made from the subcommand table
// as the CLI built it (each command's help and flags), so that neither can fall behind it. The
// build runs the hidden `foliolab --print-man` and `--print-completion bash` (CMakeLists.txt).
#pragma once

#include <optional>
#include <string>
#include <string_view>

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
// A bash completion script: subcommands at the first word, then that subcommand's flags.
std::string bash_completion(const CLI::App& app);
// `--print-man` and `--print-completion bash` as the only arguments: prints and returns the exit
// status; nullopt for any other command line.
std::optional<int> print_docs(const CLI::App& app, int argc, char** argv);

}  // namespace foliolab::cli
