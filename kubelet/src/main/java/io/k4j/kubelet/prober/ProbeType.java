package io.k4j.kubelet.prober;

/** The three kinds of container probe. */
public enum ProbeType {
    LIVENESS("Liveness"),
    READINESS("Readiness"),
    STARTUP("Startup");

    private final String displayName;

    ProbeType(String displayName) {
        this.displayName = displayName;
    }

    /** As upstream's events write it, e.g. {@code Liveness probe failed: …}. */
    public String displayName() {
        return displayName;
    }
}
