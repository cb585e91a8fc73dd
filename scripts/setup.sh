#!/usr/bin/env bash
# Installs what the app needs; with --test also what the tests need (the Debian packages that
# scripts/test-packages.sh lists as missing; the PyTorch tests skip by name where python3-torch is
# missing).
# Two downloads that ordinary installs make are skipped on purpose, because their hosts are often
# unreachable (offline labs, CI): Electron's binary (GitHub) and onnxruntime-node's CUDA provider
# (NuGet). README "With network" says how to get both.
set -euo pipefail
cd "$(dirname "$0")/.."
export ELECTRON_SKIP_BINARY_DOWNLOAD=1 ONNXRUNTIME_NODE_INSTALL=skip
# Debian's packages for the tests install while npm installs (each waits on its downloads much of
# the time; on a fresh machine the two took about 30 s each, one after the other).
apt_pid=""
if [ "${1:-}" = "--test" ]; then
  # Through a variable: a failing list stops setup (set -e), where `< <(…)` would go on without it.
  list=$(bash scripts/test-packages.sh)
  mapfile -t missing < <(printf '%s' "$list")
  if [ ${#missing[@]} -gt 0 ]; then
    SUDO=""; [ "$(id -u)" = 0 ] || SUDO=sudo
    # sudo may ask for a password: not from the background, where the prompt would be lost.
    [ -z "$SUDO" ] || sudo -v
    # Another apt (unattended upgrades, a second setup) may hold apt's locks: wait for it, up to
    # 10 minutes, instead of failing with exit 100. DPkg::Lock::Timeout covers dpkg's lock, which
    # `install` takes; `update` takes the package lists' lock, which no option waits for.
    (
      for try in $(seq 1 120); do
        if err=$($SUDO apt-get -o DPkg::Lock::Timeout=600 update -qq 2>&1); then break; fi
        if ! grep -q 'Could not get lock' <<<"$err" || [ "$try" = 120 ]; then echo "$err" >&2; exit 100; fi
        [ "$try" = 1 ] && echo "setup: another apt is running; waiting for it" >&2
        sleep 5
      done
      DEBIAN_FRONTEND=noninteractive $SUDO apt-get -o DPkg::Lock::Timeout=600 install -y -qq --no-install-recommends "${missing[@]}"
    ) &
    apt_pid=$!
  fi
fi
# The tests' Node downloads while npm installs, into a folder of its own (npm ci empties
# node_modules first), and moves into node_modules after it.
node_pid="" node_dir=""
if [ "${1:-}" = "--test" ]; then
  node_dir=$(mktemp -d)
  bash scripts/test-node.sh fetch "$node_dir" &
  node_pid=$!
fi
# --prefer-offline: a package already in npm's cache is taken from it without asking the registry
# whether it changed (the lockfile pins each one by its hash); a machine without the cache
# downloads as before. 27–30 s against 35–38 s with a warm cache, two rounds interleaved.
npm ci --no-audit --no-fund --prefer-offline
if [ -n "$node_pid" ]; then
  wait "$node_pid"
  bash scripts/test-node.sh link "$node_dir"
  rm -rf "$node_dir"
fi
# apt's exit status (100 where it could not install) is setup's.
[ -z "$apt_pid" ] || wait "$apt_pid"
