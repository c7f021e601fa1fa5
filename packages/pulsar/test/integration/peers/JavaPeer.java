import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.HexFormat;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.apache.pulsar.client.api.CompressionType;
import org.apache.pulsar.client.api.Consumer;
import org.apache.pulsar.client.api.Message;
import org.apache.pulsar.client.api.Producer;
import org.apache.pulsar.client.api.PulsarClient;
import org.apache.pulsar.client.api.SubscriptionInitialPosition;

/**
 * Apache's Java client as a peer of toolmesh's binary transport.
 *
 *   produce URL TOPIC COUNT SIZE CODEC BATCHING CHUNKING
 *       COUNT pseudo-random messages of SIZE bytes (seeded by their index), with properties and a key;
 *       prints "<i> <sha256>" per message, then "sent COUNT" once all are stored.
 *   consume URL TOPIC SUBSCRIPTION COUNT
 *       subscribes from the earliest message, prints "ready", then one line per message:
 *       "<key> <properties> <payload>" (payload as UTF-8), acking each; "received COUNT" at the end.
 */
public class JavaPeer {
  public static void main(String[] args) throws Exception {
    try (PulsarClient client = PulsarClient.builder().serviceUrl(args[1]).build()) {
      switch (args[0]) {
        case "produce" -> produce(client, args);
        case "consume" -> consume(client, args);
        default -> throw new IllegalArgumentException("produce or consume, not " + args[0]);
      }
    }
  }

  static void produce(PulsarClient client, String[] args) throws Exception {
    String topic = args[2];
    int count = Integer.parseInt(args[3]);
    int size = Integer.parseInt(args[4]);
    String codec = args[5];
    boolean batching = Boolean.parseBoolean(args[6]);
    boolean chunking = Boolean.parseBoolean(args[7]);
    try (Producer<byte[]> producer = client.newProducer()
        .topic(topic)
        .compressionType(CompressionType.valueOf(codec))
        .enableBatching(batching)
        .batchingMaxMessages(1000)
        .batchingMaxPublishDelay(200, TimeUnit.MILLISECONDS)
        .enableChunking(chunking)
        .create()) {
      for (int i = 0; i < count; i++) {
        byte[] payload = new byte[size];
        new Random(i).nextBytes(payload);
        producer.newMessage()
            .value(payload)
            .key("java-" + i)
            .properties(Map.of("i", Integer.toString(i), "peer", "java", "codec", codec))
            .sendAsync();
        System.out.println(i + " " + HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(payload)));
      }
      producer.flush();
    }
    System.out.println("sent " + count);
  }

  static void consume(PulsarClient client, String[] args) throws Exception {
    int count = Integer.parseInt(args[4]);
    try (Consumer<byte[]> consumer = client.newConsumer()
        .topic(args[2])
        .subscriptionName(args[3])
        .subscriptionInitialPosition(SubscriptionInitialPosition.Earliest)
        .subscribe()) {
      System.out.println("ready");
      for (int i = 0; i < count; i++) {
        Message<byte[]> message = consumer.receive(30, TimeUnit.SECONDS);
        if (message == null) throw new IllegalStateException("only " + i + " of " + count + " messages came");
        System.out.println(message.getKey() + " " + new java.util.TreeMap<>(message.getProperties()) + " "
            + new String(message.getValue(), StandardCharsets.UTF_8));
        consumer.acknowledge(message);
      }
    }
    System.out.println("received " + count);
  }
}
