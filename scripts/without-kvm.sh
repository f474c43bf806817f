#!/usr/bin/env bash
# Runs a command as on a host without /dev/kvm: a private mount namespace whose /dev is a fresh
# tmpfs holding only the usual device nodes (bind-mounted), not kvm. Needs root (unshare -m).
# Example: bash scripts/without-kvm.sh bash scripts/test.sh
set -euo pipefail
[ "$#" -ge 1 ] || { echo "usage: $0 COMMAND [ARG...]" >&2; exit 2; }
exec unshare -m --propagation private bash -c '
  set -euo pipefail
  saved=$(mktemp -d)
  mount --bind /dev "$saved"
  mount -t tmpfs -o mode=755 none /dev
  for n in null zero full random urandom tty ptmx; do
    touch "/dev/$n"
    mount --bind "$saved/$n" "/dev/$n"
  done
  mkdir -p /dev/pts /dev/shm
  mount --bind "$saved/pts" /dev/pts
  mount -t tmpfs -o mode=1777 none /dev/shm
  ln -s /proc/self/fd /dev/fd
  ln -s /proc/self/fd/0 /dev/stdin
  ln -s /proc/self/fd/1 /dev/stdout
  ln -s /proc/self/fd/2 /dev/stderr
  umount -l "$saved"
  [ ! -e /dev/kvm ] || { echo "without-kvm: /dev/kvm still visible" >&2; exit 1; }
  exec "$@"
' without-kvm "$@"
