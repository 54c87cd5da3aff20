package io.k4j.launcher;

/**
 * A part of the cluster that runs beside the apiserver in the same process and talks to it only through its REST
 * API with its own identity (controller manager, scheduler, nodes), as upstream's components do from their own
 * processes. Started in list order once the apiserver is ready; closed in reverse order.
 */
interface Component extends AutoCloseable {
    /** A short name for logs, e.g. {@code controller-manager}. */
    String name();

    /** Starts the component; returns once it runs (it may still be waiting for its caches). */
    void start() throws Exception;

    /** Stops the component and releases what it holds; never throws. */
    @Override
    void close();
}
