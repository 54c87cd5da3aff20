package io.k4j.scheduler.framework;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodCondition;

/**
 * The writes the scheduler makes to the apiserver. The production implementation speaks HTTPS to the apiserver; tests
 * use a recording fake. Implementations are thread-safe; every method blocks until the apiserver answered.
 */
public interface SchedulerClient {
    /**
     * Creates the pod's {@code binding} subresource.
     *
     * @throws SchedulerClientException when the apiserver refuses (for example the pod is gone or already bound)
     */
    void bind(Pod pod, String nodeName);

    /** Deletes a pod (a preemption victim); a pod that is already gone is not an error. */
    void deletePod(Pod pod);

    /**
     * Patches the pod's status with a condition and, when {@code nominatedNodeName} is non-null, the nominated node
     * (empty clears it). A pod that is gone is not an error.
     */
    void patchPodStatus(Pod pod, PodCondition condition, String nominatedNodeName);

    /** Records an event about a pod (Scheduled, FailedScheduling, Preempted). Failures are logged, never thrown. */
    void recordEvent(Pod regarding, String type, String reason, String action, String message);

    /** A failed write, with the apiserver's HTTP status code (0 when the request did not get an answer). */
    final class SchedulerClientException extends RuntimeException {
        private final int code;

        public SchedulerClientException(int code, String message, Throwable cause) {
            super(message, cause);
            this.code = code;
        }

        public int code() {
            return code;
        }
    }
}
