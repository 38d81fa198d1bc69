import java.util.HashMap;
import java.util.Map;
import java.util.Properties;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

/**
 * Fills a group's __consumer_offsets partition with real coordinator records for benchmarks (test cluster only):
 * COMMITS offset commits of all PARTITIONS partitions of TOPIC, each commit writing PARTITIONS OffsetCommit records.
 *   java -cp CLASSES:LIBS/* OffsetFlood BOOTSTRAP GROUP TOPIC PARTITIONS COMMITS
 */
public class OffsetFlood {
  public static void main(String[] args) {
    if (args.length != 5) {
      System.err.println("usage: OffsetFlood BOOTSTRAP GROUP TOPIC PARTITIONS COMMITS");
      System.exit(2);
    }
    Properties p = new Properties();
    p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, args[0]);
    p.put(ConsumerConfig.GROUP_ID_CONFIG, args[1]);
    p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
    p.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
    p.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
    int partitions = Integer.parseInt(args[3]);
    int commits = Integer.parseInt(args[4]);
    long t0 = System.nanoTime();
    try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(p)) {
      for (int c = 1; c <= commits; c++) {
        Map<TopicPartition, OffsetAndMetadata> offsets = new HashMap<>();
        for (int i = 0; i < partitions; i++) offsets.put(new TopicPartition(args[2], i), new OffsetAndMetadata(c));
        consumer.commitSync(offsets);
      }
    }
    System.out.println("{\"ok\":true,\"records\":" + ((long) partitions * commits) + ",\"ms\":" + (System.nanoTime() - t0) / 1_000_000 + "}");
  }
}
