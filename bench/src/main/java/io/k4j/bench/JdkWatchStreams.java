package io.k4j.bench;

import static java.util.Objects.requireNonNull;

import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Flow;
import java.util.function.Consumer;

/**
 * Watch streams over the JDK HttpClient, spread round-robin over the bench's clients (one HTTP/2 connection each). The
 * client costs about as much CPU per delivered event as the server does (see docs/benchmarks.md, session 18).
 */
final class JdkWatchStreams implements WatchStreams {
    private final List<ClusterClient> clients;
    private final List<EventLines> streams = new CopyOnWriteArrayList<>();

    JdkWatchStreams(List<ClusterClient> clients) {
        this.clients = new ArrayList<>(requireNonNull(clients, "clients is null"));
        // Each client connected first: the JDK client closes an HTTP/2 connection idle for 30 s, and without a
        // connection it opens one per request, so a thousand watches at once made as many TLS handshakes.
        clients.forEach(client -> client.require("GET", "/version", null));
    }

    @Override
    public String description() {
        return "the JDK HttpClient";
    }

    @Override
    public void open(String path, Consumer<String> onLine) {
        ClusterClient client = clients.get(streams.size() % clients.size());
        HttpRequest request = HttpRequest.newBuilder(client.server().resolve(URI.create(path)))
                .header("Accept", "application/json")
                .build();
        EventLines lines = new EventLines(new LineSplitter(onLine));
        streams.add(lines);
        client.httpClient().sendAsync(request, info -> lines);
    }

    @Override
    public void close() {
        streams.forEach(EventLines::cancel);
        streams.clear();
    }

    /**
     * A watch's body, split into event lines on the client's own thread, without the hand-off to a reading thread
     * that {@code BodyHandlers.ofLines()} makes per event: over four rounds of 1,000 watches this client then took
     * 12–13 s of CPU instead of 17–19 s, more than the server's.
     */
    private static final class EventLines implements HttpResponse.BodySubscriber<Void> {
        private final LineSplitter lines;
        private final CompletableFuture<Void> body = new CompletableFuture<>();
        private volatile Flow.Subscription subscription;
        private volatile boolean cancelled;

        EventLines(LineSplitter lines) {
            this.lines = lines;
        }

        @Override
        public void onSubscribe(Flow.Subscription subscription) {
            this.subscription = subscription;
            if (cancelled) {
                subscription.cancel();
            } else {
                subscription.request(Long.MAX_VALUE);
            }
        }

        @Override
        public void onNext(List<ByteBuffer> buffers) {
            buffers.forEach(lines::accept);
        }

        @Override
        public void onError(Throwable error) {
            body.completeExceptionally(error);
        }

        @Override
        public void onComplete() {
            body.complete(null);
        }

        @Override
        public CompletionStage<Void> getBody() {
            return body;
        }

        void cancel() {
            cancelled = true;
            Flow.Subscription current = subscription;
            if (current != null) {
                current.cancel();
            }
        }
    }
}
