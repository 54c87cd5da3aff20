package io.k4j.apiserver.endpoints;

/** Told when a long-running request (a watch) starts and ends, for the longrunning gauge. Thread-safe. */
public interface LongRunningListener {
    LongRunningListener NONE = new LongRunningListener() {
        @Override
        public void started(RequestInfo info) {}

        @Override
        public void ended(RequestInfo info) {}
    };

    void started(RequestInfo info);

    void ended(RequestInfo info);
}
