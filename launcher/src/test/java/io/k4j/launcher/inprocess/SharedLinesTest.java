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
        SharedLines lines = new SharedLines(16, 1024);
        byte[] line = bytes("{\"type\":\"MODIFIED\",\"object\":{\"kind\":\"Pod\",\"note\":\"é\"}}\n");

        String first = lines.message(line);
        assertThat(first).isEqualTo("{\"type\":\"MODIFIED\",\"object\":{\"kind\":\"Pod\",\"note\":\"é\"}}");
        assertThat(lines.message(line)).isSameAs(first);

        byte[] sameText = line.clone();
        assertThat(lines.message(sameText)).isEqualTo(first).isNotSameAs(first);
    }

    @Test
    void anArrayThatIsNotExactlyOneLineHasNoMessage() {
        SharedLines lines = new SharedLines(16, 1024);
        assertThat(lines.message(bytes("{\"type\":\"ADDED\"}"))).isNull();
        assertThat(lines.message(bytes("{\"type\":\"ADDED\"}\n{\"type\":\"DELETED\"}\n"))).isNull();
        assertThat(lines.message(bytes(""))).isNull();
        assertThat(lines.message(bytes("\n"))).isEmpty();
    }

    @Test
    void linesThatShareASlotAreEachDecodedRight() {
        // One slot: every line takes it from the one before.
        SharedLines lines = new SharedLines(1, 1024);
        byte[] first = bytes("first\n");
        byte[] second = bytes("second\n");
        assertThat(lines.message(first)).isEqualTo("first");
        assertThat(lines.message(second)).isEqualTo("second");
        assertThat(lines.message(first)).isEqualTo("first");
    }

    @Test
    void aLineLongerThanTheLimitIsNotKept() {
        SharedLines lines = new SharedLines(16, 8);
        assertThat(lines.message(bytes("1234567\n"))).isEqualTo("1234567");
        assertThat(lines.message(bytes("12345678\n"))).isNull();
    }

    @Test
    void theTableSizeIsAPowerOfTwoAndTheLimitPositive() {
        assertThatThrownBy(() -> new SharedLines(3, 1024)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new SharedLines(0, 1024)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new SharedLines(16, 0)).isInstanceOf(IllegalArgumentException.class);
    }
}
