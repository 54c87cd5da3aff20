package io.k4j.storage.etcd;

import static java.nio.charset.StandardCharsets.UTF_8;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.LongAdder;

import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.KV;
import io.etcd.jetcd.op.Cmp;
import io.etcd.jetcd.op.CmpTarget;
import io.etcd.jetcd.op.Op;
import io.etcd.jetcd.options.PutOption;
import io.k4j.storage.Lease;

/**
 * A quick throughput figure, not a test: single-key creates per second with 64 concurrent writers through
 * {@link EtcdKeyValueStore}, against the same create transaction and plain puts through raw jetcd on the same
 * etcd in the same run. Rounds alternate so that
 * machine noise hits both sides alike. Run with the test class path:
 * {@code java -cp <test classpath> io.k4j.storage.etcd.EtcdThroughput [seconds per round] [rounds]}.
 */
public final class EtcdThroughput {
    private static final int WRITERS = 64;
    private static final byte[] VALUE = "{\"kind\":\"Pod\",\"metadata\":{\"name\":\"x\"}}".getBytes(UTF_8);

    private EtcdThroughput() {}

    public static void main(String[] arguments) throws Exception {
        Duration round = Duration.ofSeconds(arguments.length > 0 ? Integer.parseInt(arguments[0]) : 10);
        int rounds = arguments.length > 1 ? Integer.parseInt(arguments[1]) : 2;
        try (EtcdProcess etcd = EtcdProcess.start();
                EtcdKeyValueStore store = EtcdKeyValueStore.connect(etcd.endpoint());
                Client client = Client.builder().endpoints(etcd.clientUrl()).build()) {
            KV kv = client.getKVClient();
            // Warm both paths up (connections, JIT) before measuring.
            measure("warm-up", Duration.ofSeconds(3), (writer, index) -> store.create("/warm/store/" + writer + "/" + index, VALUE, Lease.NONE));
            measure("warm-up", Duration.ofSeconds(3), (writer, index) -> kv.put(key("/warm/raw/" + writer + "/" + index), ByteSequence.from(VALUE)).get());
            double storeTotal = 0;
            double rawTxnTotal = 0;
            double rawTotal = 0;
            for (int number = 1; number <= rounds; number++) {
                String storePrefix = "/registry/store-" + number + "/";
                String rawTxnPrefix = "/registry/raw-txn-" + number + "/";
                String rawPrefix = "/registry/raw-" + number + "/";
                // Throughput drifts during a run (JIT, etcd's own warm-up), so each round starts with another side.
                for (int turn = 0; turn < 3; turn++) {
                    switch ((number + turn) % 3) {
                        case 0 -> storeTotal += measure("EtcdKeyValueStore.create (round " + number + ")", round,
                                (writer, index) -> store.create(storePrefix + writer + "/" + index, VALUE, Lease.NONE));
                        case 1 -> rawTxnTotal += measure("raw jetcd create Txn (round " + number + ")", round, (writer, index) -> {
                            ByteSequence key = key(rawTxnPrefix + writer + "/" + index);
                            kv.txn().If(new Cmp(key, Cmp.Op.EQUAL, CmpTarget.modRevision(0)))
                                    .Then(Op.put(key, ByteSequence.from(VALUE), PutOption.DEFAULT))
                                    .commit().get();
                        });
                        default -> rawTotal += measure("raw jetcd put (round " + number + ")", round,
                                (writer, index) -> kv.put(key(rawPrefix + writer + "/" + index), ByteSequence.from(VALUE)).get());
                    }
                }
            }
            System.out.printf("%nmean over %d rounds of %s with %d writers: store %.0f creates/s, raw jetcd create Txn %.0f/s,"
                    + " raw jetcd put %.0f/s; store/raw put %.2f, store/raw Txn %.2f%n",
                    rounds, round, WRITERS, storeTotal / rounds, rawTxnTotal / rounds, rawTotal / rounds,
                    storeTotal / rawTotal, storeTotal / rawTxnTotal);
        }
    }

    private static ByteSequence key(String key) {
        return ByteSequence.from(key, UTF_8);
    }

    private static double measure(String name, Duration duration, Write write) throws InterruptedException {
        LongAdder completed = new LongAdder();
        AtomicBoolean running = new AtomicBoolean(true);
        CountDownLatch start = new CountDownLatch(1);
        List<Thread> writers = new ArrayList<>();
        for (int writer = 0; writer < WRITERS; writer++) {
            int writerNumber = writer;
            writers.add(Thread.ofPlatform().start(() -> {
                try {
                    start.await();
                    for (int index = 0; running.get(); index++) {
                        write.run(writerNumber, index);
                        completed.increment();
                    }
                }
                catch (Exception e) {
                    throw new IllegalStateException(e);
                }
            }));
        }
        long began = System.nanoTime();
        start.countDown();
        Thread.sleep(duration.toMillis());
        long count = completed.sum();
        double seconds = (System.nanoTime() - began) / 1e9;
        running.set(false);
        for (Thread writer : writers) {
            writer.join(TimeUnit.SECONDS.toMillis(30));
        }
        double perSecond = count / seconds;
        System.out.printf("%-50s %8.0f/s (%d in %.1f s)%n", name, perSecond, count, seconds);
        return perSecond;
    }

    @FunctionalInterface
    private interface Write {
        void run(int writer, int index) throws Exception;
    }
}
