package io.k4j.apiserver.registry.core.pod;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.k4j.api.errors.StatusCause;
import io.k4j.api.errors.StatusException;
import io.k4j.api.errors.StatusReason;
import io.k4j.api.resource.GroupVersionResource;
import io.k4j.api.selection.LabelSelector;
import io.k4j.api.selection.SelectorParseException;
import io.k4j.apiserver.registry.core.Trees;
import io.k4j.apiserver.registry.generic.ObjectStore;
import io.k4j.apiserver.registry.generic.Registry;
import io.k4j.apiserver.registry.generic.SubresourceHandler;
import java.time.InstantSource;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Optional;

/**
 * {@code POST pods/<name>/eviction}: deletes a pod unless that would violate its PodDisruptionBudget, as upstream's
 * {@code EvictionREST}. A pod that is pending, finished or already being deleted is deleted at once; otherwise the one
 * budget selecting it must allow a disruption, which is then used up (recorded in {@code status.disruptedPods} so the
 * disruption controller does not count the pod while it goes away). Thread-safe.
 */
public final class PodEvictionHandler implements SubresourceHandler {
    static final String VIOLATION = "Cannot evict pod as it would violate the pod's disruption budget.";
    /** Upstream's bound on evictions the disruption controller has not confirmed yet. */
    private static final int MAX_DISRUPTED_PODS = 2000;
    /** Read here, served by the policy group's strategies. */
    private static final GroupVersionResource POD_DISRUPTION_BUDGETS = new GroupVersionResource("policy", "v1", "poddisruptionbudgets");

    private final Registry registry;
    private final InstantSource clock;

    public PodEvictionHandler(Registry registry, InstantSource clock) {
        this.registry = requireNonNull(registry, "registry is null");
        this.clock = requireNonNull(clock, "clock is null");
    }

    @Override
    public String subresource() {
        return "eviction";
    }

    @Override
    public String apiVersion() {
        return "policy/v1";
    }

    @Override
    public String kind() {
        return "Eviction";
    }

    @Override
    public ObjectNode create(Request request, ObjectNode eviction) {
        if (!Trees.text(eviction, "metadata", "name").equals(request.name())) {
            throw StatusException.badRequest("name in URL does not match name in Eviction object");
        }
        ObjectNode pod = request.parent().get(request.namespace(), request.name());
        if (!canIgnoreBudget(pod)) {
            Optional<ObjectNode> budget = budgetOf(pod, request.namespace());
            if (budget.isPresent() && mustRespect(pod, budget.get())) {
                useDisruption(budget.get(), request.name(), request.dryRun());
            }
        }
        if (!request.dryRun()) {
            request.parent().delete(request.namespace(), request.name());
        }
        ObjectNode status = Trees.newObject();
        status.put("kind", "Status");
        status.put("apiVersion", "v1");
        status.putObject("metadata");
        status.put("status", "Success");
        return status;
    }

    /** A pod that is not running or already going away has caused its disruption already. */
    private static boolean canIgnoreBudget(JsonNode pod) {
        String phase = Trees.text(pod, "status", "phase");
        return phase.equals("Succeeded") || phase.equals("Failed") || phase.equals("Pending") || Trees.has(pod, "metadata", "deletionTimestamp");
    }

    private Optional<ObjectNode> budgetOf(JsonNode pod, String namespace) {
        Optional<ObjectStore> budgets = registry.store(POD_DISRUPTION_BUDGETS);
        if (budgets.isEmpty()) {
            return Optional.empty();
        }
        List<ObjectNode> matching = budgets.get().list(namespace).stream()
                .filter(budget -> selects(budget, pod))
                .toList();
        if (matching.size() > 1) {
            throw new StatusException(StatusReason.INTERNAL_ERROR, 500, "This pod has more than one PodDisruptionBudget, which the eviction subresource does not support.",
                    null, null, null, List.of(), null);
        }
        return matching.stream().findFirst();
    }

    /**
     * Whether a budget covers a pod. As upstream's policy/v1 eviction, an empty selector covers every pod of the
     * namespace and a budget whose selector cannot be parsed covers none.
     */
    private static boolean selects(JsonNode budget, JsonNode pod) {
        try {
            return LabelSelector.fromJson(Trees.at(budget, "spec", "selector")).matchesLabelsNode(Trees.at(pod, "metadata", "labels"));
        } catch (SelectorParseException e) {
            return false;
        }
    }

    /** An unready pod does not count as healthy, so evicting it costs nothing when the budget is met anyway. */
    private static boolean mustRespect(JsonNode pod, JsonNode budget) {
        if (PodPrinting.hasTrueCondition(Trees.at(pod, "status"), "Ready")) {
            return true;
        }
        if (Trees.text(budget, "spec", "unhealthyPodEvictionPolicy").equals("AlwaysAllow")) {
            return false;
        }
        long desiredHealthy = Trees.integer(budget, "status", "desiredHealthy");
        return !(Trees.integer(budget, "status", "currentHealthy") >= desiredHealthy && desiredHealthy > 0);
    }

    private void useDisruption(ObjectNode budget, String podName, boolean dryRun) {
        String budgetName = Trees.text(budget, "metadata", "name");
        if (dryRun) {
            check(budget, budgetName);
            return;
        }
        ObjectStore budgets = registry.require(POD_DISRUPTION_BUDGETS);
        budgets.guaranteedUpdate(Trees.text(budget, "metadata", "namespace"), budgetName, "status", current -> {
            check(current, budgetName);
            ObjectNode status = Trees.object(current, "status");
            long allowed = Trees.integer(status, "disruptionsAllowed") - 1;
            status.put("disruptionsAllowed", allowed);
            String now = clock.instant().truncatedTo(ChronoUnit.SECONDS).toString();
            if (allowed == 0) {
                setDisruptionAllowedFalse(status, now);
            }
            Trees.object(status, "disruptedPods").put(podName, now);
            return current;
        });
    }

    private static void check(JsonNode budget, String budgetName) {
        if (Trees.integer(budget, "status", "observedGeneration") < Trees.integer(budget, "metadata", "generation")) {
            throw tooManyRequests(10, "The disruption budget " + budgetName + " is still being processed by the server.");
        }
        long allowed = Trees.integer(budget, "status", "disruptionsAllowed");
        if (allowed < 0) {
            throw StatusException.forbidden("policy", "poddisruptionbudget", budgetName, "pdb disruptions allowed is negative");
        }
        if (Trees.size(budget, "status", "disruptedPods") > MAX_DISRUPTED_PODS) {
            throw StatusException.forbidden("policy", "poddisruptionbudget", budgetName, "DisruptedPods map too big - too many evictions not confirmed by PDB controller");
        }
        if (allowed == 0) {
            throw tooManyRequests(0, "The disruption budget " + budgetName + " needs " + Trees.integer(budget, "status", "desiredHealthy")
                    + " healthy pods and has " + Trees.integer(budget, "status", "currentHealthy") + " currently");
        }
    }

    private static StatusException tooManyRequests(int retryAfterSeconds, String cause) {
        return new StatusException(StatusReason.TOO_MANY_REQUESTS, 429, VIOLATION, null, null, null,
                List.of(new StatusCause("DisruptionBudget", cause, "")), retryAfterSeconds);
    }

    private static void setDisruptionAllowedFalse(ObjectNode status, String now) {
        ArrayNode conditions = Trees.array(status, "conditions");
        for (JsonNode existing : conditions) {
            if (existing instanceof ObjectNode condition && Trees.text(condition, "type").equals("DisruptionAllowed")) {
                if (!Trees.text(condition, "status").equals("False")) {
                    condition.put("lastTransitionTime", now);
                }
                condition.put("status", "False");
                condition.put("reason", "InsufficientPods");
                condition.put("message", "");
                return;
            }
        }
        ObjectNode condition = conditions.addObject();
        condition.put("type", "DisruptionAllowed");
        condition.put("status", "False");
        condition.put("reason", "InsufficientPods");
        condition.put("message", "");
        condition.put("lastTransitionTime", now);
    }
}
