package io.k4j.storage.etcd;

import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.options.DeleteOption;
import io.k4j.storage.KeyValueStore;
import io.k4j.storage.testing.KeyValueStoreConformance;

/**
 * The shared conformance suite against a real etcd. One etcd serves the whole class; every test gets an empty key
 * space (its revision continues from the previous test, which the suite allows).
 */
class EtcdKeyValueStoreTest extends KeyValueStoreConformance {
    private static final ByteSequence ZERO_KEY = ByteSequence.from(new byte[] {0});

    private static EtcdProcess etcd;
    private static Client rawClient;

    @BeforeAll
    static void startEtcd() {
        etcd = EtcdProcess.start();
        rawClient = Client.builder().endpoints(etcd.clientUrl()).build();
    }

    @AfterAll
    static void stopEtcd() {
        if (rawClient != null) {
            rawClient.close();
        }
        if (etcd != null) {
            etcd.close();
        }
    }

    @Override
    protected KeyValueStore newStore() {
        try {
            rawClient.getKVClient().delete(ZERO_KEY, DeleteOption.builder().withRange(ZERO_KEY).build()).get(30, TimeUnit.SECONDS);
        }
        catch (Exception e) {
            throw new IllegalStateException("cannot empty etcd before the test", e);
        }
        return EtcdKeyValueStore.connect(etcd.endpoint());
    }
}
