package io.k4j.apiserver.registry.generic;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.HashSet;
import java.util.Set;
import java.util.UUID;
import org.junit.jupiter.api.Test;

class UidsTest {
    @Test
    void areRandomVersion4UuidsInCanonicalForm() {
        Set<String> seen = new HashSet<>();
        for (int i = 0; i < 1000; i++) {
            String uid = Uids.random();
            assertThat(uid).matches("[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}");
            UUID parsed = UUID.fromString(uid);
            assertThat(parsed.version()).isEqualTo(4);
            assertThat(parsed.variant()).isEqualTo(2);
            seen.add(uid);
        }
        assertThat(seen).hasSize(1000);
    }
}
