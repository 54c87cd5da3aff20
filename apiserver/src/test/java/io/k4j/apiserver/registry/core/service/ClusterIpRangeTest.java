package io.k4j.apiserver.registry.core.service;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.OptionalInt;
import org.junit.jupiter.api.Test;

class ClusterIpRangeTest {
    @Test
    void usableAddressesExcludeNetworkAndBroadcast() {
        ClusterIpRange range = ClusterIpRange.parse("10.96.0.0/12");
        assertThat(range.size()).isEqualTo(1_048_574);
        assertThat(range.offsetOf("10.96.0.1")).isEqualTo(OptionalInt.of(0));
        assertThat(range.addressAt(0)).isEqualTo("10.96.0.1");
        assertThat(range.addressAt(9)).isEqualTo("10.96.0.10");
        assertThat(range.offsetOf("10.96.0.0")).isEmpty();
        assertThat(range.offsetOf("10.111.255.255")).isEmpty();
        assertThat(range.offsetOf("10.111.255.254")).isEqualTo(OptionalInt.of(1_048_573));
        assertThat(range.offsetOf("10.112.0.1")).isEmpty();
        assertThat(range.offsetOf("fd00::1")).isEmpty();
        assertThat(range.offsetOf("010.96.0.1")).isEmpty();
        assertThat(range).hasToString("10.96.0.0/12");
    }

    @Test
    void hostBitsAreClearedAndBadInputRejected() {
        assertThat(ClusterIpRange.parse("192.168.1.77/24")).hasToString("192.168.1.0/24");
        assertThatThrownBy(() -> ClusterIpRange.parse("fd00::/108")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> ClusterIpRange.parse("10.0.0.0/31")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> ClusterIpRange.parse("10.0.0.0")).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void nodePortRangesParseUpstreamForms() {
        assertThat(NodePortRange.parse("30000-32767")).isEqualTo(NodePortRange.DEFAULT);
        assertThat(NodePortRange.parse("30000+2767")).isEqualTo(NodePortRange.DEFAULT);
        assertThat(NodePortRange.DEFAULT.size()).isEqualTo(2768);
        assertThat(NodePortRange.DEFAULT).hasToString("30000-32767");
        assertThatThrownBy(() -> NodePortRange.parse("32767-30000")).isInstanceOf(IllegalArgumentException.class);
    }
}
