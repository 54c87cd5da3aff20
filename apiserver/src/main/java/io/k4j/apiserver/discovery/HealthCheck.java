package io.k4j.apiserver.discovery;

/** One named check of {@code /healthz}, {@code /livez} or {@code /readyz}. Thread-safe. */
public interface HealthCheck {
    /** The name shown as {@code [+]name ok}, e.g. {@code etcd}. */
    String name();

    /**
     * @throws Exception when unhealthy (the message is logged, not shown to clients)
     */
    void check() throws Exception;

    static HealthCheck of(String name, ThrowingRunnable check) {
        return new HealthCheck() {
            @Override
            public String name() {
                return name;
            }

            @Override
            public void check() throws Exception {
                check.run();
            }
        };
    }

    @FunctionalInterface
    interface ThrowingRunnable {
        void run() throws Exception;
    }
}
