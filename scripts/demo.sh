#!/usr/bin/env bash
# The newcomer's main job on something real: starts a local Kafka test cluster (1 controller + 3 brokers with
# racks, jars from Maven Central), runs a small consumer-group scenario with Kafka's own Java consumer (two members
# join, a topic gains partitions, a member leaves), then shows `rebalance-doctor group explain` on it.
#   npm run demo            (KAFKA_VERSION=4.1.2 npm run demo for another Kafka)
#   npm run demo:stop       stops the demo cluster and removes its data
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
export KAFKA_IT_PORT_BASE=${KAFKA_IT_PORT_BASE:-29090}
# one run dir whatever the Kafka version, so that `npm run demo:stop` always finds the demo cluster
export KAFKA_IT_RUN_DIR=${KAFKA_IT_RUN_DIR:-$PWD/.kafka-run/demo}
GROUP=${DEMO_GROUP:-demo-orders}
CLI=(node bin/run.js)
say() { printf '\n\033[1m== %s\033[0m\n' "$*" >&2; }

[[ -f dist/commands/group/explain.js ]] || npm run build >&2
say "starting the demo cluster (Kafka ${KAFKA_VERSION:-4.4.0}; first run resolves the jars through Maven)"
BOOTSTRAP=$(bash kafka-it/cluster.sh start | tail -n 1)
echo "bootstrap: $BOOTSTRAP" >&2

# The Java driver keeps the consumers alive while we send it commands through a FIFO.
FIFO=$(mktemp -u)
mkfifo "$FIFO"
bash kafka-it/cluster.sh driver <"$FIFO" >/tmp/rebalance-doctor-demo-driver.log 2>&1 &
DRIVER=$!
exec 3>"$FIFO"
cleanup() { echo quit >&3 2>/dev/null || true; exec 3>&-; wait "$DRIVER" 2>/dev/null || true; rm -f "$FIFO"; }
trap cleanup EXIT
send() { echo "$*" >&3; }

say "creating topics orders (3 partitions) and payments (2), replicas on racks rack-a, rack-a, rack-b"
send "create-topic orders 3 3"
send "create-topic payments 2 3"
say "member one joins group $GROUP (orders, payments); member two joins (orders)"
send "consumer one $GROUP names orders,payments"
sleep 8
send "consumer two $GROUP names orders"
sleep 8
say "orders grows to 6 partitions: the metadata hash changes, the group rebalances"
send "add-partitions orders 6"
sleep 8
say "member two leaves"
send "stop two"
sleep 6

say "rebalance-doctor group explain $GROUP --bootstrap-server $BOOTSTRAP"
"${CLI[@]}" group explain "$GROUP" --bootstrap-server "$BOOTSTRAP"
say "rebalance-doctor topic-hash compute orders payments --bootstrap-server $BOOTSTRAP"
"${CLI[@]}" topic-hash compute orders payments --bootstrap-server "$BOOTSTRAP"
cat >&2 <<TXT

Try more on the running cluster:
  node bin/run.js group records $GROUP -b $BOOTSTRAP --exclude-offset-commits
  node bin/run.js cluster snapshot -b $BOOTSTRAP --output cluster.json
Stop it with: npm run demo:stop
TXT
