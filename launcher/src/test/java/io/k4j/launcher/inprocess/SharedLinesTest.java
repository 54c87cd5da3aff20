package io.k4j.launcher.inprocess;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class SharedLinesTest {
    private static byte[] bytes(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }

    @Test
    void watchersOfOneArrayShareOneMessageAndOtherArraysGetTheirOwn() {
        SharedLines lines = new SharedLines(16);
        byte[] line = bytes("{\"type\":\"MODIFIED\",\"object\":{\"kind\":\"Pod\",\"note\":\"é\"}}\n");

        String first = lines.message(line);
        assertThat(first).isEqualTo("{\"type\":\"MODIFIED\",\"object\":{\"kind\":\"Pod\",\"note\":\"é\"}}");
        assertThat(lines.message(line)).isSameAs(first);

        byte[] sameText = line.clone();
        assertThat(lines.message(sameText)).isEqualTo(first).isNotSameAs(first);
    }

    @Test
    void anArrayThatIsNotExactlyOneLineHasNoMessage() {
        SharedLines lines = new SharedLines(16);
        assertThat(lines.message(bytes("{\"type\":\"ADDED\"}"))).isNull();
        assertThat(lines.message(bytes("{\"type\":\"ADDED\"}\n{\"type\":\"DELETED\"}\n"))).isNull();
        assertThat(lines.message(bytes(""))).isNull();
        assertThat(lines.message(bytes("\n"))).isEmpty();
    }

    @Test
    void linesThatShareASlotAreEachDecodedRight() {
        // One slot: every line takes it from the one before.
        SharedLines lines = new SharedLines(1);
        byte[] first = bytes("first\n");
        byte[] second = bytes("second\n");
        assertThat(lines.message(first)).isEqualTo("first");
        assertThat(lines.message(second)).isEqualTo("second");
        assertThat(lines.message(first)).isEqualTo("first");
    }

    @Test
    void theTableSizeIsAPowerOfTwo() {
        assertThatThrownBy(() -> new SharedLines(3)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new SharedLines(0)).isInstanceOf(IllegalArgumentException.class);
    }
}
