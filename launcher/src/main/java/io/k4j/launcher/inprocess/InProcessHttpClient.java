package io.k4j.launcher.inprocess;

import static java.util.Objects.requireNonNull;

import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.http.AsyncBody;
import io.fabric8.kubernetes.client.http.HttpResponse;
import io.fabric8.kubernetes.client.http.StandardHttpClient;
import io.fabric8.kubernetes.client.http.StandardHttpRequest;
import io.fabric8.kubernetes.client.http.StandardWebSocketBuilder;
import io.fabric8.kubernetes.client.http.WebSocket;
import io.fabric8.kubernetes.client.http.WebSocketResponse;
import io.k4j.api.codec.QueryStrings;
import io.k4j.apiserver.InProcessConnection;
import io.k4j.apiserver.InProcessExchange;
import io.k4j.controllerkit.requests.SelfTimedHttpClient;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * A fabric8 HTTP client whose requests the apiserver in this JVM serves directly (see {@link InProcessHttpClientFactory}).
 * Each request is served on a virtual thread of its own, as Jetty serves one. A watch asked for over WebSocket (fabric8's
 * default) is served as a streaming watch whose event lines become the messages, which is what the server's WebSocket
 * framing carries; other WebSockets (exec, attach, port-forward) are not offered, since no component opens them.
 * Thread-safe.
 */
public final class InProcessHttpClient extends StandardHttpClient<InProcessHttpClient, InProcessHttpClientFactory, InProcessHttpClientBuilder>
        implements SelfTimedHttpClient {
    /**
     * The deadline of a request that names none: fabric8's default request timeout. In-process clients are configured
     * without one (see {@code ComponentClients}), because fabric8 puts a timer of its own around every request that
     * has one and cancels it when the answer comes, which costs a scheduled task and two exceptions per request.
     */
    static final Duration DEFAULT_REQUEST_TIMEOUT = Duration.ofMillis(Config.DEFAULT_REQUEST_TIMEOUT);

    private final Session session;
    private final InProcessConnection connection;

    /**
     * What a client shares with the clients derived from it: the connection and the requests being served, so that
     * closing the client (which closes the derived ones too) ends their watches.
     */
    record Session(InProcessConnection connection, Set<InProcessExchange> open) {
        Session(InProcessConnection connection) {
            this(connection, ConcurrentHashMap.newKeySet());
        }
    }

    InProcessHttpClient(InProcessHttpClientBuilder builder, AtomicBoolean closed, Session session) {
        super(builder, closed);
        this.session = requireNonNull(session, "session is null");
        this.connection = session.connection();
    }

    Session session() {
        return session;
    }

    @Override
    public CompletableFuture<HttpResponse<AsyncBody>> consumeBytesDirect(StandardHttpRequest request, AsyncBody.Consumer<List<ByteBuffer>> consumer) {
        BodyDelivery delivery = new BodyDelivery(request, consumer);
        InProcessExchange exchange = connection.exchange(request.method(), request.uri(), headers(request), body(request), delivery);
        delivery.attach(exchange);
        serve(exchange, delivery::failed);
        CompletableFuture<HttpResponse<AsyncBody>> response = delivery.response();
        deadline(request).ifPresent(timeout -> {
            RequestDeadlines.SHARED.add(response, timeout);
            response.whenComplete((answer, failure) -> {
                if (failure != null) {
                    exchange.cancel();
                }
            });
        });
        return response;
    }

    /** How long {@code request} may wait for its answer: its own timeout, else the default; a streaming one has none. */
    static Optional<Duration> deadline(StandardHttpRequest request) {
        if (request.isForStreaming()) {
            return Optional.empty();
        }
        Duration timeout = request.getTimeout();
        return Optional.of(timeout != null && timeout.isPositive() ? timeout : DEFAULT_REQUEST_TIMEOUT);
    }

    @Override
    public CompletableFuture<WebSocketResponse> buildWebSocketDirect(StandardWebSocketBuilder builder, WebSocket.Listener listener) {
        StandardHttpRequest request = builder.asHttpRequest();
        if (!isWatch(request.uri())) {
            return CompletableFuture.failedFuture(new IOException("in-process clients open WebSockets only for watches, not for " + request.uri().getPath()));
        }
        WatchMessages messages = new WatchMessages(request, listener);
        InProcessExchange exchange = connection.exchange("GET", request.uri(), headers(request), new byte[0], messages);
        messages.attach(exchange);
        serve(exchange, messages::failed);
        return messages.response();
    }

    private void serve(InProcessExchange exchange, java.util.function.Consumer<Throwable> onFailure) {
        session.open().add(exchange);
        Thread.ofVirtual().name("in-process-request").start(() -> {
            try {
                connection.serve(exchange);
            } catch (RuntimeException | Error e) {
                onFailure.accept(e);
                throw e;
            } finally {
                session.open().remove(exchange);
            }
        });
    }

    private static boolean isWatch(URI uri) {
        List<String> watch = QueryStrings.decode(uri.getRawQuery()).getOrDefault("watch", List.of());
        if (watch.contains("true") || watch.contains("1")) {
            return true;
        }
        String path = uri.getPath();
        return path != null && path.contains("/watch/");
    }

    private static Map<String, List<String>> headers(StandardHttpRequest request) {
        Map<String, List<String>> headers = new LinkedHashMap<>(request.headers());
        if (request.getContentType() != null && request.headers("Content-Type").isEmpty()) {
            headers.put("Content-Type", List.of(request.getContentType()));
        }
        URI uri = request.uri();
        if (uri.getAuthority() != null) {
            headers.put("Host", List.of(uri.getAuthority()));
        }
        return headers;
    }

    private static byte[] body(StandardHttpRequest request) {
        StandardHttpRequest.BodyContent content = request.body();
        if (content == null) {
            return new byte[0];
        }
        if (content instanceof StandardHttpRequest.ByteArrayBodyContent bytes) {
            return bytes.getContent();
        }
        if (content instanceof StandardHttpRequest.StringBodyContent text) {
            return text.getContent().getBytes(StandardCharsets.UTF_8);
        }
        if (content instanceof StandardHttpRequest.InputStreamBodyContent stream) {
            try (InputStream in = stream.getContent()) {
                return in.readAllBytes();
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
        throw new IllegalArgumentException("unknown request body " + content.getClass().getName());
    }

    @Override
    protected void doClose() {
        new ArrayList<>(session.open()).forEach(InProcessExchange::cancel);
    }
}
