import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.bookkeeper.discover.BookieServiceInfo;
import org.apache.pulsar.metadata.api.MetadataSerde;
import org.apache.pulsar.metadata.api.MetadataStoreConfig;
import org.apache.pulsar.metadata.api.NotificationType;
import org.apache.pulsar.metadata.api.coordination.ResourceLock;
import org.apache.pulsar.metadata.api.extended.MetadataStoreExtended;
import org.apache.pulsar.metadata.bookkeeper.BookieServiceInfoSerde;
import org.apache.pulsar.metadata.coordination.impl.CoordinationServiceImpl;

/**
 * Whether the broker's jars let a bookie's registration lock revalidate itself forever (pom.xml's
 * bookkeeper.version says why they could). A standalone bookie registers by holding a metadata-store lock
 * on /ledgers/available/<id> whose value is its BookieServiceInfo. This takes such a lock the same way, in
 * a RocksDB metadata store in a fresh folder, then revalidates it once, as a Deleted notification for its
 * node makes the lock manager do, and counts how often the node is deleted in the next LOCK_LOOP_SECONDS (3).
 * Prints the count; exits 1 when it is above 1 (the loop), else 0.
 *   java -cp '<broker jars>/*' infra/pulsar/check/BookieLockLoop.java
 */
public class BookieLockLoop {
  private static final String PATH = "/ledgers/available/127.0.0.1:3181";

  public static void main(String[] args) throws Exception {
    long seconds = Long.parseLong(System.getenv().getOrDefault("LOCK_LOOP_SECONDS", "3"));
    Path folder = Files.createTempDirectory("bookie-lock-loop");
    MetadataStoreExtended store = MetadataStoreExtended.create("rocksdb:" + folder, MetadataStoreConfig.builder().build());
    AtomicInteger deletes = new AtomicInteger();
    store.registerListener(n -> {
      if (n.getType() == NotificationType.Deleted && n.getPath().equals(PATH)) deletes.incrementAndGet();
    });
    ResourceLock<BookieServiceInfo> lock =
        new CoordinationServiceImpl(store).getLockManager(registrationSerde()).acquireLock(PATH, registration()).get();
    // ResourceLockImpl.lockWasInvalidated is what LockManagerImpl runs on a Deleted notification for the path.
    Method invalidated = lock.getClass().getDeclaredMethod("lockWasInvalidated");
    invalidated.setAccessible(true);
    invalidated.invoke(lock);
    Thread.sleep(seconds * 1000);
    int count = deletes.get();
    System.out.println("lock node deletes in " + seconds + " s after one revalidation: " + count);
    System.exit(count > 1 ? 1 : 0);
  }

  /** A bookie's registration as PulsarRegistrationManager writes it: one bookie-rpc endpoint. */
  private static BookieServiceInfo registration() {
    BookieServiceInfo.Endpoint rpc = new BookieServiceInfo.Endpoint("bookie", 3181, "127.0.0.1", "bookie-rpc", List.of(), List.of());
    return new BookieServiceInfo(Map.of(), List.of(rpc));
  }

  /** The serde the registration manager uses (its INSTANCE field is package-private). */
  @SuppressWarnings("unchecked")
  private static MetadataSerde<BookieServiceInfo> registrationSerde() throws ReflectiveOperationException {
    Field instance = BookieServiceInfoSerde.class.getDeclaredField("INSTANCE");
    instance.setAccessible(true);
    return (MetadataSerde<BookieServiceInfo>) instance.get(null);
  }
}
