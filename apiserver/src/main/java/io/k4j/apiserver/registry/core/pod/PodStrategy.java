package io.k4j.apiserver.registry.core.pod;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.NullNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.k4j.api.resource.ResourceType;
import io.k4j.api.validation.FieldError;
import io.k4j.api.validation.FieldErrors;
import io.k4j.apiserver.registry.core.CoreResources;
import io.k4j.apiserver.registry.core.Trees;
import io.k4j.apiserver.registry.generic.ResourceStrategy;
import io.k4j.apiserver.registry.generic.TableColumn;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The rules of pods, as upstream's {@code podStrategy}: status is the kubelet's (set to Pending on create, kept on
 * update), the spec is immutable except images, a shorter deadline, added tolerations and removed scheduling gates,
 * and a delete of a running pod is graceful. Thread-safe.
 */
public final class PodStrategy implements ResourceStrategy {
    private static final ResourceType TYPE = CoreResources.type("pods");
    static final String UPDATABLE_FIELDS = String.join(",",
            "`spec.containers[*].image`",
            "`spec.initContainers[*].image`",
            "`spec.activeDeadlineSeconds`",
            "`spec.tolerations` (only additions to existing tolerations)",
            "`spec.terminationGracePeriodSeconds` (allow it to be set to 1 if it was previously negative)");

    private final InstantSource clock;

    public PodStrategy(InstantSource clock) {
        this.clock = requireNonNull(clock, "clock is null");
    }

    @Override
    public ResourceType type() {
        return TYPE;
    }

    @Override
    public void applyDefaults(ObjectNode pod) {
        PodSpecDefaults.applyToPodSpec(Trees.object(pod, "spec"));
    }

    @Override
    public void prepareForCreate(ObjectNode pod) {
        ObjectNode status = pod.putObject("status");
        status.put("phase", "Pending");
        status.put("qosClass", PodQos.qosClass(Trees.at(pod, "spec")));
        PodSpecDefaults.mirrorServiceAccount(Trees.object(pod, "spec"));
    }

    @Override
    public void prepareForUpdate(ObjectNode newPod, ObjectNode oldPod) {
        copyOrRemove(oldPod, newPod, "status");
        PodSpecDefaults.mirrorServiceAccount(Trees.object(newPod, "spec"));
    }

    @Override
    public FieldErrors validate(ObjectNode pod) {
        return PodSpecValidation.validateSpec(Trees.at(pod, "spec"), "spec", true);
    }

    @Override
    public FieldErrors validateUpdate(ObjectNode newPod, ObjectNode oldPod) {
        FieldErrors errors = new FieldErrors();
        ObjectNode newSpec = Trees.object(newPod, "spec");
        JsonNode oldSpec = Trees.at(oldPod, "spec");
        for (String list : List.of("containers", "initContainers")) {
            List<JsonNode> newContainers = Trees.elements(newSpec, list);
            if (newContainers.size() != Trees.size(oldSpec, list)) {
                return errors.add(FieldError.forbidden("spec." + list, "pod updates may not add or remove containers"));
            }
            for (int index = 0; index < newContainers.size(); index++) {
                String image = Trees.text(newContainers.get(index), "image");
                String path = "spec." + list + "[" + index + "].image";
                if (image.isEmpty()) {
                    errors.add(FieldError.required(path, ""));
                } else if (!image.equals(image.strip())) {
                    errors.add(FieldError.invalid(path, image, "must not have leading or trailing whitespace"));
                }
            }
        }
        if (Trees.has(newSpec, "activeDeadlineSeconds")) {
            long deadline = Trees.integer(newSpec, "activeDeadlineSeconds");
            if (deadline < 0 || deadline > Integer.MAX_VALUE) {
                return errors.add(FieldError.invalid("spec.activeDeadlineSeconds", deadline, "must be between 0 and 2147483647, inclusive"));
            }
            if (Trees.has(oldSpec, "activeDeadlineSeconds") && Trees.integer(oldSpec, "activeDeadlineSeconds") < deadline) {
                return errors.add(FieldError.invalid("spec.activeDeadlineSeconds", deadline, "must be less than or equal to previous value"));
            }
        } else if (Trees.has(oldSpec, "activeDeadlineSeconds")) {
            errors.add(FieldError.invalid("spec.activeDeadlineSeconds", NullNode.getInstance(), "must not update from a positive integer to nil value"));
        }
        errors.addAll(validateOnlyAddedTolerations(Trees.elements(newSpec, "tolerations"), Trees.elements(oldSpec, "tolerations")));
        errors.addAll(validateOnlyRemovedSchedulingGates(Trees.elements(newSpec, "schedulingGates"), Trees.elements(oldSpec, "schedulingGates")));
        if (Trees.sameValue(newSpec, oldSpec)) {
            return errors;
        }
        ObjectNode munged = PodSpecValidation.withoutMutableFields(newSpec, oldSpec);
        if (!Trees.sameValue(munged, oldSpec)) {
            errors.add(FieldError.forbidden("spec", "pod updates may not change fields other than " + UPDATABLE_FIELDS + "\n" + SpecDiff.describe("core.PodSpec", oldSpec, munged)));
        }
        return errors;
    }

    private static FieldErrors validateOnlyAddedTolerations(List<JsonNode> newTolerations, List<JsonNode> oldTolerations) {
        FieldErrors errors = new FieldErrors();
        for (JsonNode oldToleration : oldTolerations) {
            boolean found = false;
            for (JsonNode newToleration : newTolerations) {
                ObjectNode oldWithoutSeconds = ((ObjectNode) oldToleration.deepCopy()).without("tolerationSeconds");
                ObjectNode newWithoutSeconds = ((ObjectNode) newToleration.deepCopy()).without("tolerationSeconds");
                if (oldWithoutSeconds.equals(newWithoutSeconds)) {
                    found = true;
                    break;
                }
            }
            if (!found) {
                return errors.add(FieldError.forbidden("spec.tolerations", "existing toleration can not be modified except its tolerationSeconds"));
            }
        }
        return errors.addAll(PodSpecValidation.validateTolerations(newTolerations, "spec.tolerations"));
    }

    private static FieldErrors validateOnlyRemovedSchedulingGates(List<JsonNode> newGates, List<JsonNode> oldGates) {
        FieldErrors errors = new FieldErrors();
        for (JsonNode gate : newGates) {
            if (!oldGates.contains(gate)) {
                return errors.add(FieldError.forbidden("spec.schedulingGates", "only deletion is allowed, but found new scheduling gate '" + Trees.text(gate, "name") + "'"));
            }
        }
        return errors;
    }

    @Override
    public long gracePeriodSeconds(ObjectNode pod, Long requestedSeconds) {
        long period;
        if (requestedSeconds != null) {
            period = requestedSeconds;
        } else {
            period = Trees.has(pod, "spec", "terminationGracePeriodSeconds") ? Trees.integer(pod, "spec", "terminationGracePeriodSeconds") : 0;
        }
        // Nothing runs a pod that was never scheduled or has finished, so nobody would finish a graceful delete.
        if (Trees.text(pod, "spec", "nodeName").isEmpty()) {
            period = 0;
        }
        String phase = Trees.text(pod, "status", "phase");
        if (phase.equals("Failed") || phase.equals("Succeeded")) {
            period = 0;
        }
        return period < 0 ? 1 : period;
    }

    @Override
    public Map<String, String> selectableFields(ObjectNode pod) {
        Map<String, String> fields = new HashMap<>();
        fields.put("spec.nodeName", Trees.text(pod, "spec", "nodeName"));
        fields.put("spec.restartPolicy", Trees.text(pod, "spec", "restartPolicy"));
        fields.put("spec.schedulerName", Trees.text(pod, "spec", "schedulerName"));
        fields.put("spec.serviceAccountName", Trees.text(pod, "spec", "serviceAccountName"));
        fields.put("spec.hostNetwork", Boolean.toString(Trees.bool(pod, "spec", "hostNetwork")));
        fields.put("status.phase", Trees.text(pod, "status", "phase"));
        List<JsonNode> podIps = Trees.elements(pod, "status", "podIPs");
        fields.put("status.podIP", podIps.isEmpty() ? "" : Trees.text(podIps.get(0), "ip"));
        fields.put("status.nominatedNodeName", Trees.text(pod, "status", "nominatedNodeName"));
        return fields;
    }

    @Override
    public List<TableColumn> tableColumns() {
        return PodPrinting.COLUMNS;
    }

    @Override
    public List<Object> tableRow(ObjectNode pod) {
        return new ArrayList<>(PodPrinting.row(pod, clock.instant()));
    }

    static void copyOrRemove(ObjectNode from, ObjectNode to, String field) {
        JsonNode value = from.get(field);
        if (value == null) {
            to.remove(field);
        } else {
            to.set(field, value.deepCopy());
        }
    }
}
