package io.k4j.kubelet.prober;

import static java.util.Objects.requireNonNull;

/** What one probe attempt found, with the output upstream shows in events. */
record ProbeOutcome(Result result, String output) {
    enum Result {
        SUCCESS,
        /** Success with a warning (a redirect to another host was not followed). */
        WARNING,
        FAILURE
    }

    ProbeOutcome {
        requireNonNull(result, "result is null");
        requireNonNull(output, "output is null");
    }

    static ProbeOutcome success(String output) {
        return new ProbeOutcome(Result.SUCCESS, output);
    }

    static ProbeOutcome warning(String output) {
        return new ProbeOutcome(Result.WARNING, output);
    }

    static ProbeOutcome failure(String output) {
        return new ProbeOutcome(Result.FAILURE, output);
    }
}
