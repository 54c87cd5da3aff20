package io.k4j.apiserver;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.k4j.api.errors.StatusException;
import io.k4j.apiserver.stream.BulkOutputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class InProcessExchangeTest {
    /** Records what the client would receive, in order. */
    private static class Recorder implements InProcessExchange.Receiver {
        final List<String> calls = new ArrayList<>();
        final ByteArrayOutputStream body = new ByteArrayOutputStream();

        @Override
        public void headers(int status, Map<String, List<String>> headers, boolean streamed) {
            calls.add("headers " + status + " " + headers.get("Content-Type") + (streamed ? " streamed" : ""));
        }

        @Override
        public void data(byte[] bytes, int offset, int length) {
            calls.add("data " + length);
            body.write(bytes, offset, length);
        }

        @Override
        public void end() {
            calls.add("end");
        }
    }

    private static InProcessExchange exchange(String method, byte[] body, int maxBodyBytes, Recorder recorder) {
        return new InProcessExchange(method, "/api/v1/pods", Map.of(), Map.of("accept", List.of("application/json")), body, maxBodyBytes, recorder);
    }

    @Test
    void aWholeAnswerArrivesAsHeadersDataAndEnd() throws IOException {
        Recorder recorder = new Recorder();
        InProcessExchange exchange = exchange("GET", new byte[0], 10, recorder);

        exchange.respond(200, "application/json", "{}".getBytes(StandardCharsets.UTF_8));
        exchange.finish();

        assertThat(recorder.calls).containsExactly("headers 200 [application/json]", "data 2", "end");
        assertThat(exchange.status()).isEqualTo(200);
        assertThat(exchange.committed()).isTrue();
    }

    @Test
    void headGetsNoBodyAndAnUnansweredRequestGetsAnEmpty200() throws IOException {
        Recorder head = new Recorder();
        exchange("HEAD", new byte[0], 10, head).respond(200, "application/json", "{}".getBytes(StandardCharsets.UTF_8));
        assertThat(head.calls).containsExactly("headers 200 [application/json]", "end");

        Recorder unanswered = new Recorder();
        exchange("GET", new byte[0], 10, unanswered).finish();
        assertThat(unanswered.calls).containsExactly("headers 200 null", "end");
    }

    @Test
    void aBodyOverTheLimitIsA413() {
        InProcessExchange exchange = exchange("POST", new byte[11], 10, new Recorder());
        assertThatThrownBy(exchange::body).isInstanceOfSatisfying(StatusException.class, e -> assertThat(e.code()).isEqualTo(413));
    }

    @Test
    void aStreamDeliversEachWriteAndCancellingEndsAWaitingHandler() throws Exception {
        Recorder recorder = new Recorder();
        InProcessExchange exchange = exchange("GET", new byte[0], 10, recorder);
        CountDownLatch waiting = new CountDownLatch(1);
        List<String> handlerSaw = new ArrayList<>();
        Thread handler = Thread.ofVirtual().start(() -> {
            try (OutputStream out = exchange.startStream(200, "application/json")) {
                out.write("{\"type\":\"ADDED\"}\n".getBytes(StandardCharsets.UTF_8));
                waiting.countDown();
                // A quiet watch: nothing more to send, waiting for an event that never comes until the client goes away.
                new CountDownLatch(1).await();
            } catch (InterruptedException e) {
                handlerSaw.add("interrupted");
            } catch (IOException e) {
                handlerSaw.add("io " + e.getMessage());
            }
            handlerSaw.add("interrupt flag after the stream closed: " + Thread.currentThread().isInterrupted());
        });
        assertThat(waiting.await(10, TimeUnit.SECONDS)).isTrue();

        exchange.cancel();
        handler.join(TimeUnit.SECONDS.toMillis(10));

        assertThat(handler.isAlive()).isFalse();
        assertThat(handlerSaw).containsExactly("interrupted", "interrupt flag after the stream closed: false");
        assertThat(recorder.calls).containsExactly("headers 200 [application/json] streamed", "data 17", "end");
        assertThatThrownBy(() -> exchange.startStream(200, "application/json")).isInstanceOf(IllegalStateException.class);
    }

    @Test
    void writingAfterTheClientCancelledFails() throws IOException {
        Recorder recorder = new Recorder();
        InProcessExchange exchange = exchange("GET", new byte[0], 10, recorder);
        OutputStream out = exchange.startStream(200, "application/json");
        exchange.cancel();
        assertThatThrownBy(() -> out.write(new byte[] {'x'})).isInstanceOf(IOException.class).hasMessageContaining("closed the stream");
        out.close();
        assertThat(recorder.calls).containsExactly("headers 200 [application/json] streamed", "end");
    }

    @Test
    void anUnchangingWriteReachesTheReceiverAsItsArrayOrAsPlainDataAndFailsOnceCancelled() throws IOException {
        List<byte[]> kept = new ArrayList<>();
        Recorder keeping = new Recorder() {
            @Override
            public void unchangingData(byte[] bytes) {
                calls.add("unchanging " + bytes.length);
                kept.add(bytes);
            }
        };
        byte[] line = "{\"type\":\"ADDED\"}\n".getBytes(StandardCharsets.UTF_8);
        BulkOutputStream out = (BulkOutputStream) exchange("GET", new byte[0], 10, keeping).startStream(200, "application/json");
        out.writeUnchanging(line);
        assertThat(keeping.calls).containsExactly("headers 200 [application/json] streamed", "unchanging 17");
        assertThat(kept).singleElement().isSameAs(line);

        // A receiver that does not keep arrays gets the bytes as any other write.
        Recorder plain = new Recorder();
        InProcessExchange exchange = exchange("GET", new byte[0], 10, plain);
        BulkOutputStream plainOut = (BulkOutputStream) exchange.startStream(200, "application/json");
        plainOut.writeUnchanging(line);
        assertThat(plain.body.toString(StandardCharsets.UTF_8)).isEqualTo("{\"type\":\"ADDED\"}\n");

        exchange.cancel();
        assertThatThrownBy(() -> plainOut.writeUnchanging(line)).isInstanceOf(IOException.class).hasMessageContaining("closed the stream");
    }
}
