#include "cli/docs.h"

#include <fmt/format.h>
#include <CLI/CLI.hpp>
#include <cctype>
#include <filesystem>
#include <string_view>
#include <vector>

#include "cli/cli_util.h"
#include "cli/commands.h"
#include "model/file_keys.h"
#include "util/fs.h"

namespace foliolab::cli {
namespace {

std::vector<const CLI::App*> subcommands(const CLI::App& app) {
  return app.get_subcommands([](const CLI::App*) { return true; });
}

// The flags and arguments of a subcommand, --help left out.
std::vector<const CLI::Option*> options_of(const CLI::App& sub) {
  return sub.get_options([](const CLI::Option* o) { return o->get_name() != "--help"; });
}

// The flags and arguments of `sub` as a man page's tagged paragraphs.
void man_options(const CLI::App& sub, std::string* out) {
  for (const CLI::Option* o : options_of(sub)) {
    const std::string name = o->nonpositional() ? o->get_name(false, true) : o->get_name(true);
    *out += fmt::format(".TP\n.{} {}\n{}\n", o->nonpositional() ? "B" : "I", roff(name),
                        roff(o->get_description()));
  }
}

void man_command(const CLI::App& sub, std::string* out) {
  *out += fmt::format(".TP\n.B {}\n{}\n", roff(sub.get_name()), roff(sub.get_description()));
  if (options_of(sub).empty()) return;
  *out += ".RS\n";
  man_options(sub, out);
  *out += ".RE\n";
}

constexpr std::string_view kExitStatus = R"(.SH EXIT STATUS
0 all runs ok; 1 a run failed or an expectation did not hold; 2 bad input (file:line:col and
the key); 3 the environment cannot be used, or foliolab failed.
)";

constexpr std::string_view kManTail = R"(.SH PROJECTS
A project is a folder of your own holding a \fIfoliolab.yaml\fR marker (\fBfoliolab init
DIR\fR makes one). The project of an experiment is the nearest folder from the experiment
file's folder up holding the marker, else the experiment's own folder. A name an experiment
gives (\fBpatches:\fR, \fBconfig:\fR, \fBmachine.image\fR) is looked up in the project's
\fIpatches/\fR, \fIkernel\-config/\fR and \fIimages/\fR first, then in the data folder;
\fBplan\fR prints where each came from. Paths (sources, programs) are relative to the
experiment file. Results go to \fIresults/\fR of the project the working directory is in.
.SH ENVIRONMENT
.TP
.B FOLIOLAB_ROOT
The data folder (kernel\-config/, patches/, images/, workloads/, experiments/). Without it:
\fI../share/foliolab\fR beside the binary when installed, else the source tree it was built from.
.TP
.B FOLIOLAB_CACHE
The cache of kernels, images and working trees (default \fI~/.cache/foliolab\fR).
.SH FILES
.TP
.I /usr/share/foliolab
The installed data: kernel config fragments, patch series, image recipes, the guest agent's and
the workloads' sources, the shipped experiments.
)";

std::string bash_case(const CLI::App& sub) {
  std::vector<std::string> flags;
  for (const CLI::Option* o : options_of(sub)) {
    if (!o->nonpositional()) continue;
    for (const std::string& s : o->get_snames()) flags.push_back("-" + s);
    for (const std::string& l : o->get_lnames()) flags.push_back("--" + l);
  }
  flags.push_back("--help");
  return fmt::format("    {}) opts=\"{}\" ;;\n", sub.get_name(), fmt::join(flags, " "));
}

}  // namespace

std::string roff(std::string_view text) {
  std::string out;
  for (char c : text) {
    if (c == '\\') {
      out += "\\e";
    } else if (c == '-') {
      out += "\\-";
    } else {
      out += c;
    }
  }
  if (!out.empty() && (out[0] == '.' || out[0] == '\'')) out.insert(0, "\\&");
  return out;
}

std::string man_page(const CLI::App& app, const std::string& version) {
  std::string out = fmt::format(".TH FOLIOLAB 1 \"\" \"{}\" \"User Commands\"\n", roff(version));
  out += ".SH NAME\nfoliolab \\- " + roff(app.get_description()) + "\n";
  out += ".SH SYNOPSIS\n.B foliolab\n.I command\n[\\fIarguments\\fR] [\\fIoptions\\fR]\n";
  out += ".br\n.B foliolab \\-\\-version\n";
  out += ".SH COMMANDS\n";
  for (const CLI::App* sub : subcommands(app)) man_command(*sub, &out);
  out += kManTail;
  out += kExitStatus;
  out += ".SH SEE ALSO\n";
  std::vector<std::string> pages;
  for (const CLI::App* sub : subcommands(app)) pages.push_back(roff(man_page_name(*sub)) + "(1)");
  out += fmt::format("{}\n", fmt::join(pages, ",\n"));
  return out;
}

std::string man_page_name(const CLI::App& sub) { return "foliolab-" + sub.get_name(); }

std::string subcommand_man_page(const CLI::App& sub, const std::string& version) {
  std::string upper = man_page_name(sub);
  for (char& c : upper) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  std::string out =
      fmt::format(".TH {} 1 \"\" \"{}\" \"User Commands\"\n", roff(upper), roff(version));
  out +=
      fmt::format(".SH NAME\n{} \\- {}\n", roff(man_page_name(sub)), roff(sub.get_description()));
  out += fmt::format(".SH SYNOPSIS\n.B foliolab {}\n[\\fIoptions\\fR]\n", roff(sub.get_name()));
  for (const CLI::Option* o : options_of(sub)) {
    if (!o->nonpositional()) out += fmt::format(".I {}\n", roff(o->get_name(true)));
  }
  out += fmt::format(".br\n.B foliolab help {}\n", roff(sub.get_name()));
  out += ".SH DESCRIPTION\n" + roff(sub.get_description()) + ".\n";
  if (!options_of(sub).empty()) {
    out += ".SH OPTIONS\n";
    man_options(sub, &out);
  }
  const auto nested = subcommands(sub);
  if (!nested.empty()) out += ".SH COMMANDS\n";
  for (const CLI::App* n : nested) {
    out += fmt::format(".SS {}\n{}\n", roff(n->get_name()), roff(n->get_description()));
    man_options(*n, &out);
  }
  out += kExitStatus;
  out += ".SH SEE ALSO\n.BR foliolab (1)\n";
  return out;
}

Result<void> write_man_pages(const CLI::App& app, const std::string& version,
                             const std::filesystem::path& dir) {
  FL_TRY(write_file_atomic(dir / "foliolab.1", man_page(app, version)));
  for (const CLI::App* sub : subcommands(app)) {
    FL_TRY(
        write_file_atomic(dir / (man_page_name(*sub) + ".1"), subcommand_man_page(*sub, version)));
  }
  return {};
}

std::string bash_completion(const CLI::App& app) {
  std::vector<std::string> names, kinds;
  std::string cases;
  for (const CLI::App* sub : subcommands(app)) {
    names.push_back(sub->get_name());
    cases += bash_case(*sub);
  }
  for (const file_keys::FileKind& k : file_keys::file_kinds()) kinds.push_back(k.name);
  return fmt::format(
      R"(# bash completion for foliolab (generated by foliolab --print-completion bash)
_foliolab() {{
  local cur=${{COMP_WORDS[COMP_CWORD]}} opts
  if ((COMP_CWORD == 1)); then
    COMPREPLY=($(compgen -W "{0} --help --version" -- "$cur"))
    return
  fi
  if ((COMP_CWORD == 2)) && [[ $cur != -* ]]; then
    case ${{COMP_WORDS[1]}} in
      help) COMPREPLY=($(compgen -W "{0}" -- "$cur")); return ;;
      schema) COMPREPLY=($(compgen -W "{1}" -- "$cur")); return ;;
    esac
  fi
  case ${{COMP_WORDS[1]}} in
{2}    *) opts="--help" ;;
  esac
  if [[ $cur == -* ]]; then
    COMPREPLY=($(compgen -W "$opts" -- "$cur"))
  else
    COMPREPLY=($(compgen -f -- "$cur"))
  fi
}}
complete -o filenames -F _foliolab foliolab
)",
      fmt::join(names, " "), fmt::join(kinds, " "), cases);
}

std::optional<int> print_docs(const CLI::App& app, int argc, char** argv) {
  const std::vector<std::string_view> args(argv + 1, argv + argc);
  if (args.size() == 1 && args[0] == "--print-man") {
    fmt::print("{}", man_page(app, version_string()));
    return 0;
  }
  if (args.size() == 2 && args[0] == "--write-man") {
    auto written = write_man_pages(app, version_string(), std::string(args[1]));
    return written.ok() ? 0 : fail(written.error(), kExitEnvironment);
  }
  if (args.size() == 2 && args[0] == "--print-completion" && args[1] == "bash") {
    fmt::print("{}", bash_completion(app));
    return 0;
  }
  return std::nullopt;
}

}  // namespace foliolab::cli
