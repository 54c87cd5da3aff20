package io.k4j.kubelet.dns;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.PodDNSConfig;
import io.fabric8.kubernetes.api.model.PodDNSConfigBuilder;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class PodDnsTest {
    private static final PodDns.ClusterDnsSettings CLUSTER = new PodDns.ClusterDnsSettings(List.of("10.96.0.10"), "cluster.local");
    private static final HostResolvConf HOST = HostResolvConf.parse("""
            # written by the host
            nameserver 192.0.2.53
            nameserver 192.0.2.54 ; second
            search old.example
            search corp.example. .
            options timeout:2 rotate
            """);

    @Test
    void parsesTheNodesResolvConfAsTheKubelet() {
        assertThat(HOST.nameservers()).containsExactly("192.0.2.53", "192.0.2.54");
        assertThat(HOST.searches()).containsExactly("corp.example");
        assertThat(HOST.options()).containsExactly("timeout:2", "rotate");
    }

    @Test
    void clusterFirstUsesTheClusterDnsOnlyWithClusterSearchesFirst() {
        PodDns.Result result = PodDns.configure(pod("shop", "ClusterFirst", false, null), CLUSTER, Optional.of(HOST));

        assertThat(result.config()).isEqualTo(new PodDnsConfig(List.of("10.96.0.10"),
                List.of("shop.svc.cluster.local", "svc.cluster.local", "cluster.local", "corp.example"), List.of("ndots:5")));
        assertThat(result.warnings()).isEmpty();
        assertThat(result.config().resolvConf()).isEqualTo("""
                search shop.svc.cluster.local svc.cluster.local cluster.local corp.example
                nameserver 10.96.0.10
                options ndots:5
                """);
        assertThat(result.config().toCri().getServersList()).containsExactly("10.96.0.10");
    }

    @Test
    void hostNetworkPodsUseTheHostUnlessTheyAskForTheCluster() {
        assertThat(PodDns.configure(pod("shop", "ClusterFirst", true, null), CLUSTER, Optional.of(HOST)).config())
                .isEqualTo(new PodDnsConfig(HOST.nameservers(), HOST.searches(), HOST.options()));
        assertThat(PodDns.configure(pod("shop", "ClusterFirstWithHostNet", true, null), CLUSTER, Optional.of(HOST)).config().servers())
                .containsExactly("10.96.0.10");
    }

    @Test
    void defaultUsesTheHostAndNoResolvConfMeansTheLocalResolver() {
        assertThat(PodDns.configure(pod("shop", "Default", false, null), CLUSTER, Optional.of(HOST)).config().servers())
                .containsExactly("192.0.2.53", "192.0.2.54");
        assertThat(PodDns.configure(pod("shop", "Default", false, null), CLUSTER, Optional.empty()).config())
                .isEqualTo(new PodDnsConfig(List.of("127.0.0.1"), List.of("."), List.of()));
    }

    @Test
    void clusterFirstWithoutClusterDnsFallsBackToDefaultWithAWarning() {
        PodDns.Result result = PodDns.configure(pod("shop", "ClusterFirst", false, null),
                new PodDns.ClusterDnsSettings(List.of(), "cluster.local"), Optional.of(HOST));

        assertThat(result.config().servers()).containsExactly("192.0.2.53", "192.0.2.54");
        assertThat(result.warnings()).singleElement().satisfies(warning -> {
            assertThat(warning.reason()).isEqualTo("MissingClusterDNS");
            assertThat(warning.message()).endsWith("kubelet does not have ClusterDNS IP configured and cannot create Pod using \"ClusterFirst\" policy. "
                    + "Falling back to \"Default\" policy.");
        });
    }

    @Test
    void noneUsesOnlyThePodsDnsConfig() {
        PodDNSConfig config = new PodDNSConfigBuilder().withNameservers("1.1.1.1").withSearches("a.example")
                .addNewOption().withName("ndots").withValue("2").endOption().addNewOption().withName("edns0").endOption().build();

        assertThat(PodDns.configure(pod("shop", "None", false, config), CLUSTER, Optional.of(HOST)).config())
                .isEqualTo(new PodDnsConfig(List.of("1.1.1.1"), List.of("a.example"), List.of("ndots:2", "edns0")));
    }

    @Test
    void podDnsConfigIsAppendedWithoutDuplicatesAndOverridesOptions() {
        PodDNSConfig config = new PodDNSConfigBuilder().withNameservers("10.96.0.10", "1.1.1.1").withSearches("svc.cluster.local", "b.example")
                .addNewOption().withName("ndots").withValue("1").endOption().build();

        assertThat(PodDns.configure(pod("shop", "ClusterFirst", false, config), CLUSTER, Optional.of(HOST)).config()).isEqualTo(new PodDnsConfig(
                List.of("10.96.0.10", "1.1.1.1"),
                List.of("shop.svc.cluster.local", "svc.cluster.local", "cluster.local", "corp.example", "b.example"),
                List.of("ndots:1")));
    }

    @Test
    void limitsCutNameserversAndSearchesWithUpstreamsMessages() {
        List<String> searches = new ArrayList<>();
        for (int i = 0; i < 40; i++) {
            searches.add("domain" + i + ".example");
        }
        PodDNSConfig config = new PodDNSConfigBuilder().withNameservers("1.1.1.1", "1.0.0.1", "9.9.9.9", "8.8.8.8").withSearches(searches).build();

        PodDns.Result result = PodDns.configure(pod("shop", "None", false, config), CLUSTER, Optional.of(HOST));

        assertThat(result.config().servers()).containsExactly("1.1.1.1", "1.0.0.1", "9.9.9.9");
        assertThat(result.config().searches()).hasSize(32).endsWith("domain31.example");
        assertThat(result.warnings()).extracting(PodDns.Warning::message).containsExactly(
                "Nameserver limits were exceeded, some nameservers have been omitted, the applied nameserver line is: 1.1.1.1 1.0.0.1 9.9.9.9",
                "Search Line limits were exceeded, some search paths have been omitted, the applied search line is: " + String.join(" ", searches.subList(0, 32)));
    }

    @Test
    void searchLineIsCutTo2048Characters() {
        List<String> searches = new ArrayList<>();
        for (int i = 0; i < 10; i++) {
            searches.add(String.valueOf((char) ('a' + i)).repeat(63) + "." + "x".repeat(63) + "." + "y".repeat(63) + "." + "z".repeat(60));
        }
        PodDNSConfig config = new PodDNSConfigBuilder().withNameservers("1.1.1.1").withSearches(searches).build();

        PodDns.Result result = PodDns.configure(pod("shop", "None", false, config), CLUSTER, Optional.of(HOST));

        assertThat(String.join(" ", result.config().searches()).length()).isLessThanOrEqualTo(2048);
        assertThat(result.config().searches()).hasSize(8);
        assertThat(result.warnings()).singleElement().extracting(PodDns.Warning::reason).isEqualTo("DNSConfigForming");
    }

    @Test
    void unknownPolicyIsRejected() {
        assertThatThrownBy(() -> PodDns.configure(pod("shop", "Sometimes", false, null), CLUSTER, Optional.of(HOST)))
                .isInstanceOf(IllegalArgumentException.class).hasMessage("invalid DNSPolicy=Sometimes");
    }

    private static Pod pod(String namespace, String policy, boolean hostNetwork, PodDNSConfig config) {
        return new PodBuilder().withNewMetadata().withNamespace(namespace).withName("p").withUid("u").endMetadata()
                .withNewSpec().withDnsPolicy(policy).withHostNetwork(hostNetwork).withDnsConfig(config).endSpec().build();
    }
}
