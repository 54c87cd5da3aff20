package io.k4j.apiserver.registry.core.service;

import static io.k4j.apiserver.registry.core.Json.object;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.k4j.api.errors.StatusException;
import io.k4j.apiserver.registry.generic.AdmissionChain;
import io.k4j.apiserver.registry.generic.GenericStore;
import io.k4j.apiserver.registry.generic.OperationContext;
import io.k4j.apiserver.registry.generic.ResourceDefinition;
import io.k4j.storage.sqlite.SqliteKeyValueStore;
import java.nio.file.Path;
import java.time.Instant;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Allocation through the real store on SQLite: what a client sees on create, update and delete. */
class ServiceAllocationTest {
    private static final InstantSource CLOCK = InstantSource.fixed(Instant.parse("2026-01-02T03:04:05Z"));
    private static final OperationContext DRY_RUN = new OperationContext(OperationContext.SYSTEM_USER, true, false);

    private SqliteKeyValueStore storage;
    private final List<GenericStore> stores = new ArrayList<>();
    private ServiceAllocator allocator;
    private GenericStore services;

    @BeforeEach
    void open(@TempDir Path directory) {
        storage = SqliteKeyValueStore.open(directory.resolve("state.db"));
        services = start();
    }

    @AfterEach
    void close() {
        stores.forEach(GenericStore::close);
        storage.close();
    }

    /** A store and allocator as a (re)started apiserver builds them. */
    private GenericStore start() {
        allocator = new ServiceAllocator(ClusterIpRange.DEFAULT, NodePortRange.DEFAULT, new Random(42));
        GenericStore store = new GenericStore(new ResourceDefinition(new ServiceStrategy(CLOCK), Map.of(), List.of(), Optional.empty(), allocator),
                storage, AdmissionChain.NONE, CLOCK, 100);
        store.start();
        stores.add(store);
        return store;
    }

    private static ObjectNode service(String name, String spec) {
        ObjectNode service = object("{'apiVersion':'v1','kind':'Service','metadata':{'name':'" + name + "','namespace':'default'},'spec':" + spec + "}");
        return service;
    }

    private ObjectNode create(String name, String spec) {
        return services.create("default", service(name, spec), OperationContext.IN_PROCESS).object();
    }

    private static String clusterIp(ObjectNode service) {
        return service.at("/spec/clusterIP").asText();
    }

    @Test
    void createsGetAnAddressInTheRangeOutsideTheStaticBand() {
        ObjectNode created = create("web", "{'ports':[{'port':80}]}");
        assertThat(ClusterIpRange.DEFAULT.offsetOf(clusterIp(created)).orElseThrow()).isGreaterThanOrEqualTo(256);
        assertThat(created.at("/spec/clusterIPs/0").asText()).isEqualTo(clusterIp(created));
        assertThat(allocator.isAllocated(clusterIp(created))).isTrue();
        assertThat(services.get("default", "web").at("/spec/clusterIP").asText()).isEqualTo(clusterIp(created));
    }

    @Test
    void requestedAddressesOutsideTheRangeOrTakenAreRejectedWithUpstreamMessages() {
        create("dns", "{'clusterIP':'10.96.0.10','ports':[{'port':53}]}");
        assertThatThrownBy(() -> create("other", "{'clusterIP':'10.96.0.10','ports':[{'port':53}]}"))
                .isInstanceOfSatisfying(StatusException.class, e -> {
                    assertThat(e.code()).isEqualTo(422);
                    assertThat(e.getMessage()).isEqualTo("Service \"other\" is invalid: spec.clusterIPs: Invalid value: []string{\"10.96.0.10\"}: "
                            + "failed to allocate IP 10.96.0.10: provided IP is already allocated");
                });
        assertThatThrownBy(() -> create("outside", "{'clusterIP':'1.1.1.1','ports':[{'port':53}]}"))
                .isInstanceOfSatisfying(StatusException.class, e -> assertThat(e.getMessage()).isEqualTo(
                        "Service \"outside\" is invalid: spec.clusterIPs: Invalid value: []string{\"1.1.1.1\"}: failed to allocate IP 1.1.1.1: "
                                + "the provided IP (1.1.1.1) is not in the valid range. The range of valid IPs is 10.96.0.0/12"));
        assertThat(allocator.isAllocated("1.1.1.1")).isFalse();
    }

    @Test
    void deleteFreesTheAddressAndNodePorts() {
        ObjectNode created = create("web", "{'type':'NodePort','ports':[{'port':80,'nodePort':30080}]}");
        services.delete("default", "web");
        assertThat(allocator.isAllocated(clusterIp(created))).isFalse();
        assertThat(allocator.isAllocated(30080)).isFalse();
        ObjectNode again = create("again", "{'type':'NodePort','clusterIP':'" + clusterIp(created) + "','ports':[{'port':80,'nodePort':30080}]}");
        assertThat(clusterIp(again)).isEqualTo(clusterIp(created));
    }

    @Test
    void headlessAndExternalNameServicesGetNoAddress() {
        ObjectNode headless = create("headless", "{'clusterIP':'None','ports':[{'port':80}]}");
        assertThat(clusterIp(headless)).isEqualTo("None");
        ObjectNode external = create("external", "{'type':'ExternalName','externalName':'example.com'}");
        assertThat(external.at("/spec/clusterIP").isMissingNode()).isTrue();
    }

    @Test
    void nodePortsAreAllocatedPerPortAndSharedByProtocolsOfOnePort() {
        ObjectNode created = create("dns", "{'type':'NodePort','ports':[{'name':'udp','port':53,'protocol':'UDP'},{'name':'tcp','port':53,'protocol':'TCP'},"
                + "{'name':'metrics','port':9153}]}");
        long udp = created.at("/spec/ports/0/nodePort").asLong();
        assertThat(udp).isBetween(30000L, 32767L);
        assertThat(created.at("/spec/ports/1/nodePort").asLong()).isEqualTo(udp);
        assertThat(created.at("/spec/ports/2/nodePort").asLong()).isBetween(30000L, 32767L).isNotEqualTo(udp);
    }

    @Test
    void requestedNodePortsOutsideTheRangeOrTakenAreRejectedWithUpstreamMessages() {
        create("first", "{'type':'NodePort','ports':[{'port':80,'nodePort':30080}]}");
        assertThat(allocator.isAllocated(30080)).isTrue();
        assertThatThrownBy(() -> create("second", "{'type':'NodePort','ports':[{'port':80,'nodePort':30080}]}"))
                .isInstanceOfSatisfying(StatusException.class, e -> {
                    assertThat(e.code()).isEqualTo(422);
                    assertThat(e.getMessage()).isEqualTo("Service \"second\" is invalid: spec.ports[0].nodePort: Invalid value: 30080: provided port is already allocated");
                });
        assertThatThrownBy(() -> create("third", "{'type':'NodePort','ports':[{'port':80,'nodePort':8080}]}"))
                .isInstanceOfSatisfying(StatusException.class, e -> assertThat(e.getMessage()).isEqualTo(
                        "Service \"third\" is invalid: spec.ports[0].nodePort: Invalid value: 8080: "
                                + "provided port is not in the valid range. The range of valid ports is 30000-32767"));
    }

    @Test
    void aRejectedCreateGivesBackWhatItReserved() {
        ObjectNode created = create("web", "{'ports':[{'port':80}]}");
        // Same name: the storage refuses it after the allocator reserved an address and a node port.
        assertThatThrownBy(() -> create("web", "{'type':'NodePort','clusterIP':'10.96.0.20','ports':[{'port':80,'nodePort':30090}]}"))
                .isInstanceOfSatisfying(StatusException.class, e -> assertThat(e.code()).isEqualTo(409));
        assertThat(allocator.isAllocated("10.96.0.20")).isFalse();
        assertThat(allocator.isAllocated(30090)).isFalse();
        assertThat(allocator.isAllocated(clusterIp(created))).isTrue();
    }

    @Test
    void aDryRunShowsAnAddressButKeepsNothing() {
        ObjectNode result = services.create("default", service("web", "{'clusterIP':'10.96.0.30','type':'NodePort','ports':[{'port':80}]}"), DRY_RUN).object();
        assertThat(clusterIp(result)).isEqualTo("10.96.0.30");
        assertThat(result.at("/spec/ports/0/nodePort").asLong()).isBetween(30000L, 32767L);
        assertThat(allocator.isAllocated("10.96.0.30")).isFalse();
        assertThat(allocator.isAllocated((int) result.at("/spec/ports/0/nodePort").asLong())).isFalse();
    }

    @Test
    void typeChangesAllocateAndRelease() {
        ObjectNode created = create("web", "{'ports':[{'name':'http','port':80}]}");
        String ip = clusterIp(created);

        ObjectNode nodePort = services.guaranteedUpdate("default", "web", "", current -> {
            ((ObjectNode) current.get("spec")).put("type", "NodePort");
            return current;
        });
        long allocatedPort = nodePort.at("/spec/ports/0/nodePort").asLong();
        assertThat(allocatedPort).isBetween(30000L, 32767L);
        assertThat(allocator.isAllocated((int) allocatedPort)).isTrue();
        assertThat(clusterIp(nodePort)).isEqualTo(ip);

        // A PUT without the allocated values keeps them, as upstream.
        ObjectNode replaced = services.guaranteedUpdate("default", "web", "", current -> {
            ObjectNode spec = (ObjectNode) current.get("spec");
            spec.remove("clusterIP");
            spec.remove("clusterIPs");
            ((ObjectNode) spec.get("ports").get(0)).remove("nodePort");
            return current;
        });
        assertThat(clusterIp(replaced)).isEqualTo(ip);
        assertThat(replaced.at("/spec/ports/0/nodePort").asLong()).isEqualTo(allocatedPort);

        ObjectNode clusterIpAgain = services.guaranteedUpdate("default", "web", "", current -> {
            ((ObjectNode) current.get("spec")).put("type", "ClusterIP");
            return current;
        });
        assertThat(clusterIpAgain.at("/spec/ports/0/nodePort").isMissingNode()).isTrue();
        assertThat(allocator.isAllocated((int) allocatedPort)).isFalse();

        ObjectNode external = services.guaranteedUpdate("default", "web", "", current -> {
            ObjectNode spec = (ObjectNode) current.get("spec");
            spec.put("type", "ExternalName");
            spec.put("externalName", "example.com");
            return current;
        });
        assertThat(external.at("/spec/clusterIP").isMissingNode()).isTrue();
        assertThat(allocator.isAllocated(ip)).isFalse();

        ObjectNode back = services.guaranteedUpdate("default", "web", "", current -> {
            ObjectNode spec = (ObjectNode) current.get("spec");
            spec.put("type", "ClusterIP");
            spec.remove("externalName");
            return current;
        });
        assertThat(allocator.isAllocated(clusterIp(back))).isTrue();
    }

    @Test
    void theClusterIpCannotChange() {
        create("web", "{'clusterIP':'10.96.0.40','ports':[{'port':80}]}");
        assertThatThrownBy(() -> services.guaranteedUpdate("default", "web", "", current -> {
            ObjectNode spec = (ObjectNode) current.get("spec");
            spec.put("clusterIP", "10.96.0.41");
            spec.putArray("clusterIPs").add("10.96.0.41");
            return current;
        })).isInstanceOfSatisfying(StatusException.class, e -> assertThat(e.getMessage()).isEqualTo(
                "Service \"web\" is invalid: spec.clusterIPs[0]: Invalid value: []string{\"10.96.0.41\"}: may not change once set"));
        assertThat(allocator.isAllocated("10.96.0.41")).isFalse();
    }

    @Test
    void aRestartRebuildsTheAllocationsFromTheStoredServices() {
        ObjectNode created = create("web", "{'type':'NodePort','ports':[{'port':80,'nodePort':30100}]}");
        services = start();
        assertThat(allocator.isAllocated(clusterIp(created))).isTrue();
        assertThatThrownBy(() -> create("copy", "{'clusterIP':'" + clusterIp(created) + "','ports':[{'port':80}]}"))
                .hasMessageContaining("provided IP is already allocated");
        assertThatThrownBy(() -> create("copy", "{'type':'NodePort','ports':[{'port':80,'nodePort':30100}]}"))
                .hasMessageContaining("provided port is already allocated");
    }

    @Test
    void concurrentCreatesNeverShareAnAddress() throws Exception {
        ServiceAllocator small = new ServiceAllocator(ClusterIpRange.parse("10.0.0.0/26"), NodePortRange.DEFAULT, new Random(3));
        GenericStore store = new GenericStore(new ResourceDefinition(new ServiceStrategy(CLOCK), Map.of(), List.of(), Optional.empty(), small),
                storage, AdmissionChain.NONE, CLOCK, 100);
        store.start();
        stores.add(store);
        ExecutorService executor = Executors.newFixedThreadPool(8);
        try {
            List<Callable<String>> creates = new ArrayList<>();
            for (int index = 0; index < 62; index++) {
                String name = "svc-" + index;
                creates.add(() -> clusterIp(store.create("default", service(name, "{'type':'NodePort','ports':[{'port':80}]}"), OperationContext.IN_PROCESS).object()));
            }
            Set<String> addresses = new HashSet<>();
            for (Future<String> result : executor.invokeAll(creates)) {
                addresses.add(result.get());
            }
            assertThat(addresses).hasSize(62);
        } finally {
            executor.shutdownNow();
        }
        // The range (62 usable addresses) is now full.
        assertThatThrownBy(() -> store.create("default", service("one-more", "{'ports':[{'port':80}]}"), OperationContext.IN_PROCESS))
                .isInstanceOfSatisfying(StatusException.class, e -> {
                    assertThat(e.code()).isEqualTo(500);
                    assertThat(e.getMessage()).contains("failed to allocate a serviceIP: range is full");
                });
    }
}
