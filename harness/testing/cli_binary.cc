#include "testing/cli_binary.h"

#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

namespace foliolab {

const char* cli_binary() { return FOLIOLAB_CLI; }

ProcessResult run_cli(const std::vector<std::string>& args, const std::filesystem::path& cwd,
                      const std::filesystem::path& log) {
  std::vector<std::string> argv = {cli_binary()};
  argv.insert(argv.end(), args.begin(), args.end());
  RealProcessRunner proc;
  return proc.run({.argv = argv,
                   .cwd = cwd,
                   .log_path = log,
                   .capture = true,
                   .timeout = std::chrono::minutes(90)});
}

pid_t spawn_cli(const std::vector<std::string>& args, const std::filesystem::path& log) {
  const pid_t pid = ::fork();
  if (pid != 0) return pid;
  int fd = ::open(log.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0644);
  if (fd >= 0) {
    ::dup2(fd, 1);
    ::dup2(fd, 2);
  }
  std::vector<char*> argv;
  std::string cli = cli_binary();
  argv.push_back(cli.data());
  std::vector<std::string> copy = args;
  for (auto& a : copy) argv.push_back(a.data());
  argv.push_back(nullptr);
  ::execv(cli.c_str(), argv.data());
  ::_exit(127);
}

int wait_exit(pid_t pid) {
  int status = 0;
  if (::waitpid(pid, &status, 0) != pid) return -1;
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

}  // namespace foliolab
