package io.k4j.apiserver.discovery;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

class HealthEndpointTest {
    private final HealthEndpoint endpoint = new HealthEndpoint("readyz", List.of(
            HealthCheck.of("ping", () -> {}),
            HealthCheck.of("etcd", () -> {
                throw new IllegalStateException("down");
            })));

    @Test
    void failingCheckListsEveryCheck() {
        HealthEndpoint.Answer answer = endpoint.all(false, Set.of());

        assertThat(answer.status()).isEqualTo(500);
        assertThat(answer.body()).isEqualTo("[+]ping ok\n[-]etcd failed: reason withheld\nreadyz check failed\n");
    }

    @Test
    void excludedChecksAndNamedChecks() {
        assertThat(endpoint.all(false, Set.of("etcd"))).isEqualTo(new HealthEndpoint.Answer(200, "ok"));
        assertThat(endpoint.all(true, Set.of("etcd")).body()).isEqualTo("[+]ping ok\n[+]etcd excluded: ok\nreadyz check passed\n");
        assertThat(endpoint.one("ping")).contains(new HealthEndpoint.Answer(200, "ok"));
        assertThat(endpoint.one("etcd").orElseThrow().status()).isEqualTo(500);
        assertThat(endpoint.one("nothing")).isEmpty();
    }
}
