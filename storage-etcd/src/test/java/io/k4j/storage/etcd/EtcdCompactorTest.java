package io.k4j.storage.etcd;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import java.time.Duration;

import org.junit.jupiter.api.Test;

import io.k4j.storage.KeyValue;
import io.k4j.storage.Lease;
import io.k4j.storage.RangeRequest;
import io.k4j.storage.StorageException;

/** The apiserver's periodic compaction on a real etcd; each test starts its own, so their turns do not mix. */
class EtcdCompactorTest {
    @Test
    void aTurnCompactsAtTheRevisionThePreviousTurnSaw() {
        try (EtcdProcess etcd = EtcdProcess.start(); EtcdKeyValueStore store = EtcdKeyValueStore.connect(etcd.endpoint())) {
            EtcdCompactor compactor = new EtcdCompactor(store);
            KeyValue first = store.create("/registry/a", bytes("1"), Lease.NONE);

            assertThat(compactor.compactOnce()).as("the first turn only records where the next one compacts").isZero();
            assertThat(store.compactedRevision()).isZero();
            long seenByFirstTurn = store.currentRevision();
            KeyValue second = store.update("/registry/a", bytes("2"), first.modRevision(), Lease.NONE);

            assertThat(compactor.compactOnce()).isEqualTo(seenByFirstTurn);
            assertThat(store.compactedRevision()).isEqualTo(seenByFirstTurn);
            // The history since the previous turn stays readable; what came before it is gone.
            assertThat(store.range(RangeRequest.prefix("/registry/").atRevision(seenByFirstTurn)).items())
                    .extracting(item -> new String(item.value(), UTF_8)).containsExactly("1");
            assertThat(store.get("/registry/a").modRevision()).isEqualTo(second.modRevision());
            assertThatThrownBy(() -> store.range(RangeRequest.prefix("/registry/").atRevision(first.modRevision())))
                    .isInstanceOf(StorageException.Compacted.class);
        }
    }

    @Test
    void serversOnOneEtcdTakeOneTurnPerInterval() {
        try (EtcdProcess etcd = EtcdProcess.start();
                EtcdKeyValueStore storeA = EtcdKeyValueStore.connect(etcd.endpoint());
                EtcdKeyValueStore storeB = EtcdKeyValueStore.connect(etcd.endpoint())) {
            EtcdCompactor serverA = new EtcdCompactor(storeA);
            EtcdCompactor serverB = new EtcdCompactor(storeB);
            long compactions = 0;
            for (int interval = 1; interval <= 3; interval++) {
                storeA.create("/registry/interval-" + interval, bytes("x"), Lease.NONE);
                long byA = serverA.compactOnce();
                long byB = serverB.compactOnce();
                assertThat(byB).as("B lost interval %d's turn to A", interval).isZero();
                compactions += byA > 0 ? 1 : 0;
            }
            // One write of the turn key per interval, and every interval after the first compacted once.
            assertThat(storeA.get(EtcdCompactor.COMPACT_REVISION_KEY).version()).isEqualTo(3);
            assertThat(compactions).isEqualTo(2);
        }
    }

    @Test
    void aServerWhoseTurnsWereTakenCompactsOnceTheOtherStops() {
        try (EtcdProcess etcd = EtcdProcess.start();
                EtcdKeyValueStore storeA = EtcdKeyValueStore.connect(etcd.endpoint());
                EtcdKeyValueStore storeB = EtcdKeyValueStore.connect(etcd.endpoint())) {
            EtcdCompactor serverA = new EtcdCompactor(storeA);
            EtcdCompactor serverB = new EtcdCompactor(storeB);
            serverA.compactOnce();
            assertThat(serverB.compactOnce()).isZero();
            long seenByB = storeB.currentRevision();
            storeB.create("/registry/after-a", bytes("x"), Lease.NONE);

            // A has stopped: B's next turn succeeds and compacts at the revision its lost turn saw.
            assertThat(serverB.compactOnce()).isEqualTo(seenByB);
        }
    }

    @Test
    void compactingPeriodicallyKeepsHistoryBoundedWithoutCalls() {
        try (EtcdProcess etcd = EtcdProcess.start(); EtcdKeyValueStore store = EtcdKeyValueStore.connect(etcd.endpoint())) {
            long early = store.create("/registry/early", bytes("x"), Lease.NONE).modRevision();
            store.compactPeriodically(Duration.ofMillis(100));
            await().atMost(Duration.ofSeconds(20)).untilAsserted(() -> {
                store.create("/registry/key-" + System.nanoTime(), bytes("x"), Lease.NONE);
                assertThat(store.compactedRevision()).isGreaterThan(early);
            });
        }
    }

    private static byte[] bytes(String text) {
        return text.getBytes(UTF_8);
    }
}
