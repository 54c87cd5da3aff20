package io.k4j.storage.etcd;

import static java.nio.charset.StandardCharsets.UTF_8;

import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;

import io.k4j.storage.Lease;
import io.k4j.storage.StorageException;

/**
 * The child process of {@link EtcdDurabilityTest}: creates keys from several threads through
 * {@link EtcdKeyValueStore} until it is killed, and prints {@code ack <key>} for every create that returned.
 * A printed key is therefore acknowledged; the parent kills this process with SIGKILL and then checks them all.
 *
 * <p>Arguments: the etcd endpoint and the key prefix.
 */
public final class DurabilityWriter {
    static final String ACK = "ack ";
    private static final int THREADS = 8;

    private DurabilityWriter() {}

    public static void main(String[] arguments) throws InterruptedException {
        String endpoint = arguments[0];
        String prefix = arguments[1];
        PrintStream out = new PrintStream(System.out, false, UTF_8);
        EtcdKeyValueStore store = EtcdKeyValueStore.connect(endpoint);
        List<Thread> writers = new ArrayList<>();
        for (int thread = 0; thread < THREADS; thread++) {
            int writer = thread;
            writers.add(Thread.ofPlatform().start(() -> {
                for (int index = 0; ; index++) {
                    String key = prefix + writer + "/" + index;
                    try {
                        store.create(key, ("value " + index).getBytes(UTF_8), Lease.NONE);
                    }
                    catch (StorageException e) {
                        // Not acknowledged, so not printed: a slow etcd times a create out, and the writer goes on.
                        continue;
                    }
                    synchronized (out) {
                        out.println(ACK + key);
                        out.flush();
                    }
                }
            }));
        }
        for (Thread writer : writers) {
            writer.join();
        }
    }
}
