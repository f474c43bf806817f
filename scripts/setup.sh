#!/usr/bin/env bash
# Installs what foliolab needs on Debian 12, non-interactively and idempotently.
#   scripts/setup.sh         the main job: build the harness, build and boot kernels (quickstart)
#   scripts/setup.sh --test  that, plus what only the tests and benches need (scripts/test.sh)
set -euo pipefail
PKGS=(
  # harness build (libvirt-dev: the binary links libvirt's client library for the libvirt backend)
  build-essential cmake ninja-build pkg-config git
  libyaml-cpp-dev libboost-dev libboost-filesystem-dev libarchive-dev
  nlohmann-json3-dev libfmt-dev libcli11-dev libssl-dev zlib1g-dev libsqlite3-dev libvirt-dev
  # the sqlite3 shell, for questions to results/index.sqlite
  sqlite3
  # guest images: static agent and workloads for arm64
  gcc-aarch64-linux-gnu libc6-dev-arm64-cross
  # kernel source and build dependencies
  linux-source-6.12 xz-utils flex bison bc libelf-dev cpio kmod ccache patch
  # guests
  qemu-system-x86 qemu-system-arm
  # Debian root filesystems (machine.image, images/*.yaml): mmdebstrap from Debian's archive,
  # mkfs.ext4 -d (e2fsprogs), and qemu-user-static for another arch's maintainer scripts (run in
  # a private binfmt_misc, never the host's: harness/image/foreign_exec.h)
  mmdebstrap e2fsprogs qemu-user-static
)
TEST_PKGS=(
  # unit and e2e tests, benches
  libgtest-dev libgmock-dev libbenchmark-dev
  # the format check in CI (clang-format --dry-run -Werror)
  clang-format
  # the libvirt e2e tests start their own libvirtd (-system creates the libvirt-qemu user that
  # libvirtd's qemu driver resolves even when told to run QEMU as root); virt-xml-validate
  libvirt-daemon libvirt-daemon-driver-qemu libvirt-daemon-system libvirt-clients
  # the HTML report test (headless Chromium) and the JUnit schema check (xmllint)
  chromium libxml2-utils
  # shards under a scheduler: the Slurm e2e test starts its own single-node Slurm
  slurm-wlm munge
)
case "${1:-}" in
  "") ;;
  --test) PKGS+=("${TEST_PKGS[@]}") ;;
  *) echo "usage: $0 [--test]" >&2; exit 2 ;;
esac
missing=()
for p in "${PKGS[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
if ((${#missing[@]})); then
  SUDO=""
  [ "$(id -u)" -eq 0 ] || SUDO="sudo"
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get update -q
  $SUDO apt-get install -y -q --no-install-recommends "${missing[@]}"
fi
