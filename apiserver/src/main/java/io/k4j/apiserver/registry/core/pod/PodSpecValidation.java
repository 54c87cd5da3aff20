package io.k4j.apiserver.registry.core.pod;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.k4j.api.validation.FieldError;
import io.k4j.api.validation.FieldErrors;
import io.k4j.apiserver.registry.core.CoreNames;
import io.k4j.apiserver.registry.core.Quantities;
import io.k4j.apiserver.registry.core.Trees;
import java.math.BigDecimal;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * The rules of a pod spec from upstream's {@code ValidatePodSpec}, shared by pods, pod templates and every workload
 * that embeds a template, with upstream's field paths and messages. Stateless and thread-safe.
 */
public final class PodSpecValidation {
    static final List<String> RESTART_POLICIES = List.of("Always", "OnFailure", "Never");
    static final List<String> DNS_POLICIES = List.of("ClusterFirst", "ClusterFirstWithHostNet", "Default", "None");
    static final List<String> PULL_POLICIES = List.of("Always", "IfNotPresent", "Never");
    static final List<String> TERMINATION_MESSAGE_POLICIES = List.of("File", "FallbackToLogsOnError");
    /** Sorted, as upstream lists a set's values. */
    public static final List<String> PROTOCOLS = List.of("SCTP", "TCP", "UDP");
    static final List<String> TAINT_EFFECTS = List.of("NoExecute", "NoSchedule", "PreferNoSchedule");
    static final List<String> TOLERATION_OPERATORS = List.of("Equal", "Exists");

    private PodSpecValidation() {}

    /**
     * Validates a pod template ({@code metadata} and {@code spec}) at {@code path}, e.g. {@code spec.template}.
     */
    public static FieldErrors validateTemplate(JsonNode template, String path) {
        FieldErrors errors = new FieldErrors();
        if (!template.isObject()) {
            return errors.add(FieldError.required(path, ""));
        }
        return errors.addAll(validateSpec(Trees.at(template, "spec"), path + ".spec", false));
    }

    /**
     * Validates a pod spec at {@code path}; {@code forPod} adds the checks upstream makes only for pods (not templates).
     */
    public static FieldErrors validateSpec(JsonNode spec, String path, boolean forPod) {
        FieldErrors errors = new FieldErrors();
        Set<String> volumeNames = validateVolumes(spec, path + ".volumes", errors);
        Set<String> containerNames = new HashSet<>();
        List<JsonNode> containers = Trees.elements(spec, "containers");
        if (containers.isEmpty()) {
            errors.add(FieldError.required(path + ".containers", ""));
        }
        validateContainers(containers, path + ".containers", volumeNames, containerNames, forPod, errors);
        // Init containers come second so that a name clash is reported on the init container, as upstream does.
        validateContainers(Trees.elements(spec, "initContainers"), path + ".initContainers", volumeNames, containerNames, forPod, errors);
        validateOneOf(Trees.text(spec, "restartPolicy"), RESTART_POLICIES, path + ".restartPolicy", errors);
        String dnsPolicy = Trees.text(spec, "dnsPolicy");
        validateOneOf(dnsPolicy, DNS_POLICIES, path + ".dnsPolicy", errors);
        if (dnsPolicy.equals("None") && !Trees.has(spec, "dnsConfig")) {
            errors.add(FieldError.required(path + ".dnsConfig", "must provide `dnsConfig` when `dnsPolicy` is None"));
        }
        if (Trees.has(spec, "activeDeadlineSeconds")) {
            long deadline = Trees.integer(spec, "activeDeadlineSeconds");
            if (deadline < 1 || deadline > Integer.MAX_VALUE) {
                errors.add(FieldError.invalid(path + ".activeDeadlineSeconds", deadline, "must be between 1 and 2147483647, inclusive"));
            }
        }
        validateName(Trees.text(spec, "nodeName"), path + ".nodeName", CoreNames.dns1123Subdomain(Trees.text(spec, "nodeName")), errors);
        validateName(Trees.text(spec, "serviceAccountName"), path + ".serviceAccountName", CoreNames.dns1123Subdomain(Trees.text(spec, "serviceAccountName")), errors);
        validateName(Trees.text(spec, "hostname"), path + ".hostname", CoreNames.dns1123Label(Trees.text(spec, "hostname")), errors);
        validateName(Trees.text(spec, "subdomain"), path + ".subdomain", CoreNames.dns1123Label(Trees.text(spec, "subdomain")), errors);
        validateName(Trees.text(spec, "schedulerName"), path + ".schedulerName", CoreNames.dns1123Subdomain(Trees.text(spec, "schedulerName")), errors);
        validateName(Trees.text(spec, "priorityClassName"), path + ".priorityClassName", CoreNames.dns1123Subdomain(Trees.text(spec, "priorityClassName")), errors);
        for (Map.Entry<String, JsonNode> entry : Trees.at(spec, "nodeSelector").properties()) {
            for (String message : CoreNames.qualifiedName(entry.getKey())) {
                errors.add(FieldError.invalid(path + ".nodeSelector", entry.getKey(), message));
            }
        }
        errors.addAll(validateTolerations(Trees.elements(spec, "tolerations"), path + ".tolerations"));
        return errors;
    }

    static FieldErrors validateTolerations(List<JsonNode> tolerations, String path) {
        FieldErrors errors = new FieldErrors();
        for (int index = 0; index < tolerations.size(); index++) {
            JsonNode toleration = tolerations.get(index);
            String itemPath = path + "[" + index + "]";
            String key = Trees.text(toleration, "key");
            String operator = Trees.text(toleration, "operator");
            if (!key.isEmpty()) {
                for (String message : CoreNames.qualifiedName(key)) {
                    errors.add(FieldError.invalid(itemPath + ".key", key, message));
                }
            } else if (!operator.equals("Exists")) {
                errors.add(FieldError.invalid(itemPath + ".operator", operator, "operator must be Exists when `key` is empty, which means \"match all values and all keys\""));
            }
            if (!operator.isEmpty() && !TOLERATION_OPERATORS.contains(operator)) {
                errors.add(FieldError.notSupported(itemPath + ".operator", operator, TOLERATION_OPERATORS));
            }
            if (operator.equals("Exists") && !Trees.text(toleration, "value").isEmpty()) {
                errors.add(FieldError.invalid(itemPath + ".operator", Trees.text(toleration, "value"), "value must be empty when `operator` is 'Exists'"));
            }
            String effect = Trees.text(toleration, "effect");
            if (!effect.isEmpty() && !TAINT_EFFECTS.contains(effect)) {
                errors.add(FieldError.notSupported(itemPath + ".effect", effect, TAINT_EFFECTS));
            }
            if (Trees.has(toleration, "tolerationSeconds") && !effect.equals("NoExecute")) {
                errors.add(FieldError.invalid(itemPath + ".effect", effect, "effect must be 'NoExecute' when `tolerationSeconds` is set"));
            }
        }
        return errors;
    }

    private static Set<String> validateVolumes(JsonNode spec, String path, FieldErrors errors) {
        Set<String> names = new HashSet<>();
        List<JsonNode> volumes = Trees.elements(spec, "volumes");
        for (int index = 0; index < volumes.size(); index++) {
            JsonNode volume = volumes.get(index);
            String itemPath = path + "[" + index + "]";
            String name = Trees.text(volume, "name");
            if (name.isEmpty()) {
                errors.add(FieldError.required(itemPath + ".name", ""));
            } else {
                for (String message : CoreNames.dns1123Label(name)) {
                    errors.add(FieldError.invalid(itemPath + ".name", name, message));
                }
                if (!names.add(name)) {
                    errors.add(FieldError.duplicate(itemPath + ".name", name));
                }
            }
            int sources = 0;
            for (Map.Entry<String, JsonNode> entry : volume.properties()) {
                if (entry.getKey().equals("name") || entry.getValue().isNull()) {
                    continue;
                }
                sources++;
                if (sources > 1) {
                    errors.add(FieldError.forbidden(itemPath + "." + entry.getKey(), "may not specify more than 1 volume type"));
                }
            }
            if (sources == 0) {
                errors.add(FieldError.required(itemPath, "must specify a volume type"));
            }
        }
        return names;
    }

    private static void validateContainers(List<JsonNode> containers, String path, Set<String> volumeNames, Set<String> containerNames, boolean forPod, FieldErrors errors) {
        for (int index = 0; index < containers.size(); index++) {
            JsonNode container = containers.get(index);
            String itemPath = path + "[" + index + "]";
            String name = Trees.text(container, "name");
            if (name.isEmpty()) {
                errors.add(FieldError.required(itemPath + ".name", ""));
            } else {
                for (String message : CoreNames.dns1123Label(name)) {
                    errors.add(FieldError.invalid(itemPath + ".name", name, message));
                }
                if (!containerNames.add(name)) {
                    errors.add(FieldError.duplicate(itemPath + ".name", name));
                }
            }
            String image = Trees.text(container, "image");
            if (image.isEmpty()) {
                errors.add(FieldError.required(itemPath + ".image", ""));
            } else if (forPod && !image.equals(image.strip())) {
                errors.add(FieldError.invalid(itemPath + ".image", image, "must not have leading or trailing whitespace"));
            }
            validateOneOf(Trees.text(container, "imagePullPolicy"), PULL_POLICIES, itemPath + ".imagePullPolicy", errors);
            validateOneOf(Trees.text(container, "terminationMessagePolicy"), TERMINATION_MESSAGE_POLICIES, itemPath + ".terminationMessagePolicy", errors);
            validatePorts(Trees.elements(container, "ports"), itemPath + ".ports", errors);
            validateEnvironment(Trees.elements(container, "env"), itemPath + ".env", errors);
            validateVolumeMounts(Trees.elements(container, "volumeMounts"), itemPath + ".volumeMounts", volumeNames, errors);
            validateResources(Trees.at(container, "resources"), itemPath + ".resources", errors);
        }
    }

    private static void validatePorts(List<JsonNode> ports, String path, FieldErrors errors) {
        Set<String> names = new HashSet<>();
        for (int index = 0; index < ports.size(); index++) {
            JsonNode port = ports.get(index);
            String itemPath = path + "[" + index + "]";
            String name = Trees.text(port, "name");
            if (!name.isEmpty()) {
                List<String> messages = CoreNames.portName(name);
                if (!messages.isEmpty()) {
                    messages.forEach(message -> errors.add(FieldError.invalid(itemPath + ".name", name, message)));
                } else if (!names.add(name)) {
                    errors.add(FieldError.duplicate(itemPath + ".name", name));
                }
            }
            long containerPort = Trees.integer(port, "containerPort");
            if (containerPort == 0) {
                errors.add(FieldError.required(itemPath + ".containerPort", ""));
            } else {
                CoreNames.portNumber(containerPort).forEach(message -> errors.add(FieldError.invalid(itemPath + ".containerPort", containerPort, message)));
            }
            long hostPort = Trees.integer(port, "hostPort");
            if (hostPort != 0) {
                CoreNames.portNumber(hostPort).forEach(message -> errors.add(FieldError.invalid(itemPath + ".hostPort", hostPort, message)));
            }
            validateOneOf(Trees.text(port, "protocol"), PROTOCOLS, itemPath + ".protocol", errors);
        }
    }

    private static void validateEnvironment(List<JsonNode> variables, String path, FieldErrors errors) {
        for (int index = 0; index < variables.size(); index++) {
            JsonNode variable = variables.get(index);
            String itemPath = path + "[" + index + "]";
            String name = Trees.text(variable, "name");
            if (name.isEmpty()) {
                errors.add(FieldError.required(itemPath + ".name", ""));
            } else {
                CoreNames.environmentVariableName(name).forEach(message -> errors.add(FieldError.invalid(itemPath + ".name", name, message)));
            }
            JsonNode valueFrom = Trees.at(variable, "valueFrom");
            if (valueFrom.isObject()) {
                if (!Trees.text(variable, "value").isEmpty()) {
                    errors.add(FieldError.invalid(itemPath + ".valueFrom", "", "may not be specified when `value` is not empty"));
                }
                int sources = 0;
                for (Map.Entry<String, JsonNode> entry : valueFrom.properties()) {
                    if (!entry.getValue().isNull()) {
                        sources++;
                    }
                }
                if (sources == 0) {
                    errors.add(FieldError.invalid(itemPath + ".valueFrom", "", "must specify one of: `fieldRef`, `resourceFieldRef`, `configMapKeyRef` or `secretKeyRef`"));
                } else if (sources > 1) {
                    errors.add(FieldError.invalid(itemPath + ".valueFrom", "", "may not have more than one field specified at a time"));
                }
            }
        }
    }

    private static void validateVolumeMounts(List<JsonNode> mounts, String path, Set<String> volumeNames, FieldErrors errors) {
        Set<String> mountPaths = new HashSet<>();
        for (int index = 0; index < mounts.size(); index++) {
            JsonNode mount = mounts.get(index);
            String itemPath = path + "[" + index + "]";
            String name = Trees.text(mount, "name");
            if (name.isEmpty()) {
                errors.add(FieldError.required(itemPath + ".name", ""));
            } else if (!volumeNames.contains(name)) {
                errors.add(FieldError.notFound(itemPath + ".name", name));
            }
            String mountPath = Trees.text(mount, "mountPath");
            if (mountPath.isEmpty()) {
                errors.add(FieldError.required(itemPath + ".mountPath", ""));
            } else if (!mountPaths.add(mountPath)) {
                errors.add(FieldError.invalid(itemPath + ".mountPath", mountPath, "must be unique"));
            }
        }
    }

    private static void validateResources(JsonNode resources, String path, FieldErrors errors) {
        JsonNode limits = Trees.at(resources, "limits");
        for (Map.Entry<String, JsonNode> request : Trees.at(resources, "requests").properties()) {
            Optional<BigDecimal> requested = Quantities.parse(request.getValue().asText());
            Optional<BigDecimal> limit = limits.has(request.getKey()) ? Quantities.parse(limits.get(request.getKey()).asText()) : Optional.empty();
            if (requested.isPresent() && limit.isPresent() && requested.get().compareTo(limit.get()) > 0) {
                errors.add(FieldError.invalid(path + ".requests", request.getValue().asText(),
                        "must be less than or equal to " + request.getKey() + " limit of " + limits.get(request.getKey()).asText()));
            }
        }
    }

    private static void validateName(String value, String path, List<String> messages, FieldErrors errors) {
        if (!value.isEmpty()) {
            messages.forEach(message -> errors.add(FieldError.invalid(path, value, message)));
        }
    }

    /** Required when empty, NotSupported when not one of {@code supported}. */
    public static void validateOneOf(String value, List<String> supported, String path, FieldErrors errors) {
        if (value.isEmpty()) {
            errors.add(FieldError.required(path, ""));
        } else if (!supported.contains(value)) {
            errors.add(FieldError.notSupported(path, value, supported));
        }
    }

    /** The spec with everything a pod update may change reset to the old spec's values, for comparison. */
    static ObjectNode withoutMutableFields(ObjectNode newSpec, JsonNode oldSpec) {
        ObjectNode munged = newSpec.deepCopy();
        for (String list : List.of("containers", "initContainers")) {
            List<ObjectNode> newContainers = Trees.objects(munged, list);
            List<JsonNode> oldContainers = Trees.elements(oldSpec, list);
            for (int index = 0; index < newContainers.size() && index < oldContainers.size(); index++) {
                copyField(oldContainers.get(index), newContainers.get(index), "image");
            }
        }
        copyField(oldSpec, munged, "activeDeadlineSeconds");
        copyField(oldSpec, munged, "tolerations");
        copyField(oldSpec, munged, "schedulingGates");
        copyField(oldSpec, munged, "ephemeralContainers");
        if (Trees.integer(oldSpec, "terminationGracePeriodSeconds") < 0 && Trees.integer(munged, "terminationGracePeriodSeconds") == 1) {
            copyField(oldSpec, munged, "terminationGracePeriodSeconds");
        }
        return munged;
    }

    private static void copyField(JsonNode from, ObjectNode to, String name) {
        JsonNode value = from.get(name);
        if (value == null) {
            to.remove(name);
        } else {
            to.set(name, value.deepCopy());
        }
    }
}
