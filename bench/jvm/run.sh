#!/usr/bin/env bash
# JVM reference benchmark (hash4j 0.22.0 with Kafka's computeTopicHash call sequence). See README.md.
#   bash bench/jvm/run.sh METADATA.json [ROUNDS]      hash the topics of a metadata document
#   bash bench/jvm/run.sh --synthetic [TOPICS PARTITIONS [ROUNDS]]
#   bash bench/jvm/run.sh -- ARGS...                  raw TopicHashBench arguments
# Prints one JSON line on stdout; logs go to stderr.
set -euo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
KV=${KAFKA_VERSION:-4.4.0}
LIBS=${KAFKA_IT_LIBS:-$ROOT/.kafka-libs/$KV}
CLASSES=$ROOT/.kafka-it/bench-classes
# hash4j and jackson come with the integration-test jars (kafka-it/pom.xml)
[[ -f "$LIBS/.ok" ]] || KAFKA_VERSION=$KV bash "$ROOT/kafka-it/cluster.sh" libs >&2
ls "$LIBS"/hash4j-0.22.0.jar >/dev/null
sum=$(sha256sum "$HERE/TopicHashBench.java" | cut -c1-16)
if [[ ! -f "$CLASSES/.src-$sum" ]]; then
  rm -rf "$CLASSES"
  mkdir -p "$CLASSES"
  javac -nowarn -encoding UTF-8 -cp "$LIBS/*" -d "$CLASSES" "$HERE/TopicHashBench.java" >&2
  touch "$CLASSES/.src-$sum"
fi
args=()
case ${1:-} in
--) shift; args=("$@") ;;
--synthetic) args=(--synthetic "${2:-10000}" "${3:-100}" --rounds "${4:-5}") ;;
"") args=(--synthetic 10000 100) ;;
*) args=(--file "$1" --rounds "${2:-5}") ;;
esac
exec java -Xms1g -Xmx3g -XX:+UseParallelGC -cp "$CLASSES:$LIBS/*" TopicHashBench "${args[@]}"
