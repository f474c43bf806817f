// Running another arch's programs (mmdebstrap's maintainer scripts, a recipe's commands) without
// touching the host: `foliolab __foreign-exec ARCH -- PROGRAM ARGS...` runs PROGRAM in a user
// namespace of its own (every id mapped to itself, so files keep their owners) with a private
// mount namespace, where a private binfmt_misc instance registers qemu-user-static for ARCH.
// binfmt_misc is per user namespace since Linux 6.7; the host's own binfmt_misc is never read
// or written, and nothing is left behind when the child exits.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "model/arch.h"

namespace foliolab {

inline constexpr const char* kForeignExecCommand = "__foreign-exec";

// {self_exe, "__foreign-exec", arch, "--", argv...}.
std::vector<std::string> foreign_exec_argv(const std::filesystem::path& self_exe, Arch arch,
                                           const std::vector<std::string>& argv);

// The binfmt_misc registration line for `arch`'s ELF executables run by `interpreter`
// (":foliolab-<arch>:M::<magic>:<mask>:<interpreter>:FOC"; F opens the interpreter now, so the
// registration holds in any mount namespace).
std::string binfmt_registration(Arch arch, const std::string& interpreter);

// Whether a kernel of this release ("6.18.1-amd64") gives each user namespace a binfmt_misc of
// its own (Linux 6.7+), which `__foreign-exec` needs; and the same for the running kernel.
bool binfmt_per_user_namespace(const std::string& release);
bool host_binfmt_per_user_namespace();

// The `__foreign-exec` entry (args after the command name): the program's exit status, 128+N
// when a signal N ended it, 125 when the namespace could not be set up (the reason on stderr).
int foreign_exec_main(const std::vector<std::string>& args);

}  // namespace foliolab
