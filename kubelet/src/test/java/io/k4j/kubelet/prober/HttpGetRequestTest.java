package io.k4j.kubelet.prober;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.ContainerBuilder;
import io.fabric8.kubernetes.api.model.HTTPGetAction;
import io.fabric8.kubernetes.api.model.HTTPGetActionBuilder;
import io.fabric8.kubernetes.api.model.IntOrString;
import java.util.Map;
import org.junit.jupiter.api.Test;

class HttpGetRequestTest {
    private static final Container CONTAINER = new ContainerBuilder().withName("c1")
            .addNewPort().withName("web").withContainerPort(8080).endPort().build();

    @Test
    void defaultsToHttpOnThePodIpWithUpstreamsHeaders() {
        HTTPGetAction action = new HTTPGetActionBuilder().withPort(new IntOrString("web")).withPath("healthz").build();

        HttpGetRequest request = HttpGetRequest.of(action, CONTAINER, "10.42.0.7", "probe");

        assertThat(request.url().toString()).isEqualTo("http://10.42.0.7:8080/healthz");
        assertThat(request.hostHeader()).isNull();
        assertThat(request.headers()).containsExactly(Map.entry("User-Agent", "kube-probe/1.32"), Map.entry("Accept", "*/*"));
    }

    @Test
    void honoursSchemeHostIpv6AndTheUsersHeaders() {
        HTTPGetAction action = new HTTPGetActionBuilder().withScheme("HTTPS").withHost("fd00::7").withPort(new IntOrString(8443))
                .withPath("/ready?full=1")
                .addNewHttpHeader().withName("host").withValue("example.com").endHttpHeader()
                .addNewHttpHeader().withName("x-probe-token").withValue("t").endHttpHeader()
                .addNewHttpHeader().withName("user-agent").withValue("mine").endHttpHeader()
                .addNewHttpHeader().withName("Accept").withValue("").endHttpHeader()
                .build();

        HttpGetRequest request = HttpGetRequest.of(action, CONTAINER, "10.42.0.7", "lifecycle");

        assertThat(request.url().toString()).isEqualTo("https://[fd00::7]:8443/ready?full=1");
        assertThat(request.hostHeader()).isEqualTo("example.com");
        assertThat(request.headers()).containsExactly(Map.entry("X-Probe-Token", "t"), Map.entry("User-Agent", "mine"));
    }

    @Test
    void portsMustResolve() {
        assertThat(ContainerPorts.resolve(new IntOrString("9090"), CONTAINER)).isEqualTo(9090);
        assertThatThrownBy(() -> ContainerPorts.resolve(new IntOrString(0), CONTAINER)).hasMessage("invalid port number: 0");
        assertThatThrownBy(() -> ContainerPorts.resolve(new IntOrString("metrics"), CONTAINER))
                .hasMessage("strconv.Atoi: parsing \"metrics\": invalid syntax");
    }

    @Test
    void formatsDurationsAsGo() {
        assertThat(GoDurations.format(java.time.Duration.ofSeconds(1))).isEqualTo("1s");
        assertThat(GoDurations.format(java.time.Duration.ofSeconds(90))).isEqualTo("1m30s");
        assertThat(GoDurations.format(java.time.Duration.ofSeconds(3600))).isEqualTo("1h0m0s");
    }
}
