#!/usr/bin/env bash
# A real Apache Kafka KRaft test cluster from Maven Central jars: 1 controller (node 100) + 3 brokers
# (nodes 1, 2, 3; broker.rack rack-a, rack-a, rack-b) on 127.0.0.1.
#
#   kafka-it/cluster.sh libs                 resolve jars (Maven) and compile the Java drivers, once per version
#   kafka-it/cluster.sh start                format + start, wait until all brokers are unfenced; prints BOOTSTRAP
#   kafka-it/cluster.sh stop                 kill -9 the pids this run dir started, remove the run dir
#   kafka-it/cluster.sh status               per-node state, RSS and peak RSS (VmHWM)
#   kafka-it/cluster.sh kill-broker N        kill -9 broker N (it becomes fenced after broker.session.timeout.ms)
#   kafka-it/cluster.sh start-broker N [--rack R]   (re)start broker N, optionally with another broker.rack
#   kafka-it/cluster.sh tool CLASS ARGS...   run a Kafka tool class (kafka.tools.DumpLogSegments, ...) with the libs
#   kafka-it/cluster.sh driver [CMD ARGS...] the Java test driver (no CMD: line protocol on stdin/stdout)
#
# Environment:
#   KAFKA_VERSION       default 4.4.0 (4.1.x gets the unstable/share/streams deltas)
#   KAFKA_IT_PORT_BASE  default 19090; the cluster uses PORT_BASE .. PORT_BASE+26 (keep bases >= 30 apart)
#   KAFKA_IT_RUN_DIR    default <repo>/.kafka-run/<version>-<portbase>
#   KAFKA_IT_LIBS       default <repo>/.kafka-libs/<version>
# Ports: controller BASE; broker N: PLAINTEXT BASE+N, OIDC (SASL_PLAINTEXT, OAUTHBEARER checked against a JWKS) BASE+23+N,
# SASL_SSL BASE+10+N (SCRAM-SHA-256/512, PLAIN, OAUTHBEARER
# with unsecured JWTs), SSL (mTLS) BASE+20+N.
set -euo pipefail

IT_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$IT_DIR/.." && pwd)
KV=${KAFKA_VERSION:-4.4.0}
PB=${KAFKA_IT_PORT_BASE:-19090}
RUN=${KAFKA_IT_RUN_DIR:-$ROOT/.kafka-run/$KV-$PB}
LIBS=${KAFKA_IT_LIBS:-$ROOT/.kafka-libs/$KV}
CLASSES=$ROOT/.kafka-it/classes/$KV
BROKERS=(1 2 3)
declare -A RACK=([1]=rack-a [2]=rack-a [3]=rack-b)
CTRL_ID=100
OFFSETS_PARTITIONS=5

log() { echo "[cluster.sh $KV@$PB] $*" >&2; }
die() { log "ERROR: $*"; exit 1; }
now_ms() { date +%s%3N; }

ctrl_port() { echo $((PB)); }
plain_port() { echo $((PB + $1)); }
sasl_port() { echo $((PB + 10 + $1)); }
ssl_port() { echo $((PB + 20 + $1)); }
oidc_port() { echo $((PB + 23 + $1)); }

JAVA_TOOL=(java -Xms64m -Xmx256m -XX:+UseSerialGC -XX:TieredStopAtLevel=1 -Xshare:auto
  -Dlog4j2.configurationFile="$IT_DIR/config/tools-log4j2.properties")

# ---------------------------------------------------------------- jars and drivers
resolve_libs() {
  [[ -f "$LIBS/.ok" ]] && return 0
  mkdir -p "$ROOT/.kafka-libs"
  (
    flock 9
    [[ -f "$LIBS/.ok" ]] && exit 0
    local t0 tmp
    t0=$(now_ms)
    tmp="$LIBS.tmp.$$"
    rm -rf "$tmp"
    log "resolving Kafka $KV jars with Maven into $LIBS"
    mvn -B -q -f "$IT_DIR/pom.xml" -Dkafka.version="$KV" dependency:copy-dependencies \
      -DincludeScope=runtime -DoutputDirectory="$tmp" >&2 || { rm -rf "$tmp"; die "maven failed for $KV"; }
    ls "$tmp"/kafka_2.13-"$KV".jar >/dev/null || die "kafka_2.13-$KV.jar missing after resolve"
    rm -rf "$LIBS"
    mv "$tmp" "$LIBS"
    touch "$LIBS/.ok"
    log "resolved $(ls "$LIBS" | wc -l) jars in $(($(now_ms) - t0)) ms"
  ) 9>"$ROOT/.kafka-libs/.lock-$KV"
}

compile_drivers() {
  local sum
  sum=$(cat "$IT_DIR"/java/*.java | sha256sum | cut -c1-16)
  [[ -f "$CLASSES/.src-$sum" ]] && return 0
  mkdir -p "$ROOT/.kafka-it/classes"
  (
    flock 9
    [[ -f "$CLASSES/.src-$sum" ]] && exit 0
    local t0 tmp
    t0=$(now_ms)
    tmp="$CLASSES.tmp.$$"
    rm -rf "$tmp"
    mkdir -p "$tmp"
    javac -nowarn -encoding UTF-8 -cp "$LIBS/*" -d "$tmp" "$IT_DIR"/java/*.java >&2 || { rm -rf "$tmp"; die "javac failed"; }
    touch "$tmp/.src-$sum"
    rm -rf "$CLASSES"
    mv "$tmp" "$CLASSES"
    log "compiled drivers for $KV in $(($(now_ms) - t0)) ms"
  ) 9>"$ROOT/.kafka-it/classes/.lock-$KV"
}

dump_log_class() { # moved from core (Scala) to tools (Java) in 4.4 (4.2/4.3 not checked: looked up in the jar)
  if unzip -Z1 "$LIBS/kafka-tools-$KV.jar" org/apache/kafka/tools/DumpLogSegments.class >/dev/null 2>&1; then
    echo org.apache.kafka.tools.DumpLogSegments
  else
    echo kafka.tools.DumpLogSegments
  fi
}

# ---------------------------------------------------------------- pids
pid_alive() { # $1 = node name; alive and really ours (command line names our run dir)
  local f="$RUN/pids/$1.pid" pid
  [[ -f "$f" ]] || return 1
  pid=$(cat "$f")
  [[ -r /proc/$pid/cmdline ]] || return 1
  tr '\0' ' ' </proc/"$pid"/cmdline | grep -qF -- "$RUN" || return 1
}

kill_node() { # $1 = node name
  local f="$RUN/pids/$1.pid" pid i
  [[ -f "$f" ]] || return 0
  pid=$(cat "$f")
  if pid_alive "$1"; then
    kill -9 "$pid" 2>/dev/null || true
    for i in $(seq 1 100); do [[ -e /proc/$pid ]] || break; sleep 0.05; done
  fi
  rm -f "$f"
}

# ---------------------------------------------------------------- config
common_props() {
  cat <<EOF
controller.listener.names=CONTROLLER
controller.quorum.voters=$CTRL_ID@127.0.0.1:$(ctrl_port)
listener.security.protocol.map=CONTROLLER:PLAINTEXT,PLAINTEXT:PLAINTEXT,SASL_SSL:SASL_SSL,SSL:SSL,OIDC:SASL_PLAINTEXT
broker.session.timeout.ms=5000
broker.heartbeat.interval.ms=1000
num.network.threads=2
num.io.threads=2
background.threads=2
num.recovery.threads.per.data.dir=1
# authorizer: PLAINTEXT clients (ANONYMOUS: brokers, test drivers, tools) and the SCRAM user admin are super users
authorizer.class.name=org.apache.kafka.metadata.authorizer.StandardAuthorizer
super.users=User:ANONYMOUS;User:admin
allow.everyone.if.no.acl.found=true
# lets one group batch its assignments for up to 60 s (group configs consumer/share/streams.assignment.interval.ms;
# 4.4 has them, 4.1 ignores the keys): the assignment-pending integration test. Groups without the group config keep
# the 1 s default. On the controller too: it validates group configs against these bounds.
group.consumer.max.assignment.interval.ms=60000
group.share.max.assignment.interval.ms=60000
group.streams.max.assignment.interval.ms=60000
# frequent KRaft metadata snapshots and segment rolls, so the metadata-log test reads a log whose oldest segments
# are deleted after a snapshot once a suite has run 10 min (cheap: the metadata is small)
metadata.log.max.snapshot.interval.ms=10000
metadata.log.segment.ms=15000
metadata.max.retention.ms=600000
EOF
  if [[ $KV == 4.1.* ]]; then
    echo "unstable.feature.versions.enable=true"
  fi
}

write_controller_props() {
  {
    echo "process.roles=controller"
    echo "node.id=$CTRL_ID"
    echo "listeners=CONTROLLER://127.0.0.1:$(ctrl_port)"
    echo "log.dirs=$RUN/c$CTRL_ID/data"
    # the controller validates group configs against its own bounds (default minimum 45 s): the brokers' minimum,
    # so that a group config may set a session timeout below 45 s (the audit integration test: 30 s)
    echo "group.consumer.min.session.timeout.ms=6000"
    common_props
  } >"$RUN/c$CTRL_ID.properties"
}

write_broker_props() { # $1 = id, $2 = rack
  local n=$1 rack=$2
  {
    echo "process.roles=broker"
    echo "node.id=$n"
    echo "broker.rack=$rack"
    echo "listeners=PLAINTEXT://127.0.0.1:$(plain_port "$n"),SASL_SSL://127.0.0.1:$(sasl_port "$n"),SSL://127.0.0.1:$(ssl_port "$n"),OIDC://127.0.0.1:$(oidc_port "$n")"
    echo "advertised.listeners=PLAINTEXT://127.0.0.1:$(plain_port "$n"),SASL_SSL://127.0.0.1:$(sasl_port "$n"),SSL://127.0.0.1:$(ssl_port "$n"),OIDC://127.0.0.1:$(oidc_port "$n")"
    echo "log.dirs=$RUN/b$n/data"
    cat <<EOF
inter.broker.listener.name=PLAINTEXT
# TLS (PEM files made at start time in \$RUN_DIR/tls)
ssl.keystore.type=PEM
ssl.keystore.location=$RUN/tls/broker-keystore.pem
ssl.truststore.type=PEM
ssl.truststore.location=$RUN/tls/ca.pem
listener.name.ssl.ssl.client.auth=required
sasl.enabled.mechanisms=SCRAM-SHA-256,SCRAM-SHA-512,PLAIN,OAUTHBEARER
listener.name.sasl_ssl.scram-sha-256.sasl.jaas.config=org.apache.kafka.common.security.scram.ScramLoginModule required ;
listener.name.sasl_ssl.scram-sha-512.sasl.jaas.config=org.apache.kafka.common.security.scram.ScramLoginModule required ;
# PLAIN: the users are the user_<name>="<password>" options (PlainServerCallbackHandler, the default for PLAIN)
listener.name.sasl_ssl.plain.sasl.jaas.config=org.apache.kafka.common.security.plain.PlainLoginModule required user_carol="carol-secret";
# OAUTHBEARER: with no sasl.server.callback.handler.class, SaslChannelBuilder validates with
# OAuthBearerUnsecuredValidatorCallbackHandler (4.1.2 and 4.4.0 alike): unsecured JWTs (alg none) with a sub and an
# exp claim, any principal. The broker's own login on this listener makes an unsecured token from
# unsecuredLoginStringClaim_sub (it is not used: inter-broker traffic is PLAINTEXT). Test clusters only.
listener.name.sasl_ssl.oauthbearer.sasl.jaas.config=org.apache.kafka.common.security.oauthbearer.OAuthBearerLoginModule required unsecuredLoginStringClaim_sub="broker";
# OIDC (SASL_PLAINTEXT, OAUTHBEARER only): tokens validated by Kafka's own OIDC validator, RS256 signatures checked
# against the JWKS file made at start (\$RUN_DIR/oidc; the JVM's org.apache.kafka.sasl.oauthbearer.allowed.urls
# names it), audience rebalance-doctor-it, issuer https://idp.rebalance-doctor.test (4.4 requires one); a session lasts until the token expires (connections.max.reauth.ms > 0:
# the broker closes a connection on its first request after that). The unsecured sub is the listener's own login.
listener.name.oidc.sasl.enabled.mechanisms=OAUTHBEARER
listener.name.oidc.oauthbearer.sasl.jaas.config=org.apache.kafka.common.security.oauthbearer.OAuthBearerLoginModule required unsecuredLoginStringClaim_sub="broker";
listener.name.oidc.oauthbearer.sasl.server.callback.handler.class=org.apache.kafka.common.security.oauthbearer.OAuthBearerValidatorCallbackHandler
listener.name.oidc.oauthbearer.connections.max.reauth.ms=3600000
sasl.oauthbearer.jwks.endpoint.url=file:$RUN/oidc/jwks.json
sasl.oauthbearer.expected.audience=rebalance-doctor-it
sasl.oauthbearer.expected.issuer=https://idp.rebalance-doctor.test
# small internal topics, RF 3
offsets.topic.num.partitions=$OFFSETS_PARTITIONS
offsets.topic.replication.factor=3
transaction.state.log.num.partitions=5
transaction.state.log.replication.factor=3
transaction.state.log.min.isr=1
share.coordinator.state.topic.num.partitions=5
share.coordinator.state.topic.replication.factor=3
share.coordinator.state.topic.min.isr=1
num.partitions=1
default.replication.factor=1
min.insync.replicas=1
auto.create.topics.enable=false
# fast groups
group.initial.rebalance.delay.ms=0
group.consumer.min.session.timeout.ms=6000
group.consumer.session.timeout.ms=10000
group.consumer.min.heartbeat.interval.ms=500
group.consumer.heartbeat.interval.ms=1000
group.share.min.session.timeout.ms=6000
group.share.session.timeout.ms=10000
group.share.min.heartbeat.interval.ms=500
group.share.heartbeat.interval.ms=1000
group.streams.min.session.timeout.ms=6000
group.streams.session.timeout.ms=10000
group.streams.min.heartbeat.interval.ms=500
group.streams.heartbeat.interval.ms=1000
group.streams.initial.rebalance.delay.ms=0
# 2-core economy
group.coordinator.threads=1
share.coordinator.threads=1
num.replica.fetchers=1
log.cleaner.threads=1
log.cleaner.dedupe.buffer.size=16777216
EOF
    common_props
    if [[ $KV == 4.0.* ]]; then
      # Kafka 4.0's share groups are early access: on with the share protocol and the unstable API versions (the
      # Share* APIs are v0 and unstable in 4.0.2's JSON; no other API changes), as an operator trying them would do.
      echo "unstable.api.versions.enable=true"
      echo "group.coordinator.rebalance.protocols=classic,consumer,share"
    fi
    if [[ $KV == 4.1.* ]]; then
      echo "unstable.api.versions.enable=true"
      # The coordinator writes zstd-compressed __consumer_offsets batches on 4.1 (GroupCoordinatorConfig's
      # offsets.topic.compression.codec: an int, CompressionType id, 4 = zstd; 4.4 keeps the default 0 = none), so
      # the whole 4.1.2 suite reads zstd batches and the 4.4.0 suite uncompressed ones.
      echo "offsets.topic.compression.codec=4"
    fi
  } >"$RUN/b$n.properties"
}

make_tls() {
  local d="$RUN/tls"
  mkdir -p "$d"
  (
    cd "$d"
    openssl req -x509 -newkey rsa:2048 -nodes -keyout ca-key.pem -out ca.pem -days 7 \
      -subj "/CN=rebalance-doctor test CA" \
      -addext "basicConstraints=critical,CA:TRUE" -addext "keyUsage=critical,keyCertSign,cRLSign" 2>/dev/null
    printf 'subjectAltName=IP:127.0.0.1,DNS:localhost\nbasicConstraints=CA:FALSE\nkeyUsage=digitalSignature,keyEncipherment\nextendedKeyUsage=serverAuth,clientAuth\n' >server.ext
    openssl req -newkey rsa:2048 -nodes -keyout broker-key.pem -out broker.csr -subj "/CN=broker" 2>/dev/null
    openssl x509 -req -in broker.csr -CA ca.pem -CAkey ca-key.pem -CAcreateserial -out broker-cert.pem -days 7 \
      -extfile server.ext 2>/dev/null
    cat broker-key.pem broker-cert.pem ca.pem >broker-keystore.pem
    printf 'basicConstraints=CA:FALSE\nkeyUsage=digitalSignature,keyEncipherment\nextendedKeyUsage=clientAuth\n' >client.ext
    openssl req -newkey rsa:2048 -nodes -keyout client-key.pem -out client.csr -subj "/CN=rd-client" 2>/dev/null
    openssl x509 -req -in client.csr -CA ca.pem -CAkey ca-key.pem -CAcreateserial -out client-cert.pem -days 7 \
      -extfile client.ext 2>/dev/null
    cat client-key.pem client-cert.pem >client-keystore.pem
    rm -f ./*.csr ./*.srl
  )
}

# The OIDC listener's signing key: an RSA key pair (node:crypto), the private key for the tests to sign tokens with,
# the public key as the JWKS file the brokers read.
make_oidc_keys() {
  mkdir -p "$RUN/oidc"
  node -e '
    const c = require("node:crypto"), fs = require("node:fs"), d = process.argv[1]
    const {publicKey, privateKey} = c.generateKeyPairSync("rsa", {modulusLength: 2048})
    fs.writeFileSync(d + "/private-key.pem", privateKey.export({type: "pkcs8", format: "pem"}))
    const jwk = {...publicKey.export({format: "jwk"}), kid: "rd-it", alg: "RS256", use: "sig"}
    fs.writeFileSync(d + "/jwks.json", JSON.stringify({keys: [jwk]}))
  ' "$RUN/oidc"
}

# ---------------------------------------------------------------- processes
start_node() { # $1 = node name (c100, b1..b3), $2 = heap
  local name=$1 heap=$2
  mkdir -p "$RUN/pids" "$RUN/$name/logs"
  [[ -f "$RUN/$name.out" ]] && mv -f "$RUN/$name.out" "$RUN/$name.out.$(date +%s%N)"
  nohup java -Xms"$heap" -Xmx"$heap" -XX:+UseSerialGC -XX:TieredStopAtLevel=1 -Xss512k \
    -XX:MaxMetaspaceSize=256m -Djava.awt.headless=true \
    -Dlog4j2.configurationFile="$IT_DIR/config/log4j2.properties" -Dkafka.logs.dir="$RUN/$name/logs" \
    -Dkafka.it.run.dir="$RUN" -Dorg.apache.kafka.sasl.oauthbearer.allowed.urls="file:$RUN/oidc/jwks.json" \
    -cp "$LIBS/*" kafka.Kafka "$RUN/$name.properties" >"$RUN/$name.out" 2>&1 </dev/null &
  echo $! >"$RUN/pids/$name.pid"
}

wait_broker_running() { # $1 = broker id, $2 = timeout s
  local n=$1 t=${2:-120} i
  for ((i = 0; i < t * 4; i++)); do
    grep -q 'Transitioning from RECOVERY to RUNNING' "$RUN/b$n.out" 2>/dev/null && return 0
    pid_alive "b$n" || { tail -40 "$RUN/b$n.out" >&2; die "broker $n exited during startup"; }
    sleep 0.25
  done
  tail -40 "$RUN/b$n.out" >&2
  die "broker $n not RUNNING after ${t}s"
}

check_ports_free() {
  local p ports=("$(ctrl_port)")
  for n in "${BROKERS[@]}"; do ports+=("$(plain_port "$n")" "$(sasl_port "$n")" "$(ssl_port "$n")" "$(oidc_port "$n")"); done
  for p in "${ports[@]}"; do
    if [[ -n $(ss -ltnH "sport = :$p" 2>/dev/null) ]]; then
      die "port $p is in use (another cluster? set KAFKA_IT_PORT_BASE, or run stop with its KAFKA_IT_RUN_DIR)"
    fi
  done
}

any_alive() {
  local f
  for f in "$RUN"/pids/*.pid; do [[ -e $f ]] || continue; pid_alive "$(basename "$f" .pid)" && return 0; done
  return 1
}

write_env() { # a file of this process's own, then renamed: two start-broker calls may run at once
  local f="$RUN/cluster.env" n
  {
    echo "# written by kafka-it/cluster.sh start; test-only credentials"
    echo "KAFKA_VERSION=$KV"
    echo "PORT_BASE=$PB"
    echo "RUN_DIR=$RUN"
    echo "LIBS=$LIBS"
    echo "DRIVER_CLASSES=$CLASSES"
    echo "IT_DIR=$IT_DIR"
    echo "CLUSTER_ID=$CID"
    echo "BOOTSTRAP=127.0.0.1:$(plain_port 1),127.0.0.1:$(plain_port 2),127.0.0.1:$(plain_port 3)"
    echo "BOOTSTRAP_SASL_SSL=127.0.0.1:$(sasl_port 1),127.0.0.1:$(sasl_port 2),127.0.0.1:$(sasl_port 3)"
    echo "BOOTSTRAP_SSL=127.0.0.1:$(ssl_port 1),127.0.0.1:$(ssl_port 2),127.0.0.1:$(ssl_port 3)"
    echo "BOOTSTRAP_OIDC=127.0.0.1:$(oidc_port 1),127.0.0.1:$(oidc_port 2),127.0.0.1:$(oidc_port 3)"
    echo "OIDC_PRIVATE_KEY_PEM=$RUN/oidc/private-key.pem"
    echo "OIDC_KEY_ID=rd-it"
    echo "OIDC_AUDIENCE=rebalance-doctor-it"
    echo "OIDC_ISSUER=https://idp.rebalance-doctor.test"
    echo "BOOTSTRAP_CONTROLLER=127.0.0.1:$(ctrl_port)"
    echo "OFFSETS_TOPIC_PARTITIONS=$OFFSETS_PARTITIONS"
    echo "DUMP_LOG_SEGMENTS_CLASS=$(dump_log_class)"
    echo "CA_PEM=$RUN/tls/ca.pem"
    echo "CLIENT_CERT_PEM=$RUN/tls/client-cert.pem"
    echo "CLIENT_KEY_PEM=$RUN/tls/client-key.pem"
    echo "CLIENT_KEYSTORE_PEM=$RUN/tls/client-keystore.pem"
    echo "SASL_MECHANISMS=SCRAM-SHA-256,SCRAM-SHA-512,PLAIN,OAUTHBEARER"
    echo "SCRAM_ADMIN_USER=admin"
    echo "SCRAM_ADMIN_PASSWORD=admin-secret"
    echo "SCRAM_USER=alice"
    echo "SCRAM_PASSWORD=alice-secret"
    echo "SCRAM_RESTRICTED_USER=bob"
    echo "SCRAM_RESTRICTED_PASSWORD=bob-secret"
    echo "SCRAM_DESCRIBE_ONLY_USER=dave"
    echo "SCRAM_DESCRIBE_ONLY_PASSWORD=dave-secret"
    echo "PLAIN_USER=carol"
    echo "PLAIN_PASSWORD=carol-secret"
    echo "RESTRICTED_TOPIC_PREFIX=private-"
    echo "CONTROLLER_ID=$CTRL_ID"
    echo "CONTROLLER_PID=$(cat "$RUN/pids/c$CTRL_ID.pid")"
    echo "CONTROLLER_PORT=$(ctrl_port)"
    echo "CONTROLLER_LOG_DIR=$RUN/c$CTRL_ID/data"
    echo "BROKER_IDS=${BROKERS[*]}"
    for n in "${BROKERS[@]}"; do
      echo "BROKER_${n}_PID=$(cat "$RUN/pids/b$n.pid" 2>/dev/null || echo)"
      echo "BROKER_${n}_PORT=$(plain_port "$n")"
      echo "BROKER_${n}_SASL_SSL_PORT=$(sasl_port "$n")"
      echo "BROKER_${n}_SSL_PORT=$(ssl_port "$n")"
      echo "BROKER_${n}_OIDC_PORT=$(oidc_port "$n")"
      echo "BROKER_${n}_RACK=$(sed -n 's/^broker.rack=//p' "$RUN/b$n.properties")"
      echo "BROKER_${n}_LOG_DIR=$RUN/b$n/data"
      echo "BROKER_${n}_OUT=$RUN/b$n.out"
    done
    echo "START_MS=${START_MS:-}"
  } >"$f.tmp.$$"
  mv "$f.tmp.$$" "$f"
}

# ---------------------------------------------------------------- commands
cmd_libs() {
  resolve_libs
  compile_drivers
}

cmd_start() {
  local t0
  t0=$(now_ms)
  if [[ -d $RUN ]]; then
    any_alive && die "a cluster is already running in $RUN (run stop first)"
    rm -rf "$RUN"
  fi
  cmd_libs
  check_ports_free
  mkdir -p "$RUN/pids"
  make_tls
  make_oidc_keys
  write_controller_props
  for n in "${BROKERS[@]}"; do write_broker_props "$n" "${RACK[$n]}"; done
  CID=$("${JAVA_TOOL[@]}" -cp "$LIBS/*" kafka.tools.StorageTool random-uuid)
  local fmt=()
  if [[ $KV == 4.1.* ]]; then
    fmt=(--release-version 4.1-IV1 --feature share.version=1 --feature streams.version=1)
  fi
  local scram=(
    --add-scram 'SCRAM-SHA-256=[name=admin,password=admin-secret]'
    --add-scram 'SCRAM-SHA-512=[name=admin,password=admin-secret]'
    --add-scram 'SCRAM-SHA-256=[name=alice,password=alice-secret]'
    --add-scram 'SCRAM-SHA-512=[name=alice,password=alice-secret]'
    --add-scram 'SCRAM-SHA-256=[name=bob,password=bob-secret]'
    --add-scram 'SCRAM-SHA-512=[name=bob,password=bob-secret]'
    --add-scram 'SCRAM-SHA-256=[name=dave,password=dave-secret]'
    --add-scram 'SCRAM-SHA-512=[name=dave,password=dave-secret]'
  )
  local pids=() node
  for node in "c$CTRL_ID" b1 b2 b3; do
    "${JAVA_TOOL[@]}" -cp "$LIBS/*" kafka.tools.StorageTool format -t "$CID" -c "$RUN/$node.properties" \
      ${fmt[@]+"${fmt[@]}"} "${scram[@]}" >"$RUN/format-$node.out" 2>&1 &
    pids+=($!)
  done
  local i=0
  for node in "c$CTRL_ID" b1 b2 b3; do
    wait "${pids[$i]}" || { cat "$RUN/format-$node.out" >&2; die "format of $node failed"; }
    i=$((i + 1))
  done
  start_node "c$CTRL_ID" 256m
  for n in "${BROKERS[@]}"; do start_node "b$n" 512m; done
  for n in "${BROKERS[@]}"; do wait_broker_running "$n" 240; done
  START_MS=$(($(now_ms) - t0))
  write_env
  # Create __consumer_offsets (RF 3 needs all brokers alive) and the ACLs of the restricted SCRAM user.
  java_driver "$(grep '^BOOTSTRAP=' "$RUN/cluster.env" | cut -d= -f2)" setup >&2 || die "driver setup failed"
  START_MS=$(($(now_ms) - t0))
  write_env
  log "cluster up in ${START_MS} ms; env: $RUN/cluster.env"
  grep '^BOOTSTRAP=' "$RUN/cluster.env" | cut -d= -f2
}

cmd_stop() {
  [[ -d $RUN ]] || { log "nothing to stop in $RUN"; return 0; }
  local f
  for f in "$RUN"/pids/*.pid; do
    [[ -e $f ]] || continue
    kill_node "$(basename "$f" .pid)"
  done
  rm -rf "$RUN"
  log "stopped; removed $RUN"
}

cmd_status() {
  [[ -d $RUN ]] || { echo "not running ($RUN absent)"; return 1; }
  local f name pid rss hwm rc=0
  for f in "$RUN"/pids/*.pid; do
    [[ -e $f ]] || continue
    name=$(basename "$f" .pid)
    pid=$(cat "$f")
    if pid_alive "$name"; then
      rss=$(awk '/^VmRSS/{print $2}' /proc/"$pid"/status)
      hwm=$(awk '/^VmHWM/{print $2}' /proc/"$pid"/status)
      echo "$name pid=$pid alive rss_kb=$rss peak_rss_kb=$hwm"
    else
      echo "$name pid=$pid dead"
      rc=1
    fi
  done
  return $rc
}

cmd_kill_broker() {
  local n=${1:?broker id}
  [[ -f "$RUN/pids/b$n.pid" ]] || die "broker $n has no pid file in $RUN"
  kill_node "b$n"
  log "broker $n killed (kill -9)"
}

cmd_start_broker() {
  local n=${1:?broker id}
  shift
  local rack=""
  while [[ $# -gt 0 ]]; do
    case $1 in
    --rack) rack=$2; shift 2 ;;
    *) die "unknown option $1" ;;
    esac
  done
  [[ -f "$RUN/b$n.properties" ]] || die "no broker $n in $RUN"
  pid_alive "b$n" && die "broker $n is running (kill-broker $n first)"
  if [[ -n $rack ]]; then
    sed -i "s/^broker.rack=.*/broker.rack=$rack/" "$RUN/b$n.properties"
  fi
  local t0
  t0=$(now_ms)
  start_node "b$n" 512m
  wait_broker_running "$n" 240
  CID=$(sed -n 's/^CLUSTER_ID=//p' "$RUN/cluster.env")
  START_MS=$(sed -n 's/^START_MS=//p' "$RUN/cluster.env")
  write_env
  log "broker $n running (rack $(sed -n 's/^broker.rack=//p' "$RUN/b$n.properties")) in $(($(now_ms) - t0)) ms"
}

java_driver() { # $1 = bootstrap, rest = command
  java -Xms32m -Xmx256m -XX:+UseSerialGC -XX:TieredStopAtLevel=1 \
    -Dlog4j2.configurationFile="$IT_DIR/config/tools-log4j2.properties" -Dkafka.it.run.dir="$RUN" \
    -cp "$CLASSES:$LIBS/*" ItDriver "$@"
}

cmd=${1:-}
[[ $# -gt 0 ]] && shift
case $cmd in
libs) cmd_libs ;;
start) cmd_start ;;
stop) cmd_stop ;;
status) cmd_status ;;
kill-broker) cmd_kill_broker "$@" ;;
start-broker) cmd_start_broker "$@" ;;
dump-log) # DumpLogSegments --offsets-decoder --files F1,F2 (right class for the version)
  resolve_libs
  files=$(IFS=,; echo "$*")
  exec "${JAVA_TOOL[@]}" -cp "$LIBS/*" "$(dump_log_class)" --offsets-decoder --files "$files"
  ;;
tool)
  cls=${1:?class}
  shift
  resolve_libs
  exec "${JAVA_TOOL[@]}" -cp "$LIBS/*" "$cls" "$@"
  ;;
driver)
  cmd_libs
  bs=$(sed -n 's/^BOOTSTRAP=//p' "$RUN/cluster.env" 2>/dev/null || true)
  [[ -n $bs ]] || die "no cluster.env in $RUN (start the cluster first)"
  java_driver "$bs" "$@"
  ;;
*)
  sed -n '2,20p' "$0" >&2
  exit 2
  ;;
esac
