package io.k4j.kubelet.simulated;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class CidrPoolTest {
    @Test
    void handsOutAddressesAfterTheNetworkAndGateway() {
        CidrPool pool = CidrPool.of("10.42.3.0/24", 1);

        assertThat(pool.allocate("a")).isEqualTo("10.42.3.2");
        assertThat(pool.allocate("b")).isEqualTo("10.42.3.3");
        assertThat(pool.allocate("a")).as("a key keeps its address").isEqualTo("10.42.3.2");
        assertThat(pool.allocatedCount()).isEqualTo(2);
    }

    @Test
    void freedAddressesAreReusedOnlyAfterGoingRound() {
        CidrPool pool = CidrPool.of("192.168.0.0/29", 1);
        assertThat(pool.allocate("a")).isEqualTo("192.168.0.2");
        pool.release("a");

        assertThat(pool.allocate("b")).isEqualTo("192.168.0.3");
        assertThat(pool.allocate("c")).isEqualTo("192.168.0.4");
        assertThat(pool.allocate("d")).isEqualTo("192.168.0.5");
        assertThat(pool.allocate("e")).as("never the broadcast .7").isEqualTo("192.168.0.6");
        assertThat(pool.allocate("f")).isEqualTo("192.168.0.2");
        assertThatThrownBy(() -> pool.allocate("g")).isInstanceOf(IllegalStateException.class).hasMessageContaining("192.168.0.0/29");
    }

    @Test
    void reservesAddressesPodsAlreadyHave() {
        CidrPool pool = CidrPool.of("10.42.3.0/24", 1);

        assertThat(pool.reserve("a", "10.42.3.2")).isTrue();
        assertThat(pool.reserve("a", "10.42.3.2")).isTrue();
        assertThat(pool.reserve("b", "10.42.3.2")).as("taken").isFalse();
        assertThat(pool.reserve("c", "10.42.4.9")).as("outside").isFalse();
        assertThat(pool.reserve("d", "10.42.3.1")).as("the gateway").isFalse();
        assertThat(pool.reserve("e", "not-an-ip")).isFalse();
        assertThat(pool.allocate("f")).isEqualTo("10.42.3.3");
    }

    @Test
    void cutsSubnetsFromTheTop() {
        CidrPool.Cidr cluster = CidrPool.parse("10.42.0.0/16");

        assertThat(cluster.subnetFromTop(0, 24)).hasToString("10.42.255.0/24");
        assertThat(cluster.subnetFromTop(1, 24)).hasToString("10.42.254.0/24");
        assertThat(cluster.subnetFromTop(255, 24)).hasToString("10.42.0.0/24");
        assertThatThrownBy(() -> cluster.subnetFromTop(256, 24)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void parsesIpv6AndRejectsNonsense() {
        CidrPool pool = CidrPool.of("fd00:10:42::/64", 1);

        assertThat(pool.allocate("a")).isEqualTo("fd00:10:42:0:0:0:0:2");
        assertThat(CidrPool.parse("10.42.3.7/24")).hasToString("10.42.3.0/24");
        assertThatThrownBy(() -> CidrPool.parse("10.42.0.0")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> CidrPool.parse("10.42.0.0/33")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> CidrPool.parse("example.com/24")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> CidrPool.of("10.0.0.0/31", 1)).isInstanceOf(IllegalArgumentException.class);
    }
}
