package io.k4j.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class LineSplitterTest {
    @Test
    void linesSplitAcrossBuffersComeOutWholeAndAnUnfinishedOneWaits() {
        List<String> lines = new ArrayList<>();
        LineSplitter splitter = new LineSplitter(lines::add);

        splitter.accept(buffer("{\"type\":\"ADDED\"}\n{\"type\":"));
        splitter.accept(buffer("\"MODIFIED\"}\n\n{\"type\":\"DEL"));

        assertThat(lines).containsExactly("{\"type\":\"ADDED\"}", "{\"type\":\"MODIFIED\"}", "");
        splitter.accept(buffer("ETED\",\"name\":\"é\"}\n"));
        assertThat(lines).last().isEqualTo("{\"type\":\"DELETED\",\"name\":\"é\"}");
    }

    private static ByteBuffer buffer(String text) {
        return ByteBuffer.wrap(text.getBytes(StandardCharsets.UTF_8));
    }
}
