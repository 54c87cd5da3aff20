package io.k4j.dns.records;

import static io.k4j.dns.records.Fixtures.clusterIpService;
import static io.k4j.dns.records.Fixtures.headlessService;
import static io.k4j.dns.records.Fixtures.slice;
import static org.assertj.core.api.Assertions.assertThat;

import io.k4j.dns.records.Fixtures.Address;
import io.k4j.dns.records.Fixtures.Port;
import java.net.InetAddress;
import java.time.Instant;
import java.time.InstantSource;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class RecordIndexTest {
    private static final Port HTTP = new Port("http", "TCP", 80);
    private final RecordIndex index = new RecordIndex(InstantSource.fixed(Instant.parse("2026-11-22T12:00:00Z")));

    @Test
    void clusterIpServiceIsIndexedUpdatedAndRemoved() throws Exception {
        index.putService(clusterIpService("default", "web", "10.96.0.20", HTTP));

        ServiceEntry entry = index.service("default", "web").orElseThrow();
        assertThat(entry.kind()).isEqualTo(new ServiceEntry.ClusterIp(List.of(InetAddress.getByName("10.96.0.20"))));
        assertThat(entry.ports()).containsExactly(new ServicePort(Optional.of("http"), "TCP", 80));
        assertThat(index.hasNamespace("default")).isTrue();
        assertThat(index.reverse(InetAddress.getByName("10.96.0.20"))).containsExactly(new ReverseName("default", "web", Optional.empty()));

        index.putService(clusterIpService("default", "web", "10.96.0.21", HTTP));
        assertThat(index.reverse(InetAddress.getByName("10.96.0.20"))).isEmpty();
        assertThat(index.reverse(InetAddress.getByName("10.96.0.21"))).hasSize(1);

        index.removeService("default", "web");
        assertThat(index.service("default", "web")).isEmpty();
        assertThat(index.hasNamespace("default")).isFalse();
        assertThat(index.reverse(InetAddress.getByName("10.96.0.21"))).isEmpty();
    }

    @Test
    void headlessServiceMergesReadyEndpointsOfAllItsSlices() throws Exception {
        index.putService(headlessService("apps", "db", HTTP));
        index.putEndpointSlice(slice("apps", "db-a", "db", "IPv4", List.of(HTTP), Address.ready("10.42.0.5"),
                new Address("10.42.0.6", "db-0", null), new Address("10.42.0.7", null, false)));
        index.putEndpointSlice(slice("apps", "db-b", "db", "IPv4", List.of(HTTP), Address.ready("10.42.1.5")));

        assertThat(index.service("apps", "db").orElseThrow().endpoints())
                .extracting(ServiceEntry.Endpoint::label)
                .containsExactly("10-42-0-5", "db-0", "10-42-1-5");
        assertThat(index.reverse(InetAddress.getByName("10.42.0.6"))).containsExactly(new ReverseName("apps", "db", Optional.of("db-0")));
        assertThat(index.reverse(InetAddress.getByName("10.42.0.7"))).isEmpty();

        // An endpoint turning not ready leaves at once; a deleted slice takes its endpoints with it.
        index.putEndpointSlice(slice("apps", "db-a", "db", "IPv4", List.of(HTTP), new Address("10.42.0.5", null, false)));
        assertThat(index.service("apps", "db").orElseThrow().endpoints()).extracting(ServiceEntry.Endpoint::label).containsExactly("10-42-1-5");
        index.removeEndpointSlice("apps", "db-b");
        assertThat(index.service("apps", "db").orElseThrow().endpoints()).isEmpty();
        assertThat(index.reverse(InetAddress.getByName("10.42.1.5"))).isEmpty();
    }

    @Test
    void slicesSeenBeforeTheirServiceCountOnceItArrives() {
        index.putEndpointSlice(slice("apps", "db-a", "db", "IPv4", List.of(HTTP), Address.ready("10.42.0.5")));
        assertThat(index.service("apps", "db")).isEmpty();

        index.putService(headlessService("apps", "db", HTTP));
        assertThat(index.service("apps", "db").orElseThrow().endpoints()).hasSize(1);
    }

    @Test
    void sliceMovedToAnotherServiceLeavesTheFirst() {
        index.putService(headlessService("apps", "one", HTTP));
        index.putService(headlessService("apps", "two", HTTP));
        index.putEndpointSlice(slice("apps", "s", "one", "IPv4", List.of(HTTP), Address.ready("10.42.0.5")));
        index.putEndpointSlice(slice("apps", "s", "two", "IPv4", List.of(HTTP), Address.ready("10.42.0.5")));

        assertThat(index.service("apps", "one").orElseThrow().endpoints()).isEmpty();
        assertThat(index.service("apps", "two").orElseThrow().endpoints()).hasSize(1);
    }

    @Test
    void fqdnSlicesAndUnlabelledSlicesServeNothing() {
        index.putService(headlessService("apps", "db", HTTP));
        index.putEndpointSlice(slice("apps", "fqdn", "db", "FQDN", List.of(HTTP), Address.ready("example.com")));
        index.putEndpointSlice(slice("apps", "orphan", null, "IPv4", List.of(HTTP), Address.ready("10.42.0.9")));

        assertThat(index.service("apps", "db").orElseThrow().endpoints()).isEmpty();
    }

    @Test
    void ipv6EndpointsAreLabelledWithDashes() {
        index.putService(headlessService("apps", "db", HTTP));
        index.putEndpointSlice(slice("apps", "v6", "db", "IPv6", List.of(HTTP), Address.ready("fd00::5")));

        assertThat(index.service("apps", "db").orElseThrow().endpoints()).extracting(ServiceEntry.Endpoint::label).containsExactly("fd00--5");
    }

    @Test
    void clusterIpThatIsNotAnAddressIsIgnoredRatherThanResolved() {
        index.putService(clusterIpService("default", "odd", "not-an-ip.example", HTTP));

        assertThat(index.service("default", "odd").orElseThrow().kind()).isEqualTo(new ServiceEntry.ClusterIp(List.of()));
    }
}
