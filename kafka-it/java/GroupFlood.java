import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

/**
 * Many real KIP-848 consumer groups for the audit benchmark (test cluster only). Each of GROUPS groups
 * PREFIX-g-N gets one member (group.protocol=consumer) subscribed to two of the TOPICS topics TOPIC_PREFIX-K,
 * waits for its assignment, commits offsets for every assigned partition COMMITS times, and leaves: the
 * coordinator writes the member, epoch, target and current assignment records, the offset commits, and the
 * tombstones and new epoch of the leave. THREADS groups run at a time. Then LIVE groups PREFIX-live-N join and stay
 * (polling) until stdin closes, so the audit also meets groups with members.
 *   java -cp CLASSES:LIBS/* GroupFlood BOOTSTRAP PREFIX GROUPS THREADS COMMITS TOPIC_PREFIX TOPICS LIVE
 * Prints one JSON line when the groups are done and the live ones are assigned ("ready"), one more at the end.
 */
public class GroupFlood {
  static Properties props(String bootstrap, String group) {
    Properties p = new Properties();
    p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    p.put(ConsumerConfig.GROUP_ID_CONFIG, group);
    p.put(ConsumerConfig.GROUP_PROTOCOL_CONFIG, "consumer");
    p.put(ConsumerConfig.CLIENT_ID_CONFIG, group);
    p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
    p.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
    p.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
    return p;
  }

  static List<String> topicsOf(int n, String topicPrefix, int topics) {
    int a = n % topics;
    int b = (n * 7 + 3) % topics;
    return a == b ? List.of(topicPrefix + "-" + a) : List.of(topicPrefix + "-" + a, topicPrefix + "-" + b);
  }

  /** Polls until the member has an assignment (or 60 s). */
  static void awaitAssignment(KafkaConsumer<byte[], byte[]> c, String group) {
    long deadline = System.currentTimeMillis() + 60_000;
    while (c.assignment().isEmpty()) {
      if (System.currentTimeMillis() > deadline) throw new IllegalStateException(group + ": no assignment in 60 s");
      c.poll(Duration.ofMillis(100));
    }
  }

  public static void main(String[] args) throws Exception {
    if (args.length != 8) {
      System.err.println("usage: GroupFlood BOOTSTRAP PREFIX GROUPS THREADS COMMITS TOPIC_PREFIX TOPICS LIVE");
      System.exit(2);
    }
    String bootstrap = args[0], prefix = args[1], topicPrefix = args[5];
    int groups = Integer.parseInt(args[2]), threads = Integer.parseInt(args[3]), commits = Integer.parseInt(args[4]);
    int topics = Integer.parseInt(args[6]), live = Integer.parseInt(args[7]);
    long t0 = System.nanoTime();
    AtomicLong offsetRecords = new AtomicLong();
    AtomicInteger done = new AtomicInteger();
    AtomicInteger failed = new AtomicInteger();
    ExecutorService pool = Executors.newFixedThreadPool(threads);
    for (int i = 0; i < groups; i++) {
      final int n = i;
      pool.submit(() -> {
        String group = prefix + "-g-" + n;
        try (KafkaConsumer<byte[], byte[]> c = new KafkaConsumer<>(props(bootstrap, group))) {
          c.subscribe(topicsOf(n, topicPrefix, topics));
          awaitAssignment(c, group);
          for (int k = 1; k <= commits; k++) {
            Map<TopicPartition, OffsetAndMetadata> offsets = new HashMap<>();
            for (TopicPartition tp : c.assignment()) offsets.put(tp, new OffsetAndMetadata(k));
            c.commitSync(offsets);
            offsetRecords.addAndGet(offsets.size());
          }
        } catch (Exception e) {
          if (failed.incrementAndGet() <= 5) System.err.println(group + ": " + e);
        }
        int d = done.incrementAndGet();
        if (d % 1000 == 0) System.err.println("[GroupFlood] " + d + "/" + groups + " groups, " + (System.nanoTime() - t0) / 1_000_000 + " ms");
      });
    }
    pool.shutdown();
    pool.awaitTermination(3, TimeUnit.HOURS);
    long floodMs = (System.nanoTime() - t0) / 1_000_000;

    AtomicBoolean stop = new AtomicBoolean();
    List<Thread> members = new ArrayList<>();
    AtomicInteger assigned = new AtomicInteger();
    for (int i = 0; i < live; i++) {
      final int n = i;
      Thread t = new Thread(() -> {
        String group = prefix + "-live-" + n;
        try (KafkaConsumer<byte[], byte[]> c = new KafkaConsumer<>(props(bootstrap, group))) {
          c.subscribe(topicsOf(n, topicPrefix, topics));
          awaitAssignment(c, group);
          assigned.incrementAndGet();
          while (!stop.get()) c.poll(Duration.ofMillis(200));
        } catch (Exception e) {
          System.err.println(group + ": " + e);
          failed.incrementAndGet();
          assigned.incrementAndGet();
        }
      }, "live-" + n);
      t.setDaemon(true);
      t.start();
      members.add(t);
    }
    while (assigned.get() < live) Thread.sleep(100);
    System.out.println("{\"ready\":true,\"groups\":" + groups + ",\"liveGroups\":" + live + ",\"failed\":" + failed.get()
        + ",\"offsetCommitRecords\":" + offsetRecords.get() + ",\"floodMs\":" + floodMs + "}");
    System.out.flush();
    if (live > 0) {
      // the live members stay until stdin closes
      BufferedReader in = new BufferedReader(new InputStreamReader(System.in));
      while (in.readLine() != null) { /* ignore */ }
    }
    stop.set(true);
    for (Thread t : members) t.join(30_000);
    System.out.println("{\"done\":true}");
  }
}
