package io.k4j.launcher.inprocess;

import static java.util.Objects.requireNonNull;

import io.fabric8.kubernetes.client.http.HttpRequest;
import io.fabric8.kubernetes.client.http.WebSocket;
import io.fabric8.kubernetes.client.http.WebSocketHandshakeException;
import io.fabric8.kubernetes.client.http.WebSocketResponse;
import io.fabric8.kubernetes.client.http.WebSocketUpgradeResponse;
import io.k4j.apiserver.InProcessExchange;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

/**
 * A watch served in process, handed to fabric8 as the WebSocket it asked for: each event line the server writes is one
 * text message, as the server's WebSocket framing would carry it, and the end of the watch is a normal close. Messages
 * are delivered on the serving thread, one at a time, so a listener that is slow to handle one holds the watch back as
 * a full socket would; {@link #request()} therefore has nothing to do. The client's first steps with a message run on
 * the serving thread too (see {@link InProcessTaskExecutor}). The client's own messages are dropped, as the
 * server drops a watch client's messages. Closing from the client ends the watch on the server.
 */
final class WatchMessages implements InProcessExchange.Receiver, WebSocket {
    private static final int NORMAL_CLOSURE = 1000;
    /**
     * Shared by every in-process watch: the server gives all the watchers of a change one array. Holds at most 256 lines
     * of 16 KiB and their strings.
     */
    private static final SharedLines SHARED_LINES = new SharedLines(256, 16 * 1024);

    private final HttpRequest request;
    private final WebSocket.Listener listener;
    private final CompletableFuture<WebSocketResponse> response = new CompletableFuture<>();
    private final ByteArrayOutputStream partialLine = new ByteArrayOutputStream();
    private volatile InProcessExchange exchange;
    private boolean open;
    private boolean closeDelivered;

    WatchMessages(HttpRequest request, WebSocket.Listener listener) {
        this.request = requireNonNull(request, "request is null");
        this.listener = requireNonNull(listener, "listener is null");
    }

    void attach(InProcessExchange served) {
        this.exchange = served;
    }

    CompletableFuture<WebSocketResponse> response() {
        return response;
    }

    @Override
    public void headers(int status, Map<String, List<String>> headers, boolean streamed) {
        if (status != 200 || !streamed) {
            // As a refused upgrade: fabric8 reads the status code from the handshake's answer.
            WebSocketUpgradeResponse refused = new WebSocketUpgradeResponse(request, status, headers);
            response.complete(new WebSocketResponse(refused, new WebSocketHandshakeException(refused)));
            return;
        }
        open = true;
        listener.onOpen(this);
        response.complete(new WebSocketResponse(new WebSocketUpgradeResponse(request, 101, headers), this));
    }

    @Override
    public void data(byte[] bytes, int offset, int length) throws IOException {
        if (!open) {
            return;
        }
        int start = offset;
        int end = offset + length;
        for (int i = offset; i < end; i++) {
            if (bytes[i] == '\n') {
                String message;
                if (partialLine.size() == 0) {
                    message = new String(bytes, start, i - start, StandardCharsets.UTF_8);
                } else {
                    partialLine.write(bytes, start, i - start);
                    message = partialLine.toString(StandardCharsets.UTF_8);
                    partialLine.reset();
                }
                deliver(message);
                start = i + 1;
            }
        }
        partialLine.write(bytes, start, end - start);
    }

    @Override
    public void unchangingData(byte[] bytes) throws IOException {
        if (!open) {
            return;
        }
        String message = partialLine.size() == 0 ? SHARED_LINES.message(bytes) : null;
        if (message == null) {
            data(bytes, 0, bytes.length);
            return;
        }
        deliver(message);
    }

    private void deliver(String message) throws IOException {
        InProcessTaskExecutor.beginHandOver();
        try {
            listener.onMessage(this, message);
        } catch (RuntimeException e) {
            listener.onError(this, e);
            throw new IOException("the watch's listener failed", e);
        } finally {
            InProcessTaskExecutor.endHandOver();
        }
    }

    @Override
    public void end() {
        if (!open || closeDelivered) {
            return;
        }
        try {
            if (partialLine.size() > 0) {
                deliver(partialLine.toString(StandardCharsets.UTF_8));
                partialLine.reset();
            }
        } catch (IOException e) {
            return;
        }
        closeDelivered = true;
        listener.onClose(this, NORMAL_CLOSURE, "");
    }

    /** The serving thread failed without an answer. */
    void failed(Throwable failure) {
        if (!response.completeExceptionally(failure) && open && !closeDelivered) {
            closeDelivered = true;
            listener.onError(this, failure);
        }
    }

    @Override
    public boolean send(ByteBuffer buffer) {
        return true;
    }

    @Override
    public boolean sendClose(int code, String reason) {
        InProcessExchange served = exchange;
        if (served != null) {
            served.cancel();
        }
        return true;
    }

    @Override
    public long queueSize() {
        return 0;
    }

    @Override
    public void request() {
        // Messages are delivered one at a time on the serving thread; see the class comment.
    }
}
