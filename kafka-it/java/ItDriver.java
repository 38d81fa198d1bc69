import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import java.io.BufferedReader;
import java.io.FileOutputStream;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Arrays;
import java.util.Collection;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import java.util.regex.Pattern;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.DescribeClusterOptions;
import org.apache.kafka.clients.admin.DescribeClusterResult;
import org.apache.kafka.clients.admin.ListTopicsOptions;
import org.apache.kafka.clients.admin.NewPartitions;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.admin.TopicListing;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRebalanceListener;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.KafkaShareConsumer;
import org.apache.kafka.clients.consumer.SubscriptionPattern;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.TopicPartitionInfo;
import org.apache.kafka.common.acl.AccessControlEntry;
import org.apache.kafka.common.acl.AclBinding;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.acl.AclPermissionType;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;
import org.apache.kafka.common.errors.WakeupException;
import org.apache.kafka.common.resource.PatternType;
import org.apache.kafka.common.resource.ResourcePattern;
import org.apache.kafka.common.resource.ResourceType;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.kstream.Materialized;
import org.apache.kafka.streams.kstream.Produced;

/**
 * Test driver for the integration tests: Kafka's own Admin, KIP-848 consumer, share consumer and Kafka Streams
 * clients, controlled over a line protocol so that one JVM serves a whole test file.
 *
 * <pre>
 *   java -cp CLASSES:LIBS/* ItDriver BOOTSTRAP                 line protocol on stdin/stdout
 *   java -cp CLASSES:LIBS/* ItDriver BOOTSTRAP CMD ARGS...     one command, then exit (exit 1 on error)
 * </pre>
 *
 * Each command line gets exactly one reply line on stdout: {@code @@ {"ok":true,...}} or
 * {@code @@ {"ok":false,"error":"..."}}. Anything else on stdout (there should be nothing) is to be ignored; logs go
 * to stderr. Commands: see {@link #HELP}.
 */
public final class ItDriver {
  static final String HELP = String.join("\n",
      "ping",
      "setup                                   create __consumer_offsets, ACLs for the restricted user",
      "create-topic NAME PARTITIONS [RF]       or: create-topic NAME --assign 1:2:3,2:3:1 (replicas per partition)",
      "add-partitions NAME TOTAL [--assign 3:1,1:2]",
      "delete-topic NAME                       waits until the topic is gone",
      "produce TOPIC COUNT",
      "consumer MEMBER GROUP names T1,T2 [rack=R|revoke-sleep=MS]  KIP-848 consumer (group.protocol=consumer), subscribe(names);",
      "                                        client.rack=R; revoke-sleep: onPartitionsRevoked sleeps MS (a slow revocation)",
      "consumer MEMBER GROUP regex RE2         subscribe(SubscriptionPattern): broker-side regex",
      "consumer MEMBER GROUP pattern JREGEX    subscribe(java.util.regex.Pattern): client-side regex",
      "share MEMBER GROUP T1,T2                KafkaShareConsumer",
      "streams MEMBER APP_ID SOURCE SINK       Kafka Streams, group.protocol=streams; selectKey+count (repartition+changelog)",
      "stop MEMBER                             close the member (leaves the group)",
      "subscribe MEMBER names|regex WHAT        change a running consumer's subscription (in its poll thread)",
      "hold-revocation MEMBER on|off           on: the consumer's onPartitionsRevoked blocks (its poll thread too) until off",
      "commit MEMBER                           the consumer commits its positions (commitSync in its poll thread) → {committed: {T-P: offset}}",
      "group-config GROUP KEY VALUE            incrementalAlterConfigs SET on the group (e.g. consumer.session.timeout.ms)",
      "unregister-broker ID                    Admin.unregisterBroker (the broker should be fenced/stopped)",
      "members                                 members, states, assignments",
      "dump-metadata PATH [--internal]         metadata document (rebalance-doctor/metadata-v1) from Admin",
      "describe-cluster                        brokers incl. fenced",
      "wait-broker ID fenced|unfenced|absent TIMEOUT_MS",
      "partition TOPIC PARTITION               leader, replicas, isr",
      "elect-preferred TOPIC                   preferred leader election on every partition of TOPIC (leaders back after restarts)",
      "dump-log OUT_FILE SEGMENT...            kafka.tools.DumpLogSegments --offsets-decoder in this JVM, output to OUT_FILE",
      "quit");

  static final ObjectMapper JSON = new ObjectMapper().disable(SerializationFeature.FAIL_ON_EMPTY_BEANS);
  static String bootstrap;
  static Admin admin;
  static final Map<String, Member> members = new ConcurrentHashMap<>();
  static final PrintStream OUT = new PrintStream(new FileOutputStream(java.io.FileDescriptor.out), true, StandardCharsets.UTF_8);

  public static void main(String[] args) throws Exception {
    if (args.length < 1) {
      System.err.println("usage: ItDriver BOOTSTRAP [CMD ARGS...]\n" + HELP);
      System.exit(2);
    }
    // Our stdout is the protocol channel: everything else that prints to System.out goes to stderr.
    System.setOut(new PrintStream(new FileOutputStream(java.io.FileDescriptor.err), true, StandardCharsets.UTF_8));
    bootstrap = args[0];
    Properties ap = new Properties();
    ap.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    ap.put(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, "5000");
    ap.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, "20000");
    ap.put(AdminClientConfig.METADATA_MAX_AGE_CONFIG, "1000");
    admin = Admin.create(ap);
    if (args.length > 1) {
      Map<String, Object> r = run(Arrays.copyOfRange(args, 1, args.length));
      reply(r);
      shutdown();
      System.exit(Boolean.TRUE.equals(r.get("ok")) ? 0 : 1);
    }
    reply(ok("ready", true));
    BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
    String line;
    while ((line = in.readLine()) != null) {
      line = line.trim();
      if (line.isEmpty()) continue;
      String[] cmd = line.split("\\s+");
      if (cmd[0].equals("quit")) break;
      reply(run(cmd));
    }
    shutdown();
    reply(ok("bye", true));
    System.exit(0);
  }

  static void shutdown() {
    List<Thread> ts = new ArrayList<>();
    for (String m : new ArrayList<>(members.keySet())) {
      Thread t = new Thread(() -> {
        try {
          stopMember(m);
        } catch (Exception e) {
          System.err.println("stop " + m + ": " + e);
        }
      });
      t.start();
      ts.add(t);
    }
    for (Thread t : ts) {
      try {
        t.join(20000);
      } catch (InterruptedException ignored) {
      }
    }
    admin.close(Duration.ofSeconds(5));
  }

  static synchronized void reply(Map<String, Object> r) {
    try {
      OUT.println("@@ " + JSON.writeValueAsString(r));
    } catch (Exception e) {
      OUT.println("@@ {\"ok\":false,\"error\":\"cannot serialize reply\"}");
    }
    OUT.flush();
  }

  static Map<String, Object> ok(Object... kv) {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("ok", true);
    for (int i = 0; i + 1 < kv.length; i += 2) m.put((String) kv[i], kv[i + 1]);
    return m;
  }

  static Map<String, Object> run(String[] c) {
    try {
      switch (c[0]) {
        case "ping": return ok("pong", true);
        case "help": return ok("help", HELP);
        case "setup": return setup();
        case "create-topic": return createTopic(c);
        case "add-partitions": return addPartitions(c);
        case "delete-topic": return deleteTopic(c[1]);
        case "produce": return produce(c[1], Integer.parseInt(c[2]));
        case "consumer": return startConsumer(c[1], c[2], c[3], c[4], c.length > 5 ? c[5] : null);
        case "share": return startShare(c[1], c[2], c[3]);
        case "streams": return startStreams(c[1], c[2], c[3], c[4]);
        case "stop": stopMember(c[1]); return ok("stopped", c[1]);
        case "subscribe": return resubscribe(c[1], c[2], c[3]);
        case "hold-revocation": return holdRevocation(c[1], c[2]);
        case "commit": return commit(c[1]);
        case "group-config": return groupConfig(c[1], c[2], c[3]);
        case "unregister-broker": admin.unregisterBroker(Integer.parseInt(c[1])).all().get(30, TimeUnit.SECONDS); return ok("unregistered", Integer.parseInt(c[1]));
        case "members": return listMembers();
        case "dump-metadata": return dumpMetadata(c);
        case "describe-cluster": return ok("brokers", brokers());
        case "wait-broker": return waitBroker(Integer.parseInt(c[1]), c[2], Long.parseLong(c[3]));
        case "partition": return partition(c[1], Integer.parseInt(c[2]));
        case "elect-preferred": return electPreferred(c[1]);
        case "dump-log": return dumpLog(c);
        default: return err("unknown command " + c[0] + "\n" + HELP);
      }
    } catch (Throwable t) {
      Throwable cause = t instanceof ExecutionException && t.getCause() != null ? t.getCause() : t;
      return err(cause.getClass().getSimpleName() + ": " + cause.getMessage());
    }
  }

  static Map<String, Object> err(String msg) {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("ok", false);
    m.put("error", msg);
    return m;
  }

  // ------------------------------------------------------------------ admin
  static Map<String, Object> setup() throws Exception {
    // FindCoordinator auto-creates __consumer_offsets (RF 3: needs all brokers alive).
    long deadline = System.currentTimeMillis() + 60000;
    Exception last = null;
    while (System.currentTimeMillis() < deadline) {
      try {
        try {
          admin.describeConsumerGroups(List.of("__rd_it_warmup")).all().get(10, TimeUnit.SECONDS);
        } catch (ExecutionException e) {
          if (!(e.getCause() instanceof org.apache.kafka.common.errors.GroupIdNotFoundException)) throw e;
        }
        TopicDescription d = admin.describeTopics(List.of("__consumer_offsets")).allTopicNames().get().get("__consumer_offsets");
        boolean allLeaders = d.partitions().stream().allMatch(p -> p.leader() != null && p.leader().id() >= 0);
        if (allLeaders) {
          last = null;
          break;
        }
      } catch (Exception e) {
        last = e;
      }
      Thread.sleep(300);
    }
    if (last != null) throw last;
    // The restricted SCRAM user bob may not DESCRIBE (or do anything with) topics named private-*.
    // Everyone else may (allow.everyone.if.no.acl.found=true elsewhere; an explicit allow here).
    ResourcePattern priv = new ResourcePattern(ResourceType.TOPIC, "private-", PatternType.PREFIXED);
    ResourcePattern offsets = new ResourcePattern(ResourceType.TOPIC, "__consumer_offsets", PatternType.LITERAL);
    admin.createAcls(List.of(
        new AclBinding(priv, new AccessControlEntry("User:*", "*", AclOperation.ALL, AclPermissionType.ALLOW)),
        new AclBinding(priv, new AccessControlEntry("User:bob", "*", AclOperation.ALL, AclPermissionType.DENY)),
        // The SCRAM user dave is a least-privilege monitoring account: DESCRIBE everywhere, but no READ on
        // __consumer_offsets (everyone else keeps it: an ACL on the topic ends allow.everyone.if.no.acl.found there).
        new AclBinding(offsets, new AccessControlEntry("User:*", "*", AclOperation.ALL, AclPermissionType.ALLOW)),
        new AclBinding(offsets, new AccessControlEntry("User:dave", "*", AclOperation.READ, AclPermissionType.DENY))))
        .all().get();
    return ok("offsetsTopic", "__consumer_offsets", "acls", 4);
  }

  static List<List<Integer>> parseAssign(String s) {
    List<List<Integer>> out = new ArrayList<>();
    for (String p : s.split(",")) {
      List<Integer> r = new ArrayList<>();
      for (String b : p.split(":")) r.add(Integer.parseInt(b));
      out.add(r);
    }
    return out;
  }

  static Map<String, Object> createTopic(String[] c) throws Exception {
    String name = c[1];
    NewTopic nt;
    int count;
    if (c[2].equals("--assign")) {
      List<List<Integer>> a = parseAssign(c[3]);
      Map<Integer, List<Integer>> m = new TreeMap<>();
      for (int i = 0; i < a.size(); i++) m.put(i, a.get(i));
      nt = new NewTopic(name, m);
      count = a.size();
    } else {
      count = Integer.parseInt(c[2]);
      short rf = c.length > 3 ? Short.parseShort(c[3]) : 1;
      nt = new NewTopic(name, count, rf);
    }
    admin.createTopics(List.of(nt)).all().get();
    TopicDescription d = waitTopic(name, count, 30000);
    return ok("name", name, "topicId", d.topicId().toString(), "partitions", d.partitions().size());
  }

  static Map<String, Object> addPartitions(String[] c) throws Exception {
    String name = c[1];
    int total = Integer.parseInt(c[2]);
    NewPartitions np = c.length > 4 && c[3].equals("--assign")
        ? NewPartitions.increaseTo(total, parseAssign(c[4])) : NewPartitions.increaseTo(total);
    admin.createPartitions(Map.of(name, np)).all().get();
    TopicDescription d = waitTopic(name, total, 30000);
    return ok("name", name, "topicId", d.topicId().toString(), "partitions", d.partitions().size());
  }

  /** Waits until the topic has the partition count and every partition has a leader. */
  static TopicDescription waitTopic(String name, int count, long timeoutMs) throws Exception {
    long deadline = System.currentTimeMillis() + timeoutMs;
    Exception last = null;
    while (System.currentTimeMillis() < deadline) {
      try {
        TopicDescription d = admin.describeTopics(List.of(name)).allTopicNames().get().get(name);
        if (d.partitions().size() == count && d.partitions().stream().allMatch(p -> p.leader() != null)) return d;
      } catch (ExecutionException e) {
        last = e;
      }
      Thread.sleep(200);
    }
    throw new IllegalStateException("topic " + name + " not ready with " + count + " partitions: " + last);
  }

  static Map<String, Object> deleteTopic(String name) throws Exception {
    admin.deleteTopics(List.of(name)).all().get();
    long deadline = System.currentTimeMillis() + 30000;
    while (System.currentTimeMillis() < deadline) {
      try {
        admin.describeTopics(List.of(name)).allTopicNames().get();
      } catch (ExecutionException e) {
        if (e.getCause() instanceof UnknownTopicOrPartitionException) {
          if (!admin.listTopics().names().get().contains(name)) return ok("deleted", name);
        }
      }
      Thread.sleep(200);
    }
    throw new IllegalStateException("topic " + name + " still visible 30 s after delete");
  }

  static Map<String, Object> produce(String topic, int n) throws Exception {
    Properties p = new Properties();
    p.put("bootstrap.servers", bootstrap);
    p.put("key.serializer", StringSerializer.class.getName());
    p.put("value.serializer", StringSerializer.class.getName());
    p.put("acks", "all");
    p.put("linger.ms", "5");
    try (KafkaProducer<String, String> pr = new KafkaProducer<>(p)) {
      for (int i = 0; i < n; i++) pr.send(new ProducerRecord<>(topic, "k" + (i % 7), "v" + i));
      pr.flush();
    }
    return ok("produced", n);
  }

  static List<Map<String, Object>> brokers() throws Exception {
    DescribeClusterResult r = admin.describeCluster(new DescribeClusterOptions().includeFencedBrokers(true));
    List<Map<String, Object>> out = new ArrayList<>();
    List<Node> nodes = new ArrayList<>(r.nodes().get());
    nodes.sort(Comparator.comparingInt(Node::id));
    for (Node n : nodes) {
      Map<String, Object> b = new LinkedHashMap<>();
      b.put("id", n.id());
      b.put("rack", n.rack());
      b.put("fenced", n.isFenced());
      out.add(b);
    }
    return out;
  }

  static Map<String, Object> waitBroker(int id, String state, long timeoutMs) throws Exception {
    long deadline = System.currentTimeMillis() + timeoutMs;
    List<Map<String, Object>> last = null;
    while (System.currentTimeMillis() < deadline) {
      try {
        last = brokers();
        Map<String, Object> b = last.stream().filter(x -> ((Integer) x.get("id")) == id).findFirst().orElse(null);
        boolean done = switch (state) {
          case "absent" -> b == null;
          case "fenced" -> b != null && Boolean.TRUE.equals(b.get("fenced"));
          case "unfenced" -> b != null && Boolean.FALSE.equals(b.get("fenced"));
          default -> throw new IllegalArgumentException("state must be fenced, unfenced or absent");
        };
        if (done) return ok("brokers", last);
      } catch (ExecutionException e) {
        // retry
      }
      Thread.sleep(250);
    }
    throw new IllegalStateException("broker " + id + " not " + state + " after " + timeoutMs + " ms; brokers " + last);
  }

  static Map<String, Object> partition(String topic, int partition) throws Exception {
    TopicDescription d = admin.describeTopics(List.of(topic)).allTopicNames().get().get(topic);
    TopicPartitionInfo p = d.partitions().get(partition);
    return ok("topic", topic, "partition", partition,
        "leader", p.leader() == null || p.leader().isEmpty() ? -1 : p.leader().id(),
        "replicas", p.replicas().stream().map(Node::id).toList(),
        "isr", p.isr().stream().map(Node::id).toList());
  }

  /** Preferred leader election; partitions whose preferred replica already leads come back as ELECTION_NOT_NEEDED. */
  static Map<String, Object> electPreferred(String topic) throws Exception {
    TopicDescription d = admin.describeTopics(List.of(topic)).allTopicNames().get().get(topic);
    Set<TopicPartition> tps = new java.util.HashSet<>();
    for (TopicPartitionInfo p : d.partitions()) tps.add(new TopicPartition(topic, p.partition()));
    Map<TopicPartition, java.util.Optional<Throwable>> r =
        admin.electLeaders(org.apache.kafka.common.ElectionType.PREFERRED, tps).partitions().get(30, TimeUnit.SECONDS);
    Map<String, String> out = new TreeMap<>();
    r.forEach((tp, err) -> out.put(String.valueOf(tp.partition()), err.map(e -> e.getClass().getSimpleName()).orElse("elected")));
    return ok("topic", topic, "partitions", out);
  }

  static Map<String, Object> dumpMetadata(String[] c) throws Exception {
    Path path = Paths.get(c[1]);
    boolean internal = Arrays.asList(c).contains("--internal");
    DescribeClusterResult cr = admin.describeCluster(new DescribeClusterOptions().includeFencedBrokers(true));
    String clusterId = cr.clusterId().get();
    List<Map<String, Object>> brokers = brokers();
    Collection<TopicListing> listings = admin.listTopics(new ListTopicsOptions().listInternal(internal)).listings().get();
    Map<String, Boolean> internalByName = new TreeMap<>();
    for (TopicListing l : listings) internalByName.put(l.name(), l.isInternal());
    Map<String, TopicDescription> ds = internalByName.isEmpty() ? Map.of()
        : admin.describeTopics(internalByName.keySet()).allTopicNames().get();
    List<Map<String, Object>> topics = new ArrayList<>();
    for (String name : new TreeSet<>(ds.keySet())) {
      TopicDescription d = ds.get(name);
      Map<String, Object> t = new LinkedHashMap<>();
      t.put("name", name);
      t.put("topicId", d.topicId().toString());
      if (d.isInternal()) t.put("internal", true);
      List<Map<String, Object>> parts = new ArrayList<>();
      List<TopicPartitionInfo> ps = new ArrayList<>(d.partitions());
      ps.sort(Comparator.comparingInt(TopicPartitionInfo::partition));
      for (TopicPartitionInfo p : ps) {
        Map<String, Object> pm = new LinkedHashMap<>();
        pm.put("partition", p.partition());
        pm.put("replicas", p.replicas().stream().map(Node::id).toList());
        parts.add(pm);
      }
      t.put("partitions", parts);
      topics.add(t);
    }
    Map<String, Object> doc = new LinkedHashMap<>();
    doc.put("format", "rebalance-doctor/metadata-v1");
    doc.put("clusterId", clusterId);
    doc.put("capturedAt", Instant.now().toString());
    doc.put("brokers", brokers);
    doc.put("topics", topics);
    if (path.getParent() != null) Files.createDirectories(path.getParent());
    Path tmp = Paths.get(path + ".tmp");
    Files.writeString(tmp, JSON.writerWithDefaultPrettyPrinter().writeValueAsString(doc) + "\n");
    Files.move(tmp, path, java.nio.file.StandardCopyOption.REPLACE_EXISTING, java.nio.file.StandardCopyOption.ATOMIC_MOVE);
    return ok("path", path.toString(), "brokers", brokers.size(), "topics", topics.size());
  }

  /** Runs kafka.tools.DumpLogSegments --offsets-decoder in this JVM (saves a JVM start), stdout to a file. */
  static synchronized Map<String, Object> dumpLog(String[] c) throws Exception {
    Path outFile = Paths.get(c[1]);
    List<String> a = new ArrayList<>(List.of("--offsets-decoder", "--files", String.join(",", Arrays.copyOfRange(c, 2, c.length))));
    PrintStream saved = System.out;
    try (PrintStream ps = new PrintStream(new FileOutputStream(outFile.toFile()), false, StandardCharsets.UTF_8)) {
      System.setOut(ps);
      // Kafka 4.1-4.3: kafka.tools.DumpLogSegments (Scala, core); 4.4+: org.apache.kafka.tools.DumpLogSegments (Java, tools)
      Class<?> cls;
      try {
        cls = Class.forName("org.apache.kafka.tools.DumpLogSegments");
      } catch (ClassNotFoundException e) {
        cls = Class.forName("kafka.tools.DumpLogSegments");
      }
      java.lang.reflect.Method main = cls.getMethod("main", String[].class);
      Runnable r = () -> {
        try {
          main.invoke(null, (Object) a.toArray(new String[0]));
        } catch (Exception e) {
          throw new RuntimeException(e);
        }
      };
      // Scala's println goes to scala.Console.out, which captured System.out at start-up.
      try {
        Class<?> console = Class.forName("scala.Console$");
        Object mod = console.getField("MODULE$").get(null);
        java.lang.reflect.Method withOut = console.getMethod("withOut", java.io.OutputStream.class, scala.Function0.class);
        withOut.invoke(mod, ps, (scala.Function0<Object>) () -> {
          r.run();
          return null;
        });
      } catch (ClassNotFoundException e) {
        r.run();
      }
      ps.flush();
    } finally {
      System.setOut(saved);
    }
    return ok("out", outFile.toString(), "bytes", Files.size(outFile));
  }

  // ------------------------------------------------------------------ members
  static class Member {
    final String name;
    final String kind;
    final String group;
    final AtomicBoolean stop = new AtomicBoolean();
    final AtomicReference<String> error = new AtomicReference<>();
    final AtomicReference<Set<String>> assignment = new AtomicReference<>(Set.of());
    volatile String state = "starting";
    Thread thread;

    Member(String name, String kind, String group) {
      this.name = name;
      this.kind = kind;
      this.group = group;
    }

    volatile Runnable waker;
    /** While set, onPartitionsRevoked does not return: the member stays unrevoked (a stuck reconciliation). */
    final AtomicBoolean holdRevocation = new AtomicBoolean();
    /** Revocations the listener is holding right now. */
    final java.util.concurrent.atomic.AtomicInteger heldRevocations = new java.util.concurrent.atomic.AtomicInteger();
    /** A subscription change for the poll thread: {"names"|"regex", what}. */
    final AtomicReference<String[]> resubscribe = new AtomicReference<>();
    /** A commit request for the poll thread, completed with the offsets committed ("topic-partition" → offset). */
    final AtomicReference<java.util.concurrent.CompletableFuture<Map<String, Long>>> commit = new AtomicReference<>();

    void wake() {
      Runnable w = waker;
      if (w != null) w.run();
    }

    Map<String, Object> describe() {
      Map<String, Object> m = new LinkedHashMap<>();
      m.put("member", name);
      m.put("kind", kind);
      m.put("group", group);
      m.put("state", state);
      m.put("assignment", new TreeSet<>(assignment.get()));
      m.put("heldRevocations", heldRevocations.get());
      if (error.get() != null) m.put("error", error.get());
      return m;
    }
  }

  static void register(Member m) {
    if (members.putIfAbsent(m.name, m) != null) throw new IllegalArgumentException("member " + m.name + " exists");
  }

  static Properties consumerProps(String group) {
    Properties p = new Properties();
    p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    p.put(ConsumerConfig.GROUP_ID_CONFIG, group);
    p.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
    p.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
    p.put(ConsumerConfig.METADATA_MAX_AGE_CONFIG, "1000");
    return p;
  }

  static Set<String> names(Collection<TopicPartition> tps) {
    Set<String> s = new TreeSet<>();
    for (TopicPartition tp : tps) s.add(tp.topic() + "-" + tp.partition());
    return s;
  }

  static Map<String, Object> startConsumer(String name, String group, String how, String what, String option) {
    Properties p = consumerProps(group);
    long revokeSleepMs = 0;
    if (option != null && option.startsWith("rack=")) p.put(ConsumerConfig.CLIENT_RACK_CONFIG, option.substring(5));
    else if (option != null && option.startsWith("revoke-sleep=")) revokeSleepMs = Long.parseLong(option.substring(13));
    else if (option != null) throw new IllegalArgumentException("unknown consumer option " + option + " (rack=R, revoke-sleep=MS)");
    final long revokeSleep = revokeSleepMs;
    p.put(ConsumerConfig.GROUP_PROTOCOL_CONFIG, "consumer");
    p.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
    p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
    p.put(ConsumerConfig.CLIENT_ID_CONFIG, name);
    Member m = new Member(name, "consumer", group) {};
    register(m);
    m.thread = new Thread(() -> {
      try (KafkaConsumer<byte[], byte[]> c = new KafkaConsumer<>(p)) {
        m.waker = c::wakeup;
        ConsumerRebalanceListener l = new ConsumerRebalanceListener() {
          @Override
          public void onPartitionsRevoked(Collection<TopicPartition> ps) {
            if (!ps.isEmpty() && revokeSleep > 0) {
              // a slow revocation (e.g. a commit or a flush in the listener): the poll thread, hence the
              // acknowledgement of the revocation, waits with it; not on close (stop), which would only slow the test
              long until = System.currentTimeMillis() + revokeSleep;
              try {
                while (!m.stop.get() && System.currentTimeMillis() < until) Thread.sleep(Math.min(100, until - System.currentTimeMillis()));
              } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
              }
            }
            if (!ps.isEmpty() && m.holdRevocation.get()) {
              m.heldRevocations.incrementAndGet();
              try {
                while (m.holdRevocation.get() && !m.stop.get()) Thread.sleep(100);
              } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
              } finally {
                m.heldRevocations.decrementAndGet();
              }
            }
            Set<String> s = new TreeSet<>(m.assignment.get());
            s.removeAll(names(ps));
            m.assignment.set(s);
          }

          @Override
          public void onPartitionsAssigned(Collection<TopicPartition> ps) {
            Set<String> s = new TreeSet<>(m.assignment.get());
            s.addAll(names(ps));
            m.assignment.set(s);
          }
        };
        switch (how) {
          case "names" -> c.subscribe(Arrays.asList(what.split(",")), l);
          case "regex" -> c.subscribe(new SubscriptionPattern(what), l);
          case "pattern" -> c.subscribe(Pattern.compile(what), l);
          default -> throw new IllegalArgumentException("consumer subscription must be names, regex or pattern");
        }
        m.state = "running";
        while (!m.stop.get()) {
          String[] re = m.resubscribe.getAndSet(null);
          if (re != null) {
            if (re[0].equals("regex")) c.subscribe(new SubscriptionPattern(re[1]), l);
            else c.subscribe(Arrays.asList(re[1].split(",")), l);
          }
          try {
            c.poll(Duration.ofMillis(200));
          } catch (WakeupException e) {
            // stop requested
          }
          java.util.concurrent.CompletableFuture<Map<String, Long>> done = m.commit.getAndSet(null);
          if (done != null) {
            try {
              Map<String, Long> committed = new TreeMap<>();
              Map<TopicPartition, org.apache.kafka.clients.consumer.OffsetAndMetadata> offsets = new HashMap<>();
              for (TopicPartition tp : c.assignment()) {
                long position = c.position(tp);
                offsets.put(tp, new org.apache.kafka.clients.consumer.OffsetAndMetadata(position));
                committed.put(tp.topic() + "-" + tp.partition(), position);
              }
              c.commitSync(offsets);
              done.complete(committed);
            } catch (Throwable t) {
              done.completeExceptionally(t);
            }
          }
        }
        m.state = "closing";
      } catch (Throwable t) {
        m.error.set(t.toString());
        System.err.println("member " + name + ": " + t);
      }
      m.state = "closed";
    }, "consumer-" + name);
    m.thread.setDaemon(true);
    m.thread.start();
    return ok("member", name, "group", group);
  }

  static Map<String, Object> startShare(String name, String group, String topics) {
    Properties p = consumerProps(group);
    p.put(ConsumerConfig.CLIENT_ID_CONFIG, name);
    Member m = new Member(name, "share", group) {};
    register(m);
    m.thread = new Thread(() -> {
      try (KafkaShareConsumer<byte[], byte[]> c = new KafkaShareConsumer<>(p)) {
        m.waker = c::wakeup;
        c.subscribe(Arrays.asList(topics.split(",")));
        m.state = "running";
        while (!m.stop.get()) {
          try {
            c.poll(Duration.ofMillis(200));
          } catch (WakeupException e) {
            // stop requested
          }
        }
        m.state = "closing";
      } catch (Throwable t) {
        m.error.set(t.toString());
        System.err.println("member " + name + ": " + t);
      }
      m.state = "closed";
    }, "share-" + name);
    m.thread.setDaemon(true);
    m.thread.start();
    return ok("member", name, "group", group);
  }

  static Map<String, Object> startStreams(String name, String appId, String source, String sink) throws Exception {
    String runDir = System.getProperty("kafka.it.run.dir", System.getProperty("java.io.tmpdir"));
    Path stateDir = Paths.get(runDir, "streams-state", name);
    Files.createDirectories(stateDir);
    Properties p = new Properties();
    p.put(StreamsConfig.APPLICATION_ID_CONFIG, appId);
    p.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    p.put("group.protocol", "streams");
    p.put(StreamsConfig.STATE_DIR_CONFIG, stateDir.toString());
    p.put(StreamsConfig.NUM_STREAM_THREADS_CONFIG, 1);
    p.put(StreamsConfig.DEFAULT_KEY_SERDE_CLASS_CONFIG, Serdes.StringSerde.class);
    p.put(StreamsConfig.DEFAULT_VALUE_SERDE_CLASS_CONFIG, Serdes.StringSerde.class);
    p.put(StreamsConfig.COMMIT_INTERVAL_MS_CONFIG, 500);
    p.put(StreamsConfig.CLIENT_ID_CONFIG, name);
    StreamsBuilder b = new StreamsBuilder();
    // selectKey + groupByKey -> repartition topic; count -> state store "counts" with a changelog topic.
    b.<String, String>stream(source)
        .selectKey((k, v) -> v == null ? "" : v.substring(0, Math.min(2, v.length())))
        .groupByKey()
        .count(Materialized.as("counts"))
        .toStream()
        .to(sink, Produced.with(Serdes.String(), Serdes.Long()));
    KafkaStreams ks = new KafkaStreams(b.build(), p);
    Member m = new Member(name, "streams", appId) {};
    register(m);
    ks.setStateListener((n, o) -> m.state = n.toString());
    ks.setUncaughtExceptionHandler(e -> {
      m.error.set(e.toString());
      return org.apache.kafka.streams.errors.StreamsUncaughtExceptionHandler.StreamThreadExceptionResponse.SHUTDOWN_CLIENT;
    });
    m.thread = new Thread(() -> {
      ks.start();
      while (!m.stop.get()) {
        try {
          Thread.sleep(100);
        } catch (InterruptedException e) {
          break;
        }
      }
      ks.close(Duration.ofSeconds(15));
      m.state = "closed";
    }, "streams-" + name);
    m.thread.setDaemon(true);
    m.thread.start();
    return ok("member", name, "group", appId);
  }

  static Map<String, Object> resubscribe(String name, String how, String what) throws Exception {
    Member m = members.get(name);
    if (m == null || !m.kind.equals("consumer")) throw new IllegalArgumentException("no consumer " + name);
    if (!how.equals("names") && !how.equals("regex")) throw new IllegalArgumentException("subscribe: names or regex");
    m.resubscribe.set(new String[] {how, what});
    long deadline = System.currentTimeMillis() + 10000;
    while (m.resubscribe.get() != null && System.currentTimeMillis() < deadline) Thread.sleep(50);
    if (m.resubscribe.get() != null) throw new IllegalStateException("member " + name + " did not pick up the subscription");
    return ok("member", name, how, what);
  }

  static Map<String, Object> commit(String name) throws Exception {
    Member m = members.get(name);
    if (m == null || !m.kind.equals("consumer")) throw new IllegalArgumentException("no consumer " + name);
    java.util.concurrent.CompletableFuture<Map<String, Long>> done = new java.util.concurrent.CompletableFuture<>();
    m.commit.set(done);
    return ok("member", name, "committed", done.get(30, TimeUnit.SECONDS));
  }

  static Map<String, Object> holdRevocation(String name, String onOff) {
    Member m = members.get(name);
    if (m == null || !m.kind.equals("consumer")) throw new IllegalArgumentException("no consumer " + name);
    if (!onOff.equals("on") && !onOff.equals("off")) throw new IllegalArgumentException("hold-revocation: on or off");
    m.holdRevocation.set(onOff.equals("on"));
    return ok("member", name, "holdRevocation", m.holdRevocation.get());
  }

  static Map<String, Object> groupConfig(String group, String key, String value) throws Exception {
    org.apache.kafka.common.config.ConfigResource r =
        new org.apache.kafka.common.config.ConfigResource(org.apache.kafka.common.config.ConfigResource.Type.GROUP, group);
    admin.incrementalAlterConfigs(Map.of(r, List.of(new org.apache.kafka.clients.admin.AlterConfigOp(
        new org.apache.kafka.clients.admin.ConfigEntry(key, value), org.apache.kafka.clients.admin.AlterConfigOp.OpType.SET))))
        .all().get(30, TimeUnit.SECONDS);
    return ok("group", group, key, value);
  }

  static void stopMember(String name) throws Exception {
    Member m = members.remove(name);
    if (m == null) throw new IllegalArgumentException("no member " + name);
    m.stop.set(true);
    m.wake();
    m.thread.join(30000);
    if (m.thread.isAlive()) throw new IllegalStateException("member " + name + " did not stop within 30 s");
  }

  static Map<String, Object> listMembers() {
    List<Map<String, Object>> l = new ArrayList<>();
    for (String k : new TreeSet<>(members.keySet())) l.add(members.get(k).describe());
    return ok("members", l);
  }
}
