package io.k4j.apiserver.endpoints;

import static org.assertj.core.api.Assertions.assertThat;

import io.k4j.api.validation.FieldErrors;
import org.junit.jupiter.api.Test;

class FieldManagersTest {
    @Test
    void derivesTheManagerFromTheUserAgentProduct() {
        assertThat(FieldManagers.fromUserAgent("kubectl/v1.32.0 (linux/amd64) kubernetes/70d3cc9")).isEqualTo("kubectl");
        assertThat(FieldManagers.fromUserAgent("fabric8-kubernetes-client/7.9.0")).isEqualTo("fabric8-kubernetes-client");
        assertThat(FieldManagers.fromUserAgent("curl")).isEqualTo("curl");
        assertThat(FieldManagers.fromUserAgent("")).isEmpty();
        assertThat(FieldManagers.fromUserAgent("bad\u0007agent/1")).isEqualTo("badagent");
        assertThat(FieldManagers.fromUserAgent("x".repeat(200))).hasSize(FieldManagers.MAX_LENGTH);
    }

    @Test
    void acceptsPrintableManagersUpTo128Bytes() {
        assertThat(FieldManagers.validate("kubectl-client-side-apply").isEmpty()).isTrue();
        assertThat(FieldManagers.validate("with space").isEmpty()).isTrue();

        FieldErrors tooLong = FieldManagers.validate("x".repeat(129));
        assertThat(tooLong.list()).singleElement().satisfies(error -> assertThat(error.field()).isEqualTo("fieldManager"));
        FieldErrors unprintable = FieldManagers.validate("a\tb");
        assertThat(unprintable.list()).singleElement().satisfies(error -> assertThat(error.message()).contains("invalid character U+0009 (at position 1)"));
    }
}
