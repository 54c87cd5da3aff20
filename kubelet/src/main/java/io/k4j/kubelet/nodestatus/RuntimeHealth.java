package io.k4j.kubelet.nodestatus;

import static java.util.Objects.requireNonNull;

import io.k4j.kubelet.cri.CriException;
import io.k4j.kubelet.cri.RuntimeService;
import io.k4j.kubelet.cri.v1.RuntimeCondition;
import io.k4j.kubelet.cri.v1.StatusResponse;
import java.util.ArrayList;
import java.util.List;

/**
 * Whether the container runtime can run pods, as upstream's runtime state check feeds the Ready condition.
 *
 * @param message empty when ready, else upstream's reason text for {@code KubeletNotReady}
 */
public record RuntimeHealth(boolean ready, String message) {
    public static final RuntimeHealth READY = new RuntimeHealth(true, "");
    /** Upstream's message for a runtime that does not answer. */
    public static final String RUNTIME_DOWN = "container runtime is down";

    public RuntimeHealth {
        requireNonNull(message, "message is null");
    }

    /**
     * Asks the runtime for its status: a runtime that does not answer is down; one that answers with a condition that
     * is not true is not ready, in upstream's words ({@code container runtime network not ready: NetworkReady=false
     * reason:… message:…}); several problems are joined with {@code ", "}.
     */
    public static RuntimeHealth check(RuntimeService runtime) {
        StatusResponse status;
        try {
            status = runtime.status(false);
        }
        catch (CriException e) {
            return new RuntimeHealth(false, RUNTIME_DOWN);
        }
        List<String> problems = new ArrayList<>();
        for (RuntimeCondition condition : status.getStatus().getConditionsList()) {
            if (!condition.getStatus()) {
                String prefix = condition.getType().equals("NetworkReady") ? "container runtime network not ready: "
                        : "container runtime not ready: ";
                problems.add(prefix + condition.getType() + "=false reason:" + condition.getReason() + " message:"
                        + condition.getMessage());
            }
        }
        return problems.isEmpty() ? READY : new RuntimeHealth(false, String.join(", ", problems));
    }
}
