#!/usr/bin/env bash
# npm test: typecheck and lint, the unit tests, then the integration suite (real Kafka test cluster, kafka-it/cluster.sh) once per
# Kafka version in KAFKA_VERSIONS (default "4.4.0 4.1.2"; empty = unit tests only): every file on the first, the
# version-specific files (KAFKA_VERSION_FILES) on the others. Jars are resolved through Maven
# first. Exits non-zero if any suite fails; prints each suite's pass/fail summary and a closing
# "N passed, N failed" line. Then the fast parity pass (test/it/parity.it.test.ts alone) on the other supported
# Kafka minors, KAFKA_PARITY_VERSIONS (default "4.3.2 4.2.2 4.1.0": the newest patch of each minor, and 4.1.0, the first release with the metadata hash), and the unit suite plus the demo scenario on the
# current Node LTS, NODE_COMPAT_VERSIONS (default "26.12.1", a binary from the npm registry; empty = skip; a lane of the
# integration queue, run beside the suites). Kafka 4.0:
# KAFKA_40_VERSIONS (default "4.0.2") and the in-place upgrade to KAFKA_40_UPGRADE_TO (default "4.1.2"). A streams
# group's in-place upgrade KAFKA_41_UPGRADE ("FROM TO", default "4.1.2 4.4.0"; empty = skip).
#   KAFKA_VERSIONS="4.4.0" KAFKA_PARITY_VERSIONS= NODE_COMPAT_VERSIONS= npm test
#   KAFKA_IT_PORT_BASE=19400 npm test     (pin the ports; default: the first free range of 19300, 19330, ...)
#   KAFKA_IT_JOBS=1 npm test              (integration suites one after another; default 2 side by side)
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
ROOT=$PWD
VERSIONS=${KAFKA_VERSIONS-"4.4.0 4.1.2"}
PARITY_VERSIONS=${KAFKA_PARITY_VERSIONS-"4.3.2 4.2.2 4.1.0"}
NODE_VERSIONS=${NODE_COMPAT_VERSIONS-"26.12.1"}
OUT=$ROOT/.kafka-run/test-all
mkdir -p "$OUT"
t_all=$(date +%s)
summary=()
total_pass=0
total_fail=0
rc=0

# $1 = suite name, $2 = json report, $3 = exit code, $4 = seconds
record() {
  local name=$1 json=$2 code=$3 secs=$4 p=0 f=0 s=0
  if [[ -s $json ]]; then
    read -r p f s < <(node -e '
      const r = JSON.parse(require("fs").readFileSync(process.argv[1], "utf8"))
      console.log(r.numPassedTests ?? 0, r.numFailedTests ?? 0, (r.numPendingTests ?? 0) + (r.numTodoTests ?? 0))' "$json" 2>/dev/null || echo "0 0 0")
  fi
  if [[ $code -ne 0 && $f -eq 0 ]]; then f=1; fi # a failed setup (no cluster, no jars) counts as a failure
  total_pass=$((total_pass + p))
  total_fail=$((total_fail + f))
  local verdict=PASS
  [[ $code -eq 0 ]] || { verdict=FAIL; rc=1; }
  summary+=("$(printf '%-28s %s  %3d passed, %d failed, %d skipped  (%d s)' "$name" "$verdict" "$p" "$f" "$s" "$secs")")
  # CI keeps only the tail of the output: name each failed test there, with its first message line
  if [[ $f -gt 0 && -s $json ]]; then
    local failed
    failed=$(node -e '
      const r = JSON.parse(require("fs").readFileSync(process.argv[1], "utf8"))
      for (const file of r.testResults ?? []) {
        const at = require("path").relative(process.cwd(), file.name ?? "")
        if (file.status === "failed" && !(file.assertionResults ?? []).some(t => t.status === "failed"))
          console.log(`  ${at}: ${String(file.message ?? "").split("\n")[0].slice(0, 300)}`)
        for (const t of file.assertionResults ?? []) if (t.status === "failed")
          console.log(`  ${at} > ${t.fullName}: ${String((t.failureMessages ?? [])[0] ?? "").split("\n")[0].slice(0, 300)}`)
      }' "$json" 2>/dev/null)
    [[ -n $failed ]] && summary+=("$failed")
  fi
}

# ---- the integration suites (run after the unit tests, below): one real cluster per suite. Suites run side by side,
# KAFKA_IT_JOBS at a time (default 2; 1 = one after another), each slot on its own port ranges (KAFKA_IT_PORT_SLOT,
# test/it/lib/global-setup.ts) and run dir. A free slot takes the next suite in this order, about the longest first:
# the full suite per KAFKA_VERSIONS, the Node lanes, the 4.0 pass, the parity passes, the upgrades. Their output is
# printed whole, suite by suite, when all are done.
IT_JOBS=${KAFKA_IT_JOBS:-2}
# The first version of KAFKA_VERSIONS runs every file; the others run the files whose assertions rest on what differs
# between Kafka versions (record and metadata-record formats, the coordinator's write patterns and rules:
# docs/development.md, "Which files run on the second version", says why each is in or out), KAFKA_VERSION_FILES;
# set it empty to run every file on every version.
VERSION_FILES=${KAFKA_VERSION_FILES-"test/it/parity.it.test.ts test/it/schemas.it.test.ts test/it/error-codes.it.test.ts
test/it/offsets-decoder.it.test.ts test/it/records.it.test.ts test/it/consumer-groups.it.test.ts test/it/share-streams.it.test.ts
test/it/explain.it.test.ts test/it/impact.it.test.ts test/it/metadata-log.it.test.ts test/it/explain-brokers.it.test.ts
test/it/fencing.it.test.ts test/it/rebalance-cost.it.test.ts"}
it_names=() it_versions=() it_files=() it_env=() it_limits=()
for v in $VERSIONS; do
  if [[ ${#it_names[@]} -eq 0 || -z $VERSION_FILES ]]; then
    it_names+=("integration Kafka $v"); it_files+=("")
  else
    it_names+=("version files Kafka $v"); it_files+=("${VERSION_FILES//$'\n'/ }")
  fi
  it_versions+=("$v"); it_env+=(""); it_limits+=("${RD_IT_SUITE_LIMIT:-3000}")
done
# the unit suite and the demo scenario on other Node versions (scripts/node-compat.sh; its demo cluster has ports of
# its own): a lane of the queue too, right after the full suites. The queue is taken longest first, so that its end is
# the short lanes (~80-150 s each), which the two slots share, and not a 5-minute lane that one slot starts last
# (queued last, Node 26 ran alone for ~150 s after the 4.4.0 suite had finished: the rehearsal of 2026-12-06)
for n in $NODE_VERSIONS; do it_names+=("unit + demo on Node $n"); it_versions+=("node:$n"); it_files+=(""); it_env+=(""); it_limits+=("${RD_NODE_COMPAT_LIMIT:-1200}"); done
# Kafka 4.0 (no metadata hash: the coordinator's subscription-metadata rules), KAFKA_40_VERSIONS (default "4.0.2";
# 4.0.1 does not resolve from Maven Central; empty = skip): the parity pass and the 4.0 scenario on their own cluster.
# The schema check (test/it/schemas.it.test.ts: our schemas vs the version's jars) runs in every version's suite.
upgrades40=()
for v in ${KAFKA_40_VERSIONS-"4.0.2"}; do
  it_names+=("4.0 pass Kafka $v"); it_versions+=("$v"); it_files+=("test/it/parity.it.test.ts test/it/kafka40.it.test.ts test/it/schemas.it.test.ts"); it_env+=(""); it_limits+=("${RD_IT_LANE_LIMIT:-900}")
  # a group written under 4.0, then every broker restarted in place on KAFKA_40_UPGRADE_TO's jars (default 4.1.2;
  # empty = skip): on a cluster of its own, since it leaves that cluster on the other jars
  up=${KAFKA_40_UPGRADE_TO-"4.1.2"}
  [[ -n $up ]] && upgrades40+=("$v $up")
done
for v in $PARITY_VERSIONS; do it_names+=("parity pass Kafka $v"); it_versions+=("$v"); it_files+=("test/it/parity.it.test.ts test/it/schemas.it.test.ts"); it_env+=(""); it_limits+=("${RD_IT_LANE_LIMIT:-900}"); done
for vu in ${upgrades40[@]+"${upgrades40[@]}"}; do
  read -r v up <<<"$vu"
  it_names+=("4.0 -> $up upgrade"); it_versions+=("$v"); it_files+=("test/it/upgrade40.it.test.ts"); it_env+=("KAFKA_UPGRADE_TO=$up"); it_limits+=("${RD_IT_LANE_LIMIT:-900}")
done
# a streams group written under 4.1 (which stores neither its validated topology epoch nor its assignment configs),
# then every broker restarted in place on 4.2+ jars: the one bump that records them (test/it/upgrade41.it.test.ts)
read -r up41_from up41_to <<<"${KAFKA_41_UPGRADE-"4.1.2 4.4.0"}"
[[ -n ${up41_to:-} ]] && { it_names+=("$up41_from -> $up41_to streams upgrade"); it_versions+=("$up41_from"); it_files+=("test/it/upgrade41.it.test.ts"); it_env+=("KAFKA_UPGRADE_TO=$up41_to"); it_limits+=("${RD_IT_LANE_LIMIT:-900}"); }
# Their jars and drivers (Maven, javac: ~6 s a version, ~40 s in all on a fresh clone) are fetched in the background
# from here, beside the static checks (not the unit tests: below), one version after another (Maven's local repository
# is shared). A failure is reported by the suite's own `cluster.sh libs` call.
libs_pid=""
if [[ ${#it_names[@]} -gt 0 ]]; then
  for v in $(printf '%s\n' "${it_versions[@]}" | grep -v '^node:' | sort -u); do KAFKA_VERSION=$v bash kafka-it/cluster.sh libs >/dev/null 2>&1; done &
  libs_pid=$!
fi

# ---- static checks: tsc over src, test and scripts (tsconfig.check.json), then Biome (lint and format, `biome ci`)
t0=$(date +%s)
echo "=== typecheck and lint ==="
npm run --silent typecheck && npm run --silent lint
record "typecheck + lint" "" $? $(($(date +%s) - t0))

# ---- unit tests, the two vitest projects apart so that each one's time shows (fast: in-process against src/, the
# edit-test loop of `npm run test:unit`; slow: the built CLI spawned, fuzzers, long equivalence runs). One worker per
# core (RD_UNIT_WORKERS): vitest's default, cores - 1, is one worker on 2 cores, which ran every file one after
# another with a core idle (the fast files wait on their imports, the slow ones on the CLIs they spawn). The Node lanes
# of the queue keep vitest's default: they run beside clusters.
for project in fast slow; do
  # the unit projects run alone: the jar download and the drivers' javac (~100 CPU-s for 7 versions on a fresh clone)
  # beside the fast project stretched it from ~70 s to 225 s (the rehearsal of 2026-12-06); beside the static checks
  # (one core) they cost little. The slow project's CLIs have deadlines of their own besides.
  [[ -n $libs_pid ]] && { wait "$libs_pid"; libs_pid=""; }
  t0=$(date +%s)
  rm -f "$OUT/unit-$project.json"
  timeout -k 30 "${RD_UNIT_LIMIT:-900}" \
    npx vitest run --config vitest.config.ts --project "$project" --maxWorkers="${RD_UNIT_WORKERS:-$(nproc)}" \
    --reporter=default --reporter=json --outputFile.json="$OUT/unit-$project.json"
  code=$?
  [[ $code -eq 124 || $code -eq 137 ]] && echo "=== unit ($project): TIMED OUT after ${RD_UNIT_LIMIT:-900} s (RD_UNIT_LIMIT) ==="
  record "unit ($project)" "$OUT/unit-$project.json" "$code" $(($(date +%s) - t0))
done

next_suite() { # prints the next suite index (the queue is a counter file under a lock)
  (
    flock 8
    local n
    n=$(cat "$OUT/it-queue")
    echo $((n + 1)) >"$OUT/it-queue"
    echo "$n"
  ) 8>"$OUT/it-queue.lock"
}
# A suite that hangs (a stuck teardown, a synchronous loop: vitest's own timeouts cannot end those) must fail as
# itself, named, with its log, and leave time for the others, not run into CI's 90-minute limit unnamed. Limits are
# about twice the slowest time seen (a full suite ~1,700 s on a slow day, a lane ~250 s).
# the clusters a killed suite left running: the run dirs of version $1 on slot $2's port ranges (global-setup.ts)
stop_slot_clusters() {
  local d p k
  for d in "$ROOT"/.kafka-run/"$1"-*; do
    p=${d##*-}
    [[ -d $d && $p =~ ^[0-9]+$ ]] || continue
    if [[ -n ${KAFKA_IT_PORT_BASE:-} ]]; then
      [[ $p -eq $((KAFKA_IT_PORT_BASE + 30 * $2)) ]] || continue
    else
      k=$(((p - 19300) / 30))
      [[ $((k % IT_JOBS)) -eq $2 ]] || continue
    fi
    KAFKA_IT_RUN_DIR=$d KAFKA_VERSION=$1 bash kafka-it/cluster.sh stop || true
  done
}
# $1 = suite index, $2 = slot; writes it-N.log and it-N.rc ("exit-code seconds")
integration() {
  local i=$1 slot=$2 v=${it_versions[$1]} t0 code base=()
  t0=$(date +%s)
  if [[ $v == node:* ]]; then
    rm -f "$OUT/it-$i.json"
    {
      echo "=== unit suite and demo on Node ${v#node:} ==="
      timeout -k 30 "${it_limits[$i]}" bash scripts/node-compat.sh "${v#node:}" --reporter=default --reporter=json --outputFile.json="$OUT/it-$i.json"
      code=$?
      [[ $code -eq 124 || $code -eq 137 ]] && echo "=== Node ${v#node:}: TIMED OUT after ${it_limits[$i]} s (RD_NODE_COMPAT_LIMIT) ==="
    } >"$OUT/it-$i.log" 2>&1
    echo "$code $(($(date +%s) - t0))" >"$OUT/it-$i.rc"
    return
  fi
  rm -f "$OUT/it-$i.json" "$ROOT/.kafka-run/it-summary-$v.json"
  [[ -n ${KAFKA_IT_PORT_BASE:-} ]] && base=(KAFKA_IT_PORT_BASE=$((KAFKA_IT_PORT_BASE + 30 * slot)))
  {
    echo "=== ${it_names[$i]} ==="
    if ! KAFKA_VERSION=$v bash kafka-it/cluster.sh libs; then
      echo "resolving Kafka $v jars (Maven) or compiling the drivers failed" >&2
      code=1
    else
      # shellcheck disable=SC2086 # it_files[i] is empty (every file) or paths split on spaces
      # shellcheck disable=SC2086 # it_env[i] is empty or one NAME=VALUE
      env ${base[@]+"${base[@]}"} ${it_env[$i]} KAFKA_VERSION="$v" KAFKA_IT_PORT_SLOT="$slot/$IT_JOBS" RD_IT_DIST_BUILT=1 \
        timeout -k 30 "${it_limits[$i]}" \
        npx vitest run --config vitest.it.config.ts --reporter=default --reporter=json --outputFile.json="$OUT/it-$i.json" ${it_files[$i]}
      code=$?
      if [[ $code -eq 124 || $code -eq 137 ]]; then
        echo "=== ${it_names[$i]}: TIMED OUT after ${it_limits[$i]} s (RD_IT_SUITE_LIMIT / RD_IT_LANE_LIMIT); the log above ends where it hung ==="
        stop_slot_clusters "$v" "$slot"
      fi
    fi
  } >"$OUT/it-$i.log" 2>&1
  echo "$code $(($(date +%s) - t0))" >"$OUT/it-$i.rc"
}
if [[ ${#it_names[@]} -gt 0 ]]; then
  t0=$(date +%s)
  # the CLI the suites run: compiled once, when a source is newer than dist/ (npm ci builds it, and the slow unit
  # project's setup compiles a stale one: test/setup/build-if-stale.ts; tsc emits despite type errors, what runs must exist)
  built=dist/commands/cluster/snapshot.js
  if [[ ! -f $built || -n $(find src tsconfig.json -newer "$built" \( -name '*.ts' -o -name tsconfig.json \) -print -quit) ]]; then
    npx tsc -p tsconfig.json >"$OUT/it-build.log" 2>&1 || [[ -f dist/commands/cluster/snapshot.js ]] || { cat "$OUT/it-build.log"; rc=1; }
  fi
  rm -f "$OUT"/it-[0-9]*.log "$OUT"/it-[0-9]*.rc
  [[ -n $libs_pid ]] && wait "$libs_pid" # the jars and drivers (above), if not yet waited for
  pids=()
  echo 0 >"$OUT/it-queue"
  for ((slot = 0; slot < IT_JOBS && slot < ${#it_names[@]}; slot++)); do
    (while i=$(next_suite) && [[ $i -lt ${#it_names[@]} ]]; do integration "$i" "$slot"; done) &
    pids+=($!)
  done
  echo "=== integration: ${#it_names[@]} suites, $IT_JOBS at a time (output below when all are done) ==="
  wait "${pids[@]}"
  for ((i = 0; i < ${#it_names[@]}; i++)); do
    cat "$OUT/it-$i.log" 2>/dev/null
    read -r code secs <"$OUT/it-$i.rc" 2>/dev/null || { code=1; secs=0; }
    record "${it_names[$i]}" "$OUT/it-$i.json" "$code" "$secs"
  done
  echo "integration wall time: $(($(date +%s) - t0)) s"
fi

echo
echo "=== summary ($(($(date +%s) - t_all)) s) ==="
for line in "${summary[@]}"; do echo "$line"; done
for v in $VERSIONS $PARITY_VERSIONS ${KAFKA_40_VERSIONS-"4.0.2"}; do
  f=$ROOT/.kafka-run/it-summary-$v.json
  [[ -f $f ]] && echo "cluster $v: $(tr -d '\n ' <"$f")"
done
echo "$total_pass passed, $total_fail failed"
exit $rc
