package io.k4j.apiserver.registry.generic;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.k4j.api.errors.StatusException;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import org.junit.jupiter.api.Test;

class ContinueTokenTest {
    @Test
    void roundTripsInUpstreamsFormat() {
        ContinueToken token = new ContinueToken(42, "default/web\0");

        String encoded = token.encode();

        assertThat(new String(Base64.getUrlDecoder().decode(encoded), StandardCharsets.UTF_8))
                .isEqualTo("{\"v\":\"meta.k8s.io/v1\",\"rv\":42,\"start\":\"default/web\\u0000\"}");
        assertThat(ContinueToken.decode(encoded)).isEqualTo(token);
    }

    @Test
    void rejectsGarbageAndPathEscapes() {
        assertThatThrownBy(() -> ContinueToken.decode("not base64!")).isInstanceOfSatisfying(StatusException.class, e -> assertThat(e.code()).isEqualTo(400));
        String escape = Base64.getUrlEncoder().encodeToString("{\"v\":\"meta.k8s.io/v1\",\"rv\":1,\"start\":\"../secrets\"}".getBytes(StandardCharsets.UTF_8));
        assertThatThrownBy(() -> ContinueToken.decode(escape)).isInstanceOf(StatusException.class);
    }
}
