import com.dynatrace.hash4j.hashing.HashStream64;
import com.dynatrace.hash4j.hashing.Hashing;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.File;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Base64;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * JVM reference for the topic hash: hash4j 0.22.0 (the version Kafka 4.1+ pins) fed with exactly the call sequence
 * of Kafka's group-coordinator Utils.computeTopicHash, over a metadata document (rebalance-doctor/metadata-v1) or the
 * deterministic synthetic cluster of bench/synthetic.js (same generator, ported).
 *
 * <pre>
 *   java -cp CLASSES:LIBS/* TopicHashBench [--file METADATA.json | --synthetic TOPICS PARTITIONS] [--rounds N]
 *                                          [--warmup N] [--group T1,T2,...] [--print-topics]
 * </pre>
 * Prints one JSON line on stdout (format in bench/jvm/README.md).
 */
public final class TopicHashBench {
  static final class Topic {
    final String name;
    final long msb;
    final long lsb;
    final int[][] replicas; // by partition id 0..n-1

    Topic(String name, long msb, long lsb, int[][] replicas) {
      this.name = name;
      this.msb = msb;
      this.lsb = lsb;
      this.replicas = replicas;
    }
  }

  /** Registered brokers (fenced ones included) -> rack, or null when a broker has no rack. */
  static final Map<Integer, String> brokerRacks = new HashMap<>();
  static final Map<Integer, Boolean> registered = new HashMap<>();
  static final List<Topic> topics = new ArrayList<>();
  static String source;

  /** Kafka Utils.computeTopicHash, call for call (4.1 .. 4.4). */
  static long computeTopicHash(Topic t) {
    HashStream64 hasher = Hashing.xxh3_64().hashStream();
    hasher = hasher.putByte((byte) 0)
        .putLong(t.msb)
        .putLong(t.lsb)
        .putString(t.name)
        .putInt(t.replicas.length);
    for (int i = 0; i < t.replicas.length; i++) {
      hasher = hasher.putInt(i);
      List<String> racks = new ArrayList<>();
      for (int replicaId : t.replicas[i]) {
        if (registered.containsKey(replicaId)) {
          String rack = brokerRacks.get(replicaId);
          if (rack != null) racks.add(rack);
        }
      }
      Collections.sort(racks);
      for (String rack : racks) {
        hasher = hasher.putInt(rack.length());
        hasher = hasher.putString(rack);
      }
    }
    return hasher.getAsLong();
  }

  /** Kafka Utils.computeGroupHash: topic hashes ordered by topic name. */
  static long computeGroupHash(Map<String, Long> topicHashes) {
    if (topicHashes.isEmpty()) return 0;
    HashStream64 hasher = Hashing.xxh3_64().hashStream();
    for (Map.Entry<String, Long> e : new TreeMap<>(topicHashes).entrySet()) hasher = hasher.putLong(e.getValue());
    return hasher.getAsLong();
  }

  static void readFile(String path) throws Exception {
    JsonNode doc = new ObjectMapper().readTree(new File(path));
    for (JsonNode b : doc.get("brokers")) {
      int id = b.get("id").asInt();
      registered.put(id, true);
      JsonNode rack = b.get("rack");
      brokerRacks.put(id, rack == null || rack.isNull() ? null : rack.asText());
    }
    Base64.Decoder dec = Base64.getUrlDecoder();
    for (JsonNode t : doc.get("topics")) {
      ByteBuffer id = ByteBuffer.wrap(dec.decode(t.get("topicId").asText()));
      JsonNode ps = t.get("partitions");
      int[][] replicas = new int[ps.size()][];
      for (JsonNode p : ps) {
        JsonNode rs = p.get("replicas");
        int[] r = new int[rs.size()];
        for (int i = 0; i < r.length; i++) r[i] = rs.get(i).asInt();
        replicas[p.get("partition").asInt()] = r;
      }
      topics.add(new Topic(t.get("name").asText(), id.getLong(0), id.getLong(8), replicas));
    }
    source = path;
  }

  /** bench/synthetic.js syntheticCluster({topics, partitions}) with rf 3, 12 brokers, 6 racks. */
  static void synthetic(int nTopics, int nPartitions) {
    int rf = 3, brokers = 12, racks = 6;
    for (int i = 0; i < brokers; i++) {
      registered.put(i + 1, true);
      brokerRacks.put(i + 1, "rack-" + (i % racks));
    }
    int[] seed = {42};
    for (int t = 0; t < nTopics; t++) {
      ByteBuffer id = ByteBuffer.allocate(16);
      for (int i = 0; i < 16; i += 4) {
        seed[0] = seed[0] * 1103515245 + 12345; // uint32 LCG, as Math.imul(seed, 1103515245) + 12345 >>> 0
        id.putInt(i, seed[0]);
      }
      int[][] replicas = new int[nPartitions][];
      for (int p = 0; p < nPartitions; p++) {
        int first = (t + p) % brokers;
        int[] r = new int[rf];
        for (int k = 0; k < rf; k++) r[k] = ((first + k * 5) % brokers) + 1;
        replicas[p] = r;
      }
      topics.add(new Topic("bench-topic-" + t, id.getLong(0), id.getLong(8), replicas));
    }
    source = "synthetic:" + nTopics + "x" + nPartitions;
  }

  static long pass(long[] out) {
    long xor = 0;
    for (int i = 0; i < topics.size(); i++) {
      long h = computeTopicHash(topics.get(i));
      if (out != null) out[i] = h;
      xor ^= h;
    }
    return xor;
  }

  public static void main(String[] args) throws Exception {
    int rounds = 5, warmup = 3;
    String group = null;
    boolean printTopics = false;
    boolean loaded = false;
    for (int i = 0; i < args.length; i++) {
      switch (args[i]) {
        case "--file" -> { readFile(args[++i]); loaded = true; }
        case "--synthetic" -> { synthetic(Integer.parseInt(args[++i]), Integer.parseInt(args[++i])); loaded = true; }
        case "--rounds" -> rounds = Integer.parseInt(args[++i]);
        case "--warmup" -> warmup = Integer.parseInt(args[++i]);
        case "--group" -> group = args[++i];
        case "--print-topics" -> printTopics = true;
        default -> throw new IllegalArgumentException("unknown argument " + args[i]);
      }
    }
    if (!loaded) synthetic(10_000, 100);
    long partitions = 0;
    for (Topic t : topics) partitions += t.replicas.length;

    for (int w = 0; w < warmup; w++) pass(null);
    double[] secs = new double[Math.max(1, rounds)];
    double[] cpu = new double[secs.length];
    long checksum = 0;
    long[] hashes = new long[topics.size()];
    // wall time, and this thread's CPU time: on a loaded machine the CPU time is the steadier measure
    java.lang.management.ThreadMXBean threads = java.lang.management.ManagementFactory.getThreadMXBean();
    for (int r = 0; r < secs.length; r++) {
      long c0 = threads.getCurrentThreadCpuTime();
      long t0 = System.nanoTime();
      checksum = pass(hashes);
      secs[r] = (System.nanoTime() - t0) / 1e9;
      cpu[r] = (threads.getCurrentThreadCpuTime() - c0) / 1e9;
    }
    double[] sorted = secs.clone();
    Arrays.sort(sorted);
    double median = sorted[sorted.length / 2];
    double[] cpuSorted = cpu.clone();
    Arrays.sort(cpuSorted);
    double cpuMedian = cpuSorted[cpuSorted.length / 2];

    StringBuilder sb = new StringBuilder();
    sb.append('{');
    sb.append("\"impl\":\"hash4j 0.22.0 xxh3_64 hashStream, Kafka Utils.computeTopicHash call sequence (Java ")
        .append(System.getProperty("java.version")).append(")\"");
    sb.append(",\"source\":\"").append(source.replace("\\", "\\\\").replace("\"", "\\\"")).append('"');
    sb.append(",\"topics\":").append(topics.size());
    sb.append(",\"partitions\":").append(partitions);
    sb.append(",\"warmupRounds\":").append(warmup);
    sb.append(",\"rounds\":").append(secs.length);
    sb.append(",\"secondsMedian\":").append(median);
    sb.append(",\"secondsPerRound\":").append(Arrays.toString(secs).replace(" ", ""));
    sb.append(",\"topicHashesPerSecond\":").append(Math.round(topics.size() / median));
    sb.append(",\"partitionsPerSecond\":").append(Math.round(partitions / median));
    sb.append(",\"cpuSecondsMedian\":").append(cpuMedian);
    sb.append(",\"partitionsPerCpuSecond\":").append(Math.round(partitions / cpuMedian));
    sb.append(",\"checksum\":\"").append(checksum).append('"');
    if (group != null) {
      Map<String, Long> byName = new HashMap<>();
      Map<String, Integer> idx = new HashMap<>();
      for (int i = 0; i < topics.size(); i++) idx.put(topics.get(i).name, i);
      for (String n : group.split(",")) if (idx.containsKey(n)) byName.put(n, hashes[idx.get(n)]);
      sb.append(",\"groupHash\":\"").append(computeGroupHash(byName)).append('"');
    }
    if (printTopics) {
      sb.append(",\"topicHashes\":{");
      for (int i = 0; i < topics.size(); i++) {
        if (i > 0) sb.append(',');
        sb.append('"').append(topics.get(i).name.replace("\\", "\\\\").replace("\"", "\\\"")).append("\":\"").append(hashes[i]).append('"');
      }
      sb.append('}');
    }
    sb.append('}');
    System.out.println(sb);
  }
}
