package io.k4j.apiserver.admission.plugin.defaulttolerationseconds;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.k4j.apiserver.admission.AdmissionAttributes;
import io.k4j.apiserver.admission.MutatingAdmissionPlugin;
import io.k4j.apiserver.admission.Operation;
import io.k4j.apiserver.admission.Resources;

/**
 * Gives every new pod tolerations for the not-ready and unreachable taints, so that the node lifecycle
 * controller evicts its pods only after a grace period instead of immediately. Thread-safe.
 */
public final class DefaultTolerationSeconds implements MutatingAdmissionPlugin {
    public static final String NAME = "DefaultTolerationSeconds";
    public static final String NOT_READY_TAINT = "node.kubernetes.io/not-ready";
    public static final String UNREACHABLE_TAINT = "node.kubernetes.io/unreachable";
    /** Upstream's default for both {@code --default-not-ready-toleration-seconds} and the unreachable one. */
    public static final long DEFAULT_SECONDS = 300;

    private final long notReadySeconds;
    private final long unreachableSeconds;

    public DefaultTolerationSeconds() {
        this(DEFAULT_SECONDS, DEFAULT_SECONDS);
    }

    public DefaultTolerationSeconds(long notReadySeconds, long unreachableSeconds) {
        this.notReadySeconds = notReadySeconds;
        this.unreachableSeconds = unreachableSeconds;
    }

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public boolean handles(Operation operation) {
        return operation == Operation.CREATE;
    }

    @Override
    public void admit(AdmissionAttributes attributes) {
        if (!Resources.isResource(attributes, Resources.PODS) || !attributes.subresource().isEmpty() || attributes.object() == null) {
            return;
        }
        ObjectNode spec = attributes.object().with("spec");
        ArrayNode tolerations = spec.withArray("tolerations");
        boolean toleratesNotReady = false;
        boolean toleratesUnreachable = false;
        for (JsonNode toleration : tolerations) {
            String effect = toleration.path("effect").asText("");
            String key = toleration.path("key").asText("");
            boolean matchesNoExecute = effect.isEmpty() || effect.equals("NoExecute");
            // An empty key with Exists tolerates every taint.
            if (key.isEmpty() && "Exists".equals(toleration.path("operator").asText()) && matchesNoExecute) {
                toleratesNotReady = true;
                toleratesUnreachable = true;
            }
            if (key.equals(NOT_READY_TAINT) && matchesNoExecute) {
                toleratesNotReady = true;
            }
            if (key.equals(UNREACHABLE_TAINT) && matchesNoExecute) {
                toleratesUnreachable = true;
            }
        }
        if (!toleratesNotReady) {
            addToleration(tolerations, NOT_READY_TAINT, notReadySeconds);
        }
        if (!toleratesUnreachable) {
            addToleration(tolerations, UNREACHABLE_TAINT, unreachableSeconds);
        }
    }

    private static void addToleration(ArrayNode tolerations, String key, long seconds) {
        ObjectNode toleration = tolerations.addObject();
        toleration.put("key", key);
        toleration.put("operator", "Exists");
        toleration.put("effect", "NoExecute");
        toleration.put("tolerationSeconds", seconds);
    }
}
