package io.k4j.bench;

import java.util.function.Consumer;

/**
 * A client that opens watch streams and hands each event line of their bodies to a callback, on the thread that read
 * it. Closing ends every stream it opened, whether the measurement that used them succeeded or not.
 */
interface WatchStreams extends AutoCloseable {
    /** What {@link #open} measures the server with, for reports: "the JDK HttpClient", "Jetty's HTTP/2 client". */
    String description();

    /** Sends a GET of {@code path} (a watch) and passes each line of its body, without the newline, to {@code onLine}. */
    void open(String path, Consumer<String> onLine);

    @Override
    void close();
}
