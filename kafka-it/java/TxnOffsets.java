import java.util.Map;
import java.util.Properties;
import org.apache.kafka.clients.consumer.ConsumerGroupMetadata;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * Transactional offset commits (TxnOffsetCommit) for the record reader's tests: each step commits OFFSET for
 * TOPIC-PARTITION in GROUP inside one transaction of one producer, then commits or aborts that transaction.
 *   java -cp CLASSES:LIBS/* TxnOffsets BOOTSTRAP TXN_ID GROUP TOPIC PARTITION commit:5 abort:7 abort:8 commit:9
 * Prints one JSON line per step.
 */
public class TxnOffsets {
  public static void main(String[] args) {
    if (args.length < 6) {
      System.err.println("usage: TxnOffsets BOOTSTRAP TXN_ID GROUP TOPIC PARTITION (commit|abort):OFFSET...");
      System.exit(2);
    }
    Properties p = new Properties();
    p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, args[0]);
    p.put(ProducerConfig.TRANSACTIONAL_ID_CONFIG, args[1]);
    p.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
    p.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
    p.put(ProducerConfig.TRANSACTION_TIMEOUT_CONFIG, "20000");
    TopicPartition tp = new TopicPartition(args[3], Integer.parseInt(args[4]));
    ConsumerGroupMetadata group = new ConsumerGroupMetadata(args[2]);
    try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(p)) {
      producer.initTransactions();
      for (int i = 5; i < args.length; i++) {
        String[] step = args[i].split(":");
        long offset = Long.parseLong(step[1]);
        producer.beginTransaction();
        producer.sendOffsetsToTransaction(Map.of(tp, new OffsetAndMetadata(offset)), group);
        if (step[0].equals("commit")) producer.commitTransaction();
        else producer.abortTransaction();
        System.out.println("{\"ok\":true,\"step\":\"" + step[0] + "\",\"offset\":" + offset + "}");
      }
    }
  }
}
