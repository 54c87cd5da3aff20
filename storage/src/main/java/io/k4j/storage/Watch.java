package io.k4j.storage;

/** A running watch. Closing it stops delivery; no listener call starts after {@code close} returns. */
public interface Watch extends AutoCloseable {
    @Override
    void close();
}
