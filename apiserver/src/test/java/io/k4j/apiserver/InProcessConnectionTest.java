package io.k4j.apiserver;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

class InProcessConnectionTest {
    @Test
    void decodesQueryParametersAsAnHttpServerDoes() {
        assertThat(InProcessConnection.queryParameters(null)).isEmpty();
        assertThat(InProcessConnection.queryParameters("watch=true&labelSelector=app%3Dweb%2Ctier+in+%28a%2Cb%29&fieldSelector=&dryRun=All&dryRun=All&flag"))
                .containsEntry("watch", List.of("true"))
                .containsEntry("labelSelector", List.of("app=web,tier in (a,b)"))
                .containsEntry("fieldSelector", List.of(""))
                .containsEntry("dryRun", List.of("All", "All"))
                .containsEntry("flag", List.of(""))
                .hasSize(5);
    }
}
