// Prints src/kafka/error-codes.ts from Kafka's own Errors enum (org.apache.kafka.common.protocol.Errors):
//   java -cp ".kafka-libs/4.4.0/*" scripts/KafkaErrorCodes.java 4.4.0 > src/kafka/error-codes.ts
// (the jars: KAFKA_VERSION=4.4.0 bash kafka-it/cluster.sh libs). Retriable: the error's exception is a
// RetriableException, as Kafka's clients decide.
import org.apache.kafka.common.errors.RetriableException;
import org.apache.kafka.common.protocol.Errors;

public class KafkaErrorCodes {
    public static void main(String[] args) {
        StringBuilder out = new StringBuilder();
        out.append("/**\n");
        out.append(" * Kafka protocol error codes: name and whether Kafka's clients retry it (its exception is a RetriableException).\n");
        out.append(" * Generated from Kafka ").append(args[0]).append("'s org.apache.kafka.common.protocol.Errors by\n");
        out.append(" * scripts/KafkaErrorCodes.java; do not edit by hand.\n");
        out.append(" */\n");
        out.append("export const KAFKA_ERRORS: ReadonlyMap<number, {readonly name: string; readonly retriable: boolean}> = new Map([\n");
        for (Errors e : Errors.values()) {
            boolean retriable = e.exception() instanceof RetriableException;
            out.append("  [").append(e.code()).append(", {name: '").append(e.name()).append("', retriable: ").append(retriable).append("}],\n");
        }
        out.append("])\n\n");
        out.append("/** The error's name (e.g. 29 -> TOPIC_AUTHORIZATION_FAILED), or `error code N` for a code this Kafka version does not know. */\n");
        out.append("export function kafkaErrorName(code: number): string {\n");
        out.append("  return KAFKA_ERRORS.get(code)?.name ?? `error code ${code}`\n");
        out.append("}\n");
        System.out.print(out);
    }
}
