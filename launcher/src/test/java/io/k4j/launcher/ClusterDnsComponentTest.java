package io.k4j.launcher;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.InetSocketAddress;
import org.junit.jupiter.api.Test;

class ClusterDnsComponentTest {
    @Test
    void clusterDnsDefaultsToTheTenthAddressOfTheServiceRange() {
        assertThat(ServiceCidr.parse("10.96.0.0/12").address(10).getHostAddress()).isEqualTo("10.96.0.10");
        assertThat(ServiceCidr.parse("10.43.0.0/16").address(10).getHostAddress()).isEqualTo("10.43.0.10");
        assertThat(ServiceCidr.parse("10.96.0.0/12").firstAddress().getHostAddress()).isEqualTo("10.96.0.1");
    }

    @Test
    void bindAddressIsAnIpLiteralAndAPort() {
        assertThat(ClusterDnsComponent.parseBindAddress("127.0.0.1:1053")).isEqualTo(new InetSocketAddress("127.0.0.1", 1053));
        assertThat(ClusterDnsComponent.parseBindAddress("[::1]:53").getAddress().getHostAddress()).isEqualTo("0:0:0:0:0:0:0:1");
        assertThat(ClusterDnsComponent.parseBindAddress("0.0.0.0:0").getPort()).isZero();
        assertThatThrownBy(() -> ClusterDnsComponent.parseBindAddress("localhost:53")).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("--cluster-dns-bind must be an IP address and a port, got localhost:53");
        assertThatThrownBy(() -> ClusterDnsComponent.parseBindAddress("127.0.0.1")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> ClusterDnsComponent.parseBindAddress("127.0.0.1:65536")).isInstanceOf(IllegalArgumentException.class);
    }
}
