package io.k4j.apiserver.registry.core.pod;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.k4j.api.quantity.Quantity;
import io.k4j.api.validation.FieldError;
import io.k4j.api.validation.FieldErrors;
import io.k4j.api.validation.NameValidation;
import io.k4j.api.validation.ObjectMetaValidation;
import io.k4j.apiserver.registry.core.Trees;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Function;

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
    /** In upstream's order, which its error lists keep. */
    static final List<String> TAINT_EFFECTS = List.of("NoSchedule", "PreferNoSchedule", "NoExecute");
    static final List<String> TOLERATION_OPERATORS = List.of("Equal", "Exists");
    private static final List<String> HTTP_SCHEMES = List.of("HTTP", "HTTPS");
    /** Handler types in the order upstream checks them. */
    private static final List<String> HANDLERS_OF_PROBES = List.of("exec", "httpGet", "tcpSocket", "grpc");
    private static final List<String> HANDLERS_OF_HOOKS = List.of("exec", "httpGet", "tcpSocket", "sleep");

    private PodSpecValidation() {}

    /**
     * Validates a pod template ({@code metadata} and {@code spec}) at {@code path}, e.g. {@code spec.template}.
     */
    public static FieldErrors validateTemplate(JsonNode template, String path) {
        FieldErrors errors = new FieldErrors();
        if (!template.isObject()) {
            return errors.add(FieldError.required(path, ""));
        }
        // Upstream's paths skip "metadata" here: spec.template.labels, not spec.template.metadata.labels.
        errors.addAll(ObjectMetaValidation.validateLabels(Trees.at(template, "metadata", "labels"), path + ".labels"));
        errors.addAll(ObjectMetaValidation.validateAnnotations(Trees.at(template, "metadata", "annotations"), path + ".annotations"));
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
        validateName(spec, "nodeName", path, NameValidation::isDns1123Subdomain, errors);
        validateName(spec, "serviceAccountName", path, NameValidation::isDns1123Subdomain, errors);
        validateName(spec, "hostname", path, NameValidation::isDns1123Label, errors);
        validateName(spec, "subdomain", path, NameValidation::isDns1123Label, errors);
        validateName(spec, "schedulerName", path, NameValidation::isDns1123Subdomain, errors);
        validateName(spec, "priorityClassName", path, NameValidation::isDns1123Subdomain, errors);
        errors.addAll(ObjectMetaValidation.validateLabels(Trees.at(spec, "nodeSelector"), path + ".nodeSelector"));
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
                for (String message : NameValidation.isQualifiedName(key)) {
                    errors.add(FieldError.invalid(itemPath + ".key", key, message));
                }
            } else if (!operator.equals("Exists")) {
                errors.add(FieldError.invalid(itemPath + ".operator", operator, "operator must be Exists when `key` is empty, which means \"match all values and all keys\""));
            }
            String effect = Trees.text(toleration, "effect");
            if (Trees.has(toleration, "tolerationSeconds") && !effect.equals("NoExecute")) {
                errors.add(FieldError.invalid(itemPath + ".effect", effect, "effect must be 'NoExecute' when `tolerationSeconds` is set"));
            }
            String value = Trees.text(toleration, "value");
            switch (operator) {
                case "", "Equal" -> {
                    List<String> problems = NameValidation.isValidLabelValue(value);
                    if (!problems.isEmpty()) {
                        // Upstream shows the whole toleration here; the value is what is wrong with it.
                        errors.add(FieldError.invalid(itemPath + ".operator", value, String.join(";", problems)));
                    }
                }
                case "Exists" -> {
                    if (!value.isEmpty()) {
                        errors.add(FieldError.invalid(itemPath + ".operator", value, "value must be empty when `operator` is 'Exists'"));
                    }
                }
                default -> errors.add(FieldError.notSupported(itemPath + ".operator", operator, TOLERATION_OPERATORS));
            }
            if (!effect.isEmpty() && !TAINT_EFFECTS.contains(effect)) {
                errors.add(FieldError.notSupported(itemPath + ".effect", effect, TAINT_EFFECTS));
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
                for (String message : NameValidation.isDns1123Label(name)) {
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
                for (String message : NameValidation.isDns1123Label(name)) {
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
            validateLifecycle(Trees.at(container, "lifecycle"), itemPath + ".lifecycle", errors);
            for (String probe : List.of("livenessProbe", "readinessProbe", "startupProbe")) {
                validateProbe(Trees.at(container, probe), itemPath + "." + probe, errors);
            }
            // Only readiness may need several successes in a row; the others act on the first.
            for (String probe : List.of("livenessProbe", "startupProbe")) {
                JsonNode successThreshold = Trees.at(container, probe, "successThreshold");
                if (successThreshold.isNumber() && successThreshold.asLong() != 1) {
                    errors.add(FieldError.invalid(itemPath + "." + probe + ".successThreshold", successThreshold.asLong(), "must be 1"));
                }
            }
        }
    }

    private static void validateLifecycle(JsonNode lifecycle, String path, FieldErrors errors) {
        for (String hook : List.of("postStart", "preStop")) {
            JsonNode handler = Trees.at(lifecycle, hook);
            if (handler.isObject()) {
                validateHandler(handler, path + "." + hook, HANDLERS_OF_HOOKS, errors);
            }
        }
    }

    /** Upstream's {@code validateProbe}: one handler and non-negative timings. */
    private static void validateProbe(JsonNode probe, String path, FieldErrors errors) {
        if (!probe.isObject()) {
            return;
        }
        validateHandler(probe, path, HANDLERS_OF_PROBES, errors);
        for (String field : List.of("initialDelaySeconds", "timeoutSeconds", "periodSeconds", "successThreshold", "failureThreshold")) {
            long value = Trees.integer(probe, field);
            if (value < 0) {
                errors.add(FieldError.invalid(path + "." + field, value, ObjectMetaValidation.IS_NEGATIVE));
            }
        }
        if (Trees.has(probe, "terminationGracePeriodSeconds") && Trees.integer(probe, "terminationGracePeriodSeconds") <= 0) {
            errors.add(FieldError.invalid(path + ".terminationGracePeriodSeconds", Trees.integer(probe, "terminationGracePeriodSeconds"), "must be greater than 0"));
        }
    }

    /** Upstream's {@code validateHandler}: exactly one of the handler types, the first one set counting as the one. */
    private static void validateHandler(JsonNode handler, String path, List<String> handlerTypes, FieldErrors errors) {
        int handlers = 0;
        for (String handlerType : handlerTypes) {
            JsonNode action = Trees.at(handler, handlerType);
            if (!action.isObject()) {
                continue;
            }
            String actionPath = path + "." + handlerType;
            if (handlers > 0) {
                errors.add(FieldError.forbidden(actionPath, "may not specify more than 1 handler type"));
                continue;
            }
            handlers++;
            switch (handlerType) {
                case "exec" -> {
                    if (Trees.size(action, "command") == 0) {
                        errors.add(FieldError.required(actionPath + ".command", ""));
                    }
                }
                case "httpGet" -> {
                    if (Trees.text(action, "path").isEmpty()) {
                        errors.add(FieldError.required(actionPath + ".path", ""));
                    }
                    validatePortNumberOrName(Trees.at(action, "port"), actionPath + ".port", errors);
                    String scheme = Trees.text(action, "scheme");
                    if (!HTTP_SCHEMES.contains(scheme)) {
                        errors.add(FieldError.notSupported(actionPath + ".scheme", scheme, HTTP_SCHEMES));
                    }
                    for (JsonNode header : Trees.elements(action, "httpHeaders")) {
                        String headerName = Trees.text(header, "name");
                        NameValidation.isHttpHeaderName(headerName).forEach(message -> errors.add(FieldError.invalid(actionPath + ".httpHeaders", headerName, message)));
                    }
                }
                case "tcpSocket" -> validatePortNumberOrName(Trees.at(action, "port"), actionPath + ".port", errors);
                case "grpc" -> {
                    long port = Trees.integer(action, "port");
                    NameValidation.isValidPortNumber(port).forEach(message -> errors.add(FieldError.invalid(actionPath + ".port", port, message)));
                }
                case "sleep" -> {
                    // Its bound is the pod's termination grace period, which container checks do not see.
                }
                default -> throw new IllegalArgumentException("unknown handler type " + handlerType);
            }
        }
        if (handlers == 0) {
            errors.add(FieldError.required(path, "must specify a handler type"));
        }
    }

    /** An int-or-string port: a number in range or a valid port name. */
    private static void validatePortNumberOrName(JsonNode port, String path, FieldErrors errors) {
        if (port.isTextual()) {
            NameValidation.isValidPortName(port.asText()).forEach(message -> errors.add(FieldError.invalid(path, port.asText(), message)));
        } else {
            long number = port.asLong(0);
            NameValidation.isValidPortNumber(number).forEach(message -> errors.add(FieldError.invalid(path, number, message)));
        }
    }

    private static void validatePorts(List<JsonNode> ports, String path, FieldErrors errors) {
        Set<String> names = new HashSet<>();
        for (int index = 0; index < ports.size(); index++) {
            JsonNode port = ports.get(index);
            String itemPath = path + "[" + index + "]";
            String name = Trees.text(port, "name");
            if (!name.isEmpty()) {
                List<String> messages = NameValidation.isValidPortName(name);
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
                NameValidation.isValidPortNumber(containerPort).forEach(message -> errors.add(FieldError.invalid(itemPath + ".containerPort", containerPort, message)));
            }
            long hostPort = Trees.integer(port, "hostPort");
            if (hostPort != 0) {
                NameValidation.isValidPortNumber(hostPort).forEach(message -> errors.add(FieldError.invalid(itemPath + ".hostPort", hostPort, message)));
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
                relaxedEnvironmentVariableName(name).forEach(message -> errors.add(FieldError.invalid(itemPath + ".name", name, message)));
            }
            JsonNode valueFrom = Trees.at(variable, "valueFrom");
            if (valueFrom.isObject()) {
                validateValueFrom(valueFrom, Trees.text(variable, "value"), itemPath + ".valueFrom", errors);
            }
        }
    }

    /** Upstream's {@code validateEnvVarValueFrom}: exactly one source, and no literal value beside it. */
    private static void validateValueFrom(JsonNode valueFrom, String value, String path, FieldErrors errors) {
        int sources = 0;
        for (String source : List.of("fieldRef", "resourceFieldRef", "configMapKeyRef", "secretKeyRef")) {
            JsonNode selector = Trees.at(valueFrom, source);
            if (!selector.isObject()) {
                continue;
            }
            sources++;
            if (source.equals("configMapKeyRef") || source.equals("secretKeyRef")) {
                validateKeySelector(selector, path + "." + source, errors);
            }
        }
        if (sources == 0) {
            errors.add(FieldError.invalid(path, "", "must specify one of: `fieldRef`, `resourceFieldRef`, `configMapKeyRef` or `secretKeyRef`"));
        } else if (!value.isEmpty()) {
            errors.add(FieldError.invalid(path, "", "may not be specified when `value` is not empty"));
        } else if (sources > 1) {
            errors.add(FieldError.invalid(path, "", "may not have more than one field specified at a time"));
        }
    }

    /** A config map or secret key reference: the object's name is a DNS subdomain (even when empty) and the key a config key. */
    private static void validateKeySelector(JsonNode selector, String path, FieldErrors errors) {
        String name = Trees.text(selector, "name");
        NameValidation.isDns1123Subdomain(name).forEach(message -> errors.add(FieldError.invalid(path + ".name", name, message)));
        String key = Trees.text(selector, "key");
        if (key.isEmpty()) {
            errors.add(FieldError.required(path + ".key", ""));
        } else {
            NameValidation.isConfigMapKey(key).forEach(message -> errors.add(FieldError.invalid(path + ".key", key, message)));
        }
    }

    /**
     * An environment variable name under upstream's RelaxedEnvironmentVariableValidation (on by default since 1.32):
     * any printable ASCII character except '='.
     */
    private static List<String> relaxedEnvironmentVariableName(String name) {
        boolean valid = !name.isEmpty();
        for (int index = 0; index < name.length() && valid; index++) {
            char character = name.charAt(index);
            valid = character >= ' ' && character <= '~' && character != '=';
        }
        return valid ? List.of() : List.of("a valid environment variable name must consist only of printable ASCII characters other than '='");
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
            Optional<Quantity> requested = Trees.quantity(request.getValue());
            Optional<Quantity> limit = Trees.quantity(limits, request.getKey());
            if (requested.isPresent() && limit.isPresent() && requested.get().compareTo(limit.get()) > 0) {
                errors.add(FieldError.invalid(path + ".requests", request.getValue().asText(),
                        "must be less than or equal to " + request.getKey() + " limit of " + limits.get(request.getKey()).asText()));
            }
        }
    }

    /** An optional name field: checked only when set, and its path built only for an error. */
    private static void validateName(JsonNode spec, String field, String path, Function<String, List<String>> check, FieldErrors errors) {
        String value = Trees.text(spec, field);
        if (!value.isEmpty()) {
            check.apply(value).forEach(message -> errors.add(FieldError.invalid(path + "." + field, value, message)));
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
