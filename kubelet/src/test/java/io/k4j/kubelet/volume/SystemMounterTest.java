package io.k4j.kubelet.volume;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class SystemMounterTest {
    @Test
    void unescapesMountInfoPaths() {
        assertThat(SystemMounter.unescape("/var/lib/with\\040space")).isEqualTo("/var/lib/with space");
        assertThat(SystemMounter.unescape("/tab\\011and\\134backslash")).isEqualTo("/tab\tand\\backslash");
        assertThat(SystemMounter.unescape("/plain\\x")).isEqualTo("/plain\\x");
    }
}
