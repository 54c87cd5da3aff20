package io.k4j.apiserver.stream;

import static java.nio.charset.StandardCharsets.US_ASCII;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.InterruptedIOException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class ChunkInputStreamTest {
    @Test
    void readsChunksInOrderAcrossBufferBoundariesThenEnds() throws Exception {
        ChunkInputStream input = new ChunkInputStream(4, "test");
        input.offer("hel".getBytes(US_ASCII));
        input.offer(new byte[0]);
        input.offer("lo".getBytes(US_ASCII));
        input.end();
        input.offer("dropped".getBytes(US_ASCII));

        byte[] buffer = new byte[2];
        StringBuilder read = new StringBuilder();
        for (int count = input.read(buffer, 0, 2); count >= 0; count = input.read(buffer, 0, 2)) {
            read.append(new String(buffer, 0, count, US_ASCII));
        }
        assertThat(read.toString()).isEqualTo("hello");
        assertThat(input.read()).isEqualTo(-1);
    }

    @Test
    void aFullStreamHoldsTheProducerUntilTheConsumerReads() throws Exception {
        ChunkInputStream input = new ChunkInputStream(1, "test");
        input.offer(new byte[] {1});
        CompletableFuture<Void> second = CompletableFuture.runAsync(() -> {
            try {
                input.offer(new byte[] {2});
            } catch (InterruptedException e) {
                throw new IllegalStateException(e);
            }
        });
        assertThat(second).isNotDone();

        assertThat(input.read()).isEqualTo(1);
        second.get(10, TimeUnit.SECONDS);
        assertThat(input.read()).isEqualTo(2);
    }

    @Test
    void anInterruptedReadFailsWithTheStreamsDescription() {
        ChunkInputStream input = new ChunkInputStream(1, "channel 3");
        Thread.currentThread().interrupt();
        assertThatThrownBy(input::read).isInstanceOf(InterruptedIOException.class).hasMessageContaining("channel 3");
        assertThat(Thread.interrupted()).isTrue();
    }
}
