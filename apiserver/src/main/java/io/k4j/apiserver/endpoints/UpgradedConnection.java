package io.k4j.apiserver.endpoints;

import java.io.Closeable;
import java.io.InputStream;
import java.io.OutputStream;

/**
 * The raw byte streams of a connection after a {@code 101 Switching Protocols} answer (see
 * {@link HttpExchange#switchProtocols}). Reading is for one thread; writes block until sent. Closing closes the
 * connection.
 */
public interface UpgradedConnection extends Closeable {
    InputStream input();

    OutputStream output();
}
