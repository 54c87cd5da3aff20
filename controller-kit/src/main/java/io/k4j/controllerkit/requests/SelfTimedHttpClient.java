package io.k4j.controllerkit.requests;

/**
 * An HTTP client that fails the answer of every request that is not streamed once it outlives the request's timeout
 * (or the default one), the whole body included. Callers wait for such an answer without a timer of their own: on a
 * virtual thread, a wait with a timeout has JDK 25's scheduler add a timer entry and cancel it again, waking the
 * scheduler's timer thread both times.
 */
public interface SelfTimedHttpClient {
}
