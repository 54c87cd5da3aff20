package io.k4j.storage.etcd;

import static org.assertj.core.api.Assertions.assertThat;

import io.k4j.storage.KeyValue;
import io.k4j.storage.RangeRequest;
import org.junit.jupiter.api.Test;

class EtcdStoreTrainingTest {
    @Test
    void exerciseLeavesOnlyTheKeptKeysAndCompactsHistory() {
        try (EtcdProcess etcd = EtcdProcess.start(); EtcdKeyValueStore store = EtcdKeyValueStore.connect(etcd.endpoint())) {
            long before = store.currentRevision();

            EtcdStoreTraining.exercise(store);

            assertThat(store.range(RangeRequest.prefix("/registry/training/")).items())
                    .extracting(KeyValue::key)
                    .hasSize(20)
                    .allMatch(key -> key.startsWith("/registry/training/kept/"));
            // 20 keys created, updated and deleted, then 20 more created.
            assertThat(store.currentRevision()).isEqualTo(before + 4 * 20);
            assertThat(store.compactedRevision()).isEqualTo(store.currentRevision() - 1);
        }
    }
}
