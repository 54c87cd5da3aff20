package io.k4j.bench;

import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.function.Consumer;

/** Splits a body that arrives in buffers into its lines, where the bytes arrive; one instance per body. */
final class LineSplitter {
    private final Consumer<String> onLine;
    private final ByteArrayOutputStream line = new ByteArrayOutputStream();

    LineSplitter(Consumer<String> onLine) {
        this.onLine = onLine;
    }

    /** Consumes {@code buffer} whole, passing each line it completes (without the newline) to the callback. */
    void accept(ByteBuffer buffer) {
        while (buffer.hasRemaining()) {
            byte next = buffer.get();
            if (next == '\n') {
                onLine.accept(line.toString(StandardCharsets.UTF_8));
                line.reset();
            } else {
                line.write(next);
            }
        }
    }
}
