#!/usr/bin/env bash
# The unit suite and the demo scenario on another Node.js than the one installed (the README promises Node 20.12+
# and 22+; operators run the current LTS). The Node binary comes from the npm registry as the package
# node-linux-<arch>@VERSION (cached in .kafka-run/node/VERSION; nothing else is downloaded), and runs the project as
# built and installed by the system Node (dist/, node_modules/: pure JS plus N-API modules, which are ABI-stable).
#   bash scripts/node-compat.sh 26.12.1        (npm test runs it for NODE_COMPAT_VERSIONS)
#   NODE_COMPAT_DEMO=0 ...                     unit suite only
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
ROOT=$PWD
VERSION=${1:?usage: node-compat.sh NODE_VERSION}
ARCH=$(node -p 'process.arch')
case $ARCH in x64 | arm64) ;; *) echo "node-compat: no node-linux-$ARCH package; skipped" >&2; exit 0 ;; esac
DIR=$ROOT/.kafka-run/node/$VERSION
NODE=$DIR/package/bin/node
if [[ ! -x $NODE ]]; then
  rm -rf "$DIR" && mkdir -p "$DIR"
  tgz=$(cd "$DIR" && npm pack --silent "node-linux-$ARCH@$VERSION")
  tar -xzf "$DIR/$tgz" -C "$DIR" package/bin/node package/package.json
  rm -f "$DIR/$tgz"
fi
echo "node-compat: $("$NODE" --version) at $NODE" >&2

# the unit suite, run by that Node (vitest's own entry point, no npx: npx would pick the system Node)
"$NODE" node_modules/vitest/vitest.mjs run --config vitest.config.ts "${@:2}"

[[ ${NODE_COMPAT_DEMO:-1} == 1 ]] || exit 0
# the demo scenario on its own cluster and run dir, with that Node first on PATH (scripts/demo.sh runs `node`)
export KAFKA_IT_RUN_DIR=$ROOT/.kafka-run/node-compat-demo
export KAFKA_IT_PORT_BASE=${NODE_COMPAT_PORT_BASE:-29190}
out=$(mktemp)
trap 'bash kafka-it/cluster.sh stop >/dev/null 2>&1 || true; rm -f "$out"' EXIT
PATH=$DIR/package/bin:$PATH bash scripts/demo.sh >"$out"
cat "$out"
# what a newcomer sees: the verdict, and the scenario's four bumps in the timeline (created, joined, metadata, left)
grep -q '^verdict: IN_SYNC' "$out" || { echo "node-compat: the demo's verdict is not IN_SYNC on Node $VERSION" >&2; exit 1; }
bumps=$(grep -Ec '│ *(-|[0-9]+) → [0-9]+ *│' "$out" || true)
[[ $bumps -ge 4 ]] || { echo "node-compat: the demo's timeline has $bumps bumps on Node $VERSION, expected 4" >&2; exit 1; }
echo "node-compat: unit suite and demo passed on Node $VERSION" >&2
