package io.k4j.api.codec;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

class QueryStringsTest {
    @Test
    void decodesQueryParametersAsAnHttpServerDoes() {
        assertThat(QueryStrings.decode(null)).isEmpty();
        assertThat(QueryStrings.decode("watch=true&labelSelector=app%3Dweb%2Ctier+in+%28a%2Cb%29&fieldSelector=&dryRun=All&dryRun=All&flag"))
                .containsEntry("watch", List.of("true"))
                .containsEntry("labelSelector", List.of("app=web,tier in (a,b)"))
                .containsEntry("fieldSelector", List.of(""))
                .containsEntry("dryRun", List.of("All", "All"))
                .containsEntry("flag", List.of(""))
                .hasSize(5);
    }
}
