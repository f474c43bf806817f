#include "image/second_stage.h"

namespace foliolab {

const char* foreign_path_name(ForeignPath p) {
  switch (p) {
    case ForeignPath::kAuto:
      return "auto";
    case ForeignPath::kBinfmt:
      return "binfmt";
    case ForeignPath::kGuest:
      return "guest";
  }
  return "?";
}

std::optional<ForeignPath> parse_foreign_path(std::string_view name) {
  for (ForeignPath p : {ForeignPath::kAuto, ForeignPath::kBinfmt, ForeignPath::kGuest}) {
    if (name == foreign_path_name(p)) return p;
  }
  return std::nullopt;
}

const std::string& second_stage_script() {
  static const std::string s = R"(#!/bin/sh
# foliolab: the second stage of a Debian image unpacked on the host without running anything of
# its arch there (harness/image/second_stage.h). `install`: dpkg learns the essential set (its
# files are unpacked already), then unpacks and configures everything else, as debootstrap's
# second stage and mmdebstrap do; `finish`: removes this folder and the policy-rc.d that kept
# services from starting while packages were configured.
set -eu
export DEBIAN_FRONTEND=noninteractive DEBCONF_NONINTERACTIVE_SEEN=true LC_ALL=C.UTF-8 \
  HOME=/root PWD=/ PATH=/usr/sbin:/usr/bin:/sbin:/bin
stage=/foliolab-stage2
case "${1:-}" in
install)
  dpkg --force-depends --install "$stage"/essential/*.deb
  set -- "$stage"/rest/*.deb
  if [ -e "$1" ]; then
    dpkg --force-depends --unpack "$@"
    dpkg --configure --pending --force-configure-any --force-depends
  fi
  dpkg --configure -a
  broken=$(dpkg --audit)
  if [ -n "$broken" ]; then
    echo "dpkg --audit: $broken"
    exit 1
  fi
  ;;
finish)
  rm -f /usr/sbin/policy-rc.d
  rm -rf "$stage"
  ;;
*)
  echo "usage: $0 install|finish" >&2
  exit 2
  ;;
esac
)";
  return s;
}

std::vector<std::vector<std::string>> second_stage_commands(const ImageRecipe& r) {
  const std::string script = std::string("/") + kSecondStageDir + "/run";
  std::vector<std::vector<std::string>> out = {{"/bin/sh", script, "install"}};
  for (const auto& cmd : r.commands) {
    std::vector<std::string> argv = {"/usr/bin/env",   "DEBIAN_FRONTEND=noninteractive",
                                     "LC_ALL=C.UTF-8", "HOME=/root",
                                     "PWD=/",          "PATH=/usr/sbin:/usr/bin:/sbin:/bin"};
    argv.insert(argv.end(), cmd.begin(), cmd.end());
    out.push_back(std::move(argv));
  }
  out.push_back({"/bin/sh", script, "finish"});
  return out;
}

}  // namespace foliolab
