package io.k4j.launcher;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

class HostAddressesTest {
    private static final String HEADER = "Iface\tDestination\tGateway \tFlags\tRefCnt\tUse\tMetric\tMask\t\tMTU\tWindow\tIRTT";

    @Test
    void theDefaultRoutesInterfaceWinsOverNewerBridges() {
        List<String> table = List.of(HEADER,
                "cni0\t00002A0A\t00000000\t0001\t0\t0\t0\t00FFFFFF\t0\t0\t0",
                "eth0\t00000000\t010200C0\t0003\t0\t0\t0\t00000000\t0\t0\t0",
                "eth0\t000200C0\t00000000\t0001\t0\t0\t0\t00FFFFFF\t0\t0\t0");

        assertThat(HostAddresses.defaultRouteInterface(table)).contains("eth0");
    }

    @Test
    void theLowestMetricDefaultRouteWins() {
        List<String> table = List.of(HEADER,
                "wlan0\t00000000\t0101A8C0\t0003\t0\t0\t600\t00000000\t0\t0\t0",
                "eth1\t00000000\t010200C0\t0003\t0\t0\t100\t00000000\t0\t0\t0");

        assertThat(HostAddresses.defaultRouteInterface(table)).contains("eth1");
    }

    @Test
    void noDefaultRouteWithoutAGatewayOrWhenDown() {
        List<String> table = List.of(HEADER,
                "eth0\t00000000\t010200C0\t0002\t0\t0\t0\t00000000\t0\t0\t0",
                "eth1\t00000000\t00000000\t0001\t0\t0\t0\t00000000\t0\t0\t0",
                "garbage");

        assertThat(HostAddresses.defaultRouteInterface(table)).isEmpty();
        assertThat(HostAddresses.defaultRouteInterface(List.of())).isEmpty();
    }
}
