package io.k4j.apiserver.registry.core.pod;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.k4j.api.validation.FieldError;
import io.k4j.api.validation.FieldErrors;
import io.k4j.api.validation.NameValidation;
import io.k4j.apiserver.registry.core.Trees;
import io.k4j.apiserver.registry.generic.SubresourceStrategy;
import java.util.List;

/**
 * The rules of {@code pods/status}, as upstream's {@code podStatusStrategy}: only status changes (the spec, owner
 * references and deletion timestamp are kept), the QoS class is immutable, a container of a pod that never restarts
 * cannot come back from terminated. Thread-safe.
 */
public final class PodStatusStrategy extends SubresourceStrategy {
    public PodStatusStrategy(PodStrategy podStrategy) {
        super(podStrategy);
    }

    @Override
    public void prepareForUpdate(ObjectNode newPod, ObjectNode oldPod) {
        PodStrategy.copyOrRemove(oldPod, newPod, "spec");
        ObjectNode newMetadata = Trees.object(newPod, "metadata");
        JsonNode oldMetadata = Trees.at(oldPod, "metadata");
        // Old kubelets corrupt owner references; status writers never own them.
        if (oldMetadata instanceof ObjectNode oldObjectMetadata) {
            PodStrategy.copyOrRemove(oldObjectMetadata, newMetadata, "ownerReferences");
            PodStrategy.copyOrRemove(oldObjectMetadata, newMetadata, "deletionTimestamp");
        }
        if (Trees.text(newPod, "status", "qosClass").isEmpty() && !Trees.text(oldPod, "status", "qosClass").isEmpty()) {
            Trees.object(newPod, "status").put("qosClass", Trees.text(oldPod, "status", "qosClass"));
        }
    }

    @Override
    public FieldErrors validateUpdate(ObjectNode newPod, ObjectNode oldPod) {
        FieldErrors errors = new FieldErrors();
        JsonNode status = Trees.at(newPod, "status");
        String nominated = Trees.text(status, "nominatedNodeName");
        if (!nominated.isEmpty()) {
            NameValidation.isDns1123Subdomain(nominated).forEach(message -> errors.add(FieldError.invalid("status.nominatedNodeName", nominated, message)));
        }
        if (Trees.text(oldPod, "spec", "restartPolicy").equals("Never")) {
            List<JsonNode> newStatuses = Trees.elements(status, "containerStatuses");
            List<JsonNode> oldStatuses = Trees.elements(oldPod, "status", "containerStatuses");
            for (int index = 0; index < newStatuses.size(); index++) {
                JsonNode newStatus = newStatuses.get(index);
                for (JsonNode oldStatus : oldStatuses) {
                    if (Trees.text(oldStatus, "name").equals(Trees.text(newStatus, "name"))
                            && Trees.has(oldStatus, "state", "terminated") && !Trees.has(newStatus, "state", "terminated")) {
                        errors.add(FieldError.forbidden("status.containerStatuses[" + index + "].state", "may not be transitioned to non-terminated state"));
                    }
                }
            }
        }
        List<JsonNode> podIps = Trees.elements(status, "podIPs");
        for (int index = 0; index < podIps.size(); index++) {
            String ip = Trees.text(podIps.get(index), "ip");
            errors.addAll(NameValidation.isValidIp("status.podIPs[" + index + "]", ip));
        }
        if (podIps.size() > 2) {
            errors.add(new FieldError(FieldError.Type.TOO_MANY, "status.podIPs", podIps.size(), "must have at most 2 items"));
        }
        List<JsonNode> hostIps = Trees.elements(status, "hostIPs");
        for (int index = 0; index < hostIps.size(); index++) {
            String ip = Trees.text(hostIps.get(index), "ip");
            errors.addAll(NameValidation.isValidIp("status.hostIPs[" + index + "]", ip));
        }
        String oldQos = Trees.text(oldPod, "status", "qosClass");
        String newQos = Trees.text(status, "qosClass");
        if (!oldQos.equals(newQos)) {
            errors.add(FieldError.invalid("status.qosClass", newQos, "field is immutable"));
        }
        return errors;
    }
}
