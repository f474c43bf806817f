#!/usr/bin/env bash
# Installs every dependency foliolab needs on Debian 12, non-interactively and idempotently.
set -euo pipefail
PKGS=(
  # harness build
  build-essential cmake ninja-build pkg-config git
  libyaml-cpp-dev libboost-dev libboost-filesystem-dev libarchive-dev
  nlohmann-json3-dev libfmt-dev libcli11-dev libssl-dev zlib1g-dev libgtest-dev libgmock-dev libbenchmark-dev
  # guest images
  gcc-aarch64-linux-gnu libc6-dev-arm64-cross
  # kernel source and build dependencies
  linux-source-6.12 xz-utils flex bison bc libelf-dev cpio kmod ccache patch
  # guests
  qemu-system-x86 qemu-system-arm
  # the libvirt backend: the C API, and the daemon the tests start themselves (-system creates
  # the libvirt-qemu user that libvirtd's qemu driver resolves even when told to run QEMU as root)
  libvirt-dev libvirt-daemon libvirt-daemon-driver-qemu libvirt-daemon-system libvirt-clients
  # results index (libsqlite3, the sqlite3 shell for queries) and the HTML report test (headless) and the JUnit schema check (xmllint)
  libsqlite3-dev sqlite3 chromium libxml2-utils
  # shards under a scheduler: the Slurm e2e test starts its own single-node Slurm (munged, slurmctld, slurmd)
  slurm-wlm munge
)
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
