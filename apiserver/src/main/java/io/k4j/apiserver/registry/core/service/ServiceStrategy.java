package io.k4j.apiserver.registry.core.service;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.k4j.api.resource.ResourceType;
import io.k4j.api.validation.FieldError;
import io.k4j.api.validation.FieldErrors;
import io.k4j.api.validation.NameValidation;
import io.k4j.api.validation.NameValidator;
import io.k4j.api.validation.ObjectMetaValidation;
import io.k4j.apiserver.registry.core.CoreResources;
import io.k4j.apiserver.registry.core.Printing;
import io.k4j.apiserver.registry.core.Trees;
import io.k4j.apiserver.registry.core.Updates;
import io.k4j.apiserver.registry.core.pod.PodSpecValidation;
import io.k4j.apiserver.registry.generic.ResourceStrategy;
import io.k4j.apiserver.registry.generic.StatusStrategy;
import io.k4j.apiserver.registry.generic.TableColumn;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The rules of services, as upstream's {@code svcStrategy} and {@code SetDefaults_Service}: type, session affinity,
 * traffic policies, port protocols and target ports are defaulted; names are DNS-1035 labels; ports are named when
 * there are several and unique per protocol; the cluster IP never changes once set. Cluster IP and node port
 * allocation happen elsewhere. Thread-safe.
 */
public final class ServiceStrategy implements ResourceStrategy {
    private static final ResourceType TYPE = CoreResources.type("services");
    static final List<String> TYPES = List.of("ClusterIP", "ExternalName", "LoadBalancer", "NodePort");
    static final List<String> SESSION_AFFINITIES = List.of("ClientIP", "None");
    /** Upstream's {@code MaxClientIPServiceAffinitySeconds}: a day. */
    static final long MAX_CLIENT_IP_AFFINITY_SECONDS = 86400;
    static final List<String> IP_FAMILY_POLICIES = List.of("PreferDualStack", "RequireDualStack", "SingleStack");
    static final List<TableColumn> COLUMNS = List.of(
            TableColumn.nameColumn(),
            TableColumn.string("Type", "type determines how the Service is exposed. Defaults to ClusterIP. Valid options are ExternalName, ClusterIP, NodePort, and LoadBalancer."),
            TableColumn.string("Cluster-IP", "clusterIP is the IP address of the service and is usually assigned randomly."),
            TableColumn.string("External-IP", "externalIPs is a list of IP addresses for which nodes in the cluster will also accept traffic for this service."),
            TableColumn.string("Port(s)", "The list of ports that are exposed by this service."),
            TableColumn.ageColumn(),
            TableColumn.wide("Selector", "Route service traffic to pods with label keys and values matching this selector."));

    private final InstantSource clock;

    public ServiceStrategy(InstantSource clock) {
        this.clock = requireNonNull(clock, "clock is null");
    }

    /** The {@code services/status} strategy: the spec is kept, load balancer ingress IPs must be valid. */
    public ResourceStrategy statusStrategy() {
        return new StatusStrategy(this, (newService, oldService) -> {
            FieldErrors errors = new FieldErrors();
            List<JsonNode> ingress = Trees.elements(newService, "status", "loadBalancer", "ingress");
            for (int index = 0; index < ingress.size(); index++) {
                String ip = Trees.text(ingress.get(index), "ip");
                if (!ip.isEmpty()) {
                    errors.addAll(NameValidation.isValidIp("status.loadBalancer.ingress[" + index + "].ip", ip));
                }
            }
            return errors;
        }, false);
    }

    @Override
    public ResourceType type() {
        return TYPE;
    }

    @Override
    public void applyDefaults(ObjectNode service) {
        ObjectNode spec = Trees.object(service, "spec");
        Trees.defaultText(spec, "sessionAffinity", "None");
        if (Trees.text(spec, "sessionAffinity").equals("None")) {
            spec.remove("sessionAffinityConfig");
        }
        if (Trees.text(spec, "sessionAffinity").equals("ClientIP") && !Trees.has(spec, "sessionAffinityConfig", "clientIP", "timeoutSeconds")) {
            Trees.object(spec, "sessionAffinityConfig", "clientIP").put("timeoutSeconds", 10800);
        }
        Trees.defaultText(spec, "type", "ClusterIP");
        for (ObjectNode port : Trees.objects(spec, "ports")) {
            Trees.defaultText(port, "protocol", "TCP");
            JsonNode targetPort = port.get("targetPort");
            if (targetPort == null || targetPort.isNull() || (targetPort.isNumber() && targetPort.asLong() == 0) || (targetPort.isTextual() && targetPort.asText().isEmpty())) {
                port.put("targetPort", Trees.integer(port, "port"));
            }
        }
        String type = Trees.text(spec, "type");
        if (type.equals("NodePort") || type.equals("LoadBalancer")) {
            Trees.defaultText(spec, "externalTrafficPolicy", "Cluster");
        }
        if (type.equals("LoadBalancer")) {
            Trees.defaultBoolean(spec, "allocateLoadBalancerNodePorts", true);
        }
        if (!type.equals("ExternalName")) {
            Trees.defaultText(spec, "internalTrafficPolicy", "Cluster");
            // Single-stack cluster: the family follows a requested cluster IP, IPv4 otherwise.
            Trees.defaultText(spec, "ipFamilyPolicy", "SingleStack");
            if (Trees.size(spec, "ipFamilies") == 0) {
                String clusterIp = Trees.text(spec, "clusterIP");
                Trees.array(spec, "ipFamilies").add(!clusterIp.isEmpty() && NameValidation.isValidIpv6Address("", clusterIp).isEmpty() ? "IPv6" : "IPv4");
            }
            String clusterIp = Trees.text(spec, "clusterIP");
            if (!clusterIp.isEmpty() && Trees.size(spec, "clusterIPs") == 0) {
                Trees.array(spec, "clusterIPs").add(clusterIp);
            }
        }
    }

    @Override
    public void prepareForCreate(ObjectNode service) {
        service.putObject("status").putObject("loadBalancer");
    }

    @Override
    public void prepareForUpdate(ObjectNode newService, ObjectNode oldService) {
        Updates.copyField(oldService, newService, "status");
        ObjectNode spec = Trees.object(newService, "spec");
        JsonNode oldSpec = Trees.at(oldService, "spec");
        patchAllocatedValues(spec, oldSpec);
        dropTypeDependentFields(spec, oldSpec);
    }

    /**
     * As upstream, an update that leaves out what the server allocated (a PUT of a service written without its
     * cluster IP or node ports) keeps the allocated values instead of asking for new ones.
     */
    private static void patchAllocatedValues(ObjectNode spec, JsonNode oldSpec) {
        if (ServiceAllocator.needsClusterIp(oldSpec) && ServiceAllocator.needsClusterIp(spec)) {
            if (Trees.text(spec, "clusterIP").isEmpty() && !Trees.text(oldSpec, "clusterIP").isEmpty()) {
                spec.put("clusterIP", Trees.text(oldSpec, "clusterIP"));
            }
            if (Trees.size(spec, "clusterIPs") == 0 && Trees.size(oldSpec, "clusterIPs") > 0) {
                spec.set("clusterIPs", oldSpec.get("clusterIPs").deepCopy());
            }
        }
        if (ServiceAllocator.needsNodePorts(oldSpec) && ServiceAllocator.needsNodePorts(spec)) {
            Set<Long> usedByBoth = new HashSet<>();
            Set<Long> newNodePorts = new HashSet<>();
            Trees.elements(spec, "ports").forEach(port -> newNodePorts.add(Trees.integer(port, "nodePort")));
            Map<String, Long> oldNodePortByName = new java.util.HashMap<>();
            for (JsonNode port : Trees.elements(oldSpec, "ports")) {
                long nodePort = Trees.integer(port, "nodePort");
                oldNodePortByName.put(Trees.text(port, "name"), nodePort);
                if (newNodePorts.contains(nodePort)) {
                    usedByBoth.add(nodePort);
                }
            }
            for (ObjectNode port : Trees.objects(spec, "ports")) {
                Long oldNodePort = oldNodePortByName.get(Trees.text(port, "name"));
                if (Trees.integer(port, "nodePort") == 0 && oldNodePort != null && oldNodePort != 0 && !usedByBoth.contains(oldNodePort)) {
                    port.put("nodePort", oldNodePort);
                }
            }
        }
    }

    /**
     * As upstream, fields only the old type uses are dropped when the type changes and the update did not touch
     * them: a NodePort service patched to ClusterIP loses its node ports, one patched to ExternalName its cluster IP.
     */
    private static void dropTypeDependentFields(ObjectNode spec, JsonNode oldSpec) {
        if (ServiceAllocator.needsClusterIp(oldSpec) && !ServiceAllocator.needsClusterIp(spec)) {
            if (Trees.sameValue(Trees.at(spec, "clusterIPs"), Trees.at(oldSpec, "clusterIPs")) && Trees.text(spec, "clusterIP").equals(Trees.text(oldSpec, "clusterIP"))) {
                spec.remove("clusterIP");
                spec.remove("clusterIPs");
            }
            if (Trees.sameValue(Trees.at(spec, "ipFamilies"), Trees.at(oldSpec, "ipFamilies"))) {
                spec.remove("ipFamilies");
            }
            if (Trees.text(spec, "ipFamilyPolicy").equals(Trees.text(oldSpec, "ipFamilyPolicy"))) {
                spec.remove("ipFamilyPolicy");
            }
        }
        if (ServiceAllocator.needsNodePorts(oldSpec) && !ServiceAllocator.needsNodePorts(spec)) {
            List<JsonNode> ports = Trees.elements(spec, "ports");
            List<JsonNode> oldPorts = Trees.elements(oldSpec, "ports");
            boolean sameNodePorts = ports.size() == oldPorts.size();
            for (int index = 0; sameNodePorts && index < ports.size(); index++) {
                sameNodePorts = Trees.integer(ports.get(index), "nodePort") == Trees.integer(oldPorts.get(index), "nodePort");
            }
            if (sameNodePorts) {
                Trees.objects(spec, "ports").forEach(port -> port.remove("nodePort"));
            }
            if (Trees.text(spec, "externalTrafficPolicy").equals(Trees.text(oldSpec, "externalTrafficPolicy"))) {
                spec.remove("externalTrafficPolicy");
            }
        }
        if (Trees.text(oldSpec, "type").equals("LoadBalancer") && !Trees.text(spec, "type").equals("LoadBalancer")
                && Trees.sameValue(Trees.at(spec, "allocateLoadBalancerNodePorts"), Trees.at(oldSpec, "allocateLoadBalancerNodePorts"))) {
            spec.remove("allocateLoadBalancerNodePorts");
        }
    }

    /** Service names are RFC 1035 labels (upstream's {@code ValidateServiceName}); the store checks them with it. */
    @Override
    public NameValidator nameValidator() {
        return NameValidator.DNS1035_LABEL;
    }

    @Override
    public FieldErrors validate(ObjectNode service) {
        FieldErrors errors = new FieldErrors();
        JsonNode spec = Trees.at(service, "spec");
        String type = Trees.text(spec, "type");
        PodSpecValidation.validateOneOf(type, TYPES, "spec.type", errors);
        String clusterIp = Trees.text(spec, "clusterIP");
        boolean headless = clusterIp.equals("None");
        List<JsonNode> ports = Trees.elements(spec, "ports");
        if (ports.isEmpty() && !headless && !type.equals("ExternalName")) {
            errors.add(FieldError.required("spec.ports", ""));
        }
        validatePorts(ports, type, errors);
        PodSpecValidation.validateOneOf(Trees.text(spec, "sessionAffinity"), SESSION_AFFINITIES, "spec.sessionAffinity", errors);
        if (Trees.text(spec, "sessionAffinity").equals("ClientIP")) {
            JsonNode timeout = Trees.at(spec, "sessionAffinityConfig", "clientIP", "timeoutSeconds");
            if (timeout.isMissingNode() || timeout.isNull()) {
                errors.add(FieldError.required("spec.sessionAffinityConfig.clientIP.timeoutSeconds", "when session affinity type is ClientIP"));
            } else if (timeout.asLong() <= 0 || timeout.asLong() > MAX_CLIENT_IP_AFFINITY_SECONDS) {
                errors.add(FieldError.invalid("spec.sessionAffinityConfig.clientIP.timeoutSeconds", timeout.asLong(),
                        "must be greater than 0 and less than " + MAX_CLIENT_IP_AFFINITY_SECONDS));
            }
        }
        if (type.equals("ExternalName")) {
            String externalName = Trees.text(spec, "externalName");
            if (externalName.isEmpty()) {
                errors.add(FieldError.required("spec.externalName", ""));
            } else {
                String withoutDot = externalName.endsWith(".") ? externalName.substring(0, externalName.length() - 1) : externalName;
                NameValidation.isDns1123Subdomain(withoutDot).forEach(message -> errors.add(FieldError.invalid("spec.externalName", externalName, message)));
            }
            if (!clusterIp.isEmpty()) {
                errors.add(FieldError.forbidden("spec.clusterIPs", "may not be set for ExternalName services"));
            }
        } else {
            List<JsonNode> clusterIps = Trees.elements(spec, "clusterIPs");
            for (int index = 0; index < clusterIps.size(); index++) {
                String ip = clusterIps.get(index).asText();
                if (!(index == 0 && ip.equals("None"))) {
                    errors.addAll(NameValidation.isValidIp("spec.clusterIPs[" + index + "]", ip));
                }
            }
            if (!clusterIps.isEmpty() && !clusterIp.equals(clusterIps.get(0).asText())) {
                errors.add(FieldError.invalid("spec.clusterIPs[0]", clusterIps.get(0).asText(), "must match `spec.clusterIP`"));
            }
            if (headless && (type.equals("NodePort") || type.equals("LoadBalancer"))) {
                errors.add(FieldError.invalid("spec.clusterIPs[0]", "None", "may not be set to 'None' for " + type + " services"));
            }
            String policy = Trees.text(spec, "ipFamilyPolicy");
            if (!policy.isEmpty() && !IP_FAMILY_POLICIES.contains(policy)) {
                errors.add(FieldError.notSupported("spec.ipFamilyPolicy", policy, IP_FAMILY_POLICIES));
            }
        }
        List<JsonNode> externalIps = Trees.elements(spec, "externalIPs");
        for (int index = 0; index < externalIps.size(); index++) {
            String ip = externalIps.get(index).asText();
            errors.addAll(NameValidation.isValidIp("spec.externalIPs[" + index + "]", ip));
        }
        errors.addAll(ObjectMetaValidation.validateLabels(Trees.at(spec, "selector"), "spec.selector"));
        return errors;
    }

    private static void validatePorts(List<JsonNode> ports, String type, FieldErrors errors) {
        Set<String> names = new HashSet<>();
        Set<String> protocolPorts = new HashSet<>();
        for (int index = 0; index < ports.size(); index++) {
            JsonNode port = ports.get(index);
            String path = "spec.ports[" + index + "]";
            String name = Trees.text(port, "name");
            if (ports.size() > 1 && name.isEmpty()) {
                errors.add(FieldError.required(path + ".name", ""));
            } else if (!name.isEmpty()) {
                NameValidation.isDns1123Label(name).forEach(message -> errors.add(FieldError.invalid(path + ".name", name, message)));
                if (!names.add(name)) {
                    errors.add(FieldError.duplicate(path + ".name", name));
                }
            }
            long number = Trees.integer(port, "port");
            NameValidation.isValidPortNumber(number).forEach(message -> errors.add(FieldError.invalid(path + ".port", number, message)));
            String protocol = Trees.text(port, "protocol");
            PodSpecValidation.validateOneOf(protocol, PodSpecValidation.PROTOCOLS, path + ".protocol", errors);
            JsonNode targetPort = Trees.at(port, "targetPort");
            if (targetPort.isNumber()) {
                NameValidation.isValidPortNumber(targetPort.asLong()).forEach(message -> errors.add(FieldError.invalid(path + ".targetPort", targetPort.asLong(), message)));
            } else if (targetPort.isTextual()) {
                NameValidation.isValidPortName(targetPort.asText()).forEach(message -> errors.add(FieldError.invalid(path + ".targetPort", targetPort.asText(), message)));
            }
            long nodePort = Trees.integer(port, "nodePort");
            if (nodePort != 0) {
                if (type.equals("ClusterIP") || type.equals("ExternalName")) {
                    errors.add(FieldError.forbidden(path + ".nodePort", "may not be used when `type` is '" + type + "'"));
                } else {
                    NameValidation.isValidPortNumber(nodePort).forEach(message -> errors.add(FieldError.invalid(path + ".nodePort", nodePort, message)));
                }
            }
            if (!protocolPorts.add(protocol + "/" + number)) {
                ObjectNode key = Trees.newObject();
                key.put("protocol", protocol);
                key.put("port", number);
                errors.add(FieldError.duplicate(path, key));
            }
        }
    }

    @Override
    public FieldErrors validateUpdate(ObjectNode newService, ObjectNode oldService) {
        FieldErrors errors = validate(newService);
        String oldType = Trees.text(oldService, "spec", "type");
        String newType = Trees.text(newService, "spec", "type");
        String oldIp = Trees.text(oldService, "spec", "clusterIP");
        String newIp = Trees.text(newService, "spec", "clusterIP");
        // Moving to or from ExternalName releases or allocates the IP; otherwise it is fixed once set.
        if (!oldType.equals("ExternalName") && !newType.equals("ExternalName") && !oldIp.isEmpty() && !oldIp.equals(newIp)) {
            List<String> clusterIps = new ArrayList<>();
            Trees.elements(newService, "spec", "clusterIPs").forEach(ip -> clusterIps.add(ip.asText()));
            errors.add(FieldError.invalid("spec.clusterIPs[0]", clusterIps, "may not change once set"));
        }
        return errors;
    }

    @Override
    public Map<String, String> selectableFields(ObjectNode service) {
        return Map.of("spec.clusterIP", Trees.text(service, "spec", "clusterIP"), "spec.type", Trees.text(service, "spec", "type"));
    }

    @Override
    public List<TableColumn> tableColumns() {
        return COLUMNS;
    }

    @Override
    public List<Object> tableRow(ObjectNode service) {
        JsonNode spec = Trees.at(service, "spec");
        List<JsonNode> clusterIps = Trees.elements(spec, "clusterIPs");
        String clusterIp = clusterIps.isEmpty() ? Printing.NONE : clusterIps.get(0).asText();
        List<String> ports = new ArrayList<>();
        for (JsonNode port : Trees.elements(spec, "ports")) {
            long nodePort = Trees.integer(port, "nodePort");
            ports.add(nodePort > 0
                    ? Trees.integer(port, "port") + ":" + nodePort + "/" + Trees.text(port, "protocol")
                    : Trees.integer(port, "port") + "/" + Trees.text(port, "protocol"));
        }
        List<Object> cells = new ArrayList<>();
        cells.add(Trees.text(service, "metadata", "name"));
        cells.add(Trees.text(spec, "type"));
        cells.add(clusterIp);
        cells.add(externalIp(service));
        cells.add(ports.isEmpty() ? Printing.NONE : String.join(",", ports));
        cells.add(Printing.since(Trees.at(service, "metadata", "creationTimestamp"), clock.instant()));
        cells.add(Printing.formatLabels(Trees.at(spec, "selector")));
        return cells;
    }

    private static String externalIp(JsonNode service) {
        List<String> externalIps = new ArrayList<>();
        Trees.elements(service, "spec", "externalIPs").forEach(ip -> externalIps.add(ip.asText()));
        switch (Trees.text(service, "spec", "type")) {
            case "ClusterIP", "NodePort" -> {
                return externalIps.isEmpty() ? Printing.NONE : String.join(",", externalIps);
            }
            case "LoadBalancer" -> {
                List<String> results = new ArrayList<>();
                for (JsonNode ingress : Trees.elements(service, "status", "loadBalancer", "ingress")) {
                    if (!Trees.text(ingress, "ip").isEmpty()) {
                        results.add(Trees.text(ingress, "ip"));
                    } else if (!Trees.text(ingress, "hostname").isEmpty()) {
                        results.add(Trees.text(ingress, "hostname"));
                    }
                }
                results.addAll(externalIps);
                return results.isEmpty() ? "<pending>" : String.join(",", results);
            }
            case "ExternalName" -> {
                return Trees.text(service, "spec", "externalName");
            }
            default -> {
                return Printing.UNKNOWN;
            }
        }
    }
}
