package io.k4j.apiserver.registry.core.node;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.k4j.api.codec.GoStrings;
import io.k4j.api.resource.ResourceType;
import io.k4j.api.validation.FieldError;
import io.k4j.api.validation.FieldErrors;
import io.k4j.api.validation.NameValidation;
import io.k4j.apiserver.registry.core.CoreResources;
import io.k4j.apiserver.registry.core.GoValues;
import io.k4j.apiserver.registry.core.Printing;
import io.k4j.apiserver.registry.core.Trees;
import io.k4j.apiserver.registry.core.Updates;
import io.k4j.apiserver.registry.generic.ResourceStrategy;
import io.k4j.apiserver.registry.generic.StatusStrategy;
import io.k4j.apiserver.registry.generic.TableColumn;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * The rules of nodes, as upstream's {@code nodeStrategy}: a node may be created with its status (the kubelet registers
 * that way), later spec updates keep the status; {@code podCIDRs} and {@code providerID} can only be set once; taints
 * are validated. Thread-safe.
 */
public final class NodeStrategy implements ResourceStrategy {
    private static final ResourceType TYPE = CoreResources.type("nodes");
    private static final String ROLE_LABEL_PREFIX = "node-role.kubernetes.io/";
    private static final String ROLE_LABEL = "kubernetes.io/role";
    private static final List<String> TAINT_EFFECTS = List.of("NoSchedule", "PreferNoSchedule", "NoExecute");
    static final List<TableColumn> COLUMNS = List.of(
            TableColumn.nameColumn(),
            TableColumn.string("Status", "The status of the node"),
            TableColumn.string("Roles", "The roles of the node"),
            TableColumn.ageColumn(),
            TableColumn.string("Version", "Kubelet Version reported by the node."),
            TableColumn.wide("Internal-IP", "List of addresses reachable to the node. Queried from cloud provider, if available."),
            TableColumn.wide("External-IP", "List of addresses reachable to the node. Queried from cloud provider, if available."),
            TableColumn.wide("OS-Image", "OS Image reported by the node from /etc/os-release (e.g. Debian GNU/Linux 7 (wheezy))."),
            TableColumn.wide("Kernel-Version", "Kernel Version reported by the node from 'uname -r' (e.g. 3.16.0-0.bpo.4-amd64)."),
            TableColumn.wide("Container-Runtime", "ContainerRuntime Version reported by the node through runtime remote API (e.g. containerd://1.4.2)."));

    private final InstantSource clock;

    public NodeStrategy(InstantSource clock) {
        this.clock = requireNonNull(clock, "clock is null");
    }

    /** The {@code nodes/status} strategy: the spec is kept, the update is validated as a whole, as upstream does. */
    public ResourceStrategy statusStrategy() {
        return new StatusStrategy(this, this::validateUpdate, false);
    }

    @Override
    public ResourceType type() {
        return TYPE;
    }

    @Override
    public void applyDefaults(ObjectNode node) {
        JsonNode capacity = Trees.at(node, "status", "capacity");
        if (capacity.isObject() && !Trees.has(node, "status", "allocatable")) {
            Trees.object(node, "status").set("allocatable", capacity.deepCopy());
        }
    }

    @Override
    public void prepareForCreate(ObjectNode node) {
        // Nodes may be created with their status: the kubelet registers that way.
    }

    @Override
    public void prepareForUpdate(ObjectNode newNode, ObjectNode oldNode) {
        Updates.copyField(oldNode, newNode, "status");
    }

    @Override
    public FieldErrors validate(ObjectNode node) {
        FieldErrors errors = new FieldErrors();
        // Upstream validates taints under "metadata" (metadata.taints[0].key), a long-standing quirk clients see.
        validateTaints(Trees.elements(node, "spec", "taints"), errors);
        List<String> cidrs = podCidrs(node);
        for (int index = 0; index < cidrs.size(); index++) {
            errors.addAll(NameValidation.isValidCidr("spec.podCIDRs[" + index + "]", cidrs.get(index)));
        }
        if (cidrs.size() > 2 || (cidrs.size() == 2 && !isDualStack(cidrs))) {
            errors.add(FieldError.invalid("spec.podCIDRs", cidrs, "may specify no more than one CIDR for each IP family"));
        }
        return errors;
    }

    /** The pod CIDRs; v1's singular podCIDR stands for the list when only it is set, as the v1 conversion does. */
    private static List<String> podCidrs(JsonNode node) {
        List<String> cidrs = new ArrayList<>();
        Trees.elements(node, "spec", "podCIDRs").forEach(cidr -> cidrs.add(cidr.asText()));
        String single = Trees.text(node, "spec", "podCIDR");
        if (cidrs.isEmpty() && !single.isEmpty()) {
            cidrs.add(single);
        }
        return cidrs;
    }

    /** Two valid CIDRs of different IP families; invalid ones are reported on their own. */
    private static boolean isDualStack(List<String> cidrs) {
        if (cidrs.stream().anyMatch(cidr -> !NameValidation.isValidCidr("", cidr).isEmpty())) {
            return true;
        }
        return cidrs.get(0).contains(":") != cidrs.get(1).contains(":");
    }

    private static void validateTaints(List<JsonNode> taints, FieldErrors errors) {
        Set<String> keysAndEffects = new HashSet<>();
        for (int index = 0; index < taints.size(); index++) {
            JsonNode taint = taints.get(index);
            String path = "metadata.taints[" + index + "]";
            String key = Trees.text(taint, "key");
            NameValidation.isQualifiedName(key).forEach(message -> errors.add(FieldError.invalid(path + ".key", key, message)));
            String value = Trees.text(taint, "value");
            List<String> valueProblems = NameValidation.isValidLabelValue(value);
            if (!valueProblems.isEmpty()) {
                errors.add(FieldError.invalid(path + ".value", value, String.join(";", valueProblems)));
            }
            String effect = Trees.text(taint, "effect");
            if (effect.isEmpty()) {
                errors.add(FieldError.required(path + ".effect", ""));
            } else if (!TAINT_EFFECTS.contains(effect)) {
                errors.add(FieldError.notSupported(path + ".effect", effect, TAINT_EFFECTS));
            }
            if (!keysAndEffects.add(key + ":" + effect)) {
                errors.add(new FieldError(FieldError.Type.DUPLICATE, path, new GoValues.Rendered("core.Taint{Key:" + GoStrings.quote(key) + ", Value:" + GoStrings.quote(value)
                        + ", Effect:" + GoStrings.quote(effect) + ", TimeAdded:(*v1.Time)(nil)}"), "taints must be unique by key and effect pair"));
            }
        }
    }

    /** Upstream's {@code ValidateNodeUpdate}, which the status subresource uses too. */
    @Override
    public FieldErrors validateUpdate(ObjectNode newNode, ObjectNode oldNode) {
        FieldErrors errors = validate(newNode);
        Set<String> addresses = new HashSet<>();
        List<JsonNode> statusAddresses = Trees.elements(newNode, "status", "addresses");
        for (int index = 0; index < statusAddresses.size(); index++) {
            String type = Trees.text(statusAddresses.get(index), "type");
            String address = Trees.text(statusAddresses.get(index), "address");
            if (!addresses.add(type + "/" + address)) {
                errors.add(FieldError.duplicate("status.addresses[" + index + "]",
                        new GoValues.Rendered("core.NodeAddress{Type:" + GoStrings.quote(type) + ", Address:" + GoStrings.quote(address) + "}")));
            }
        }
        // The controller manager may assign CIDRs to a node without them; after that they are fixed.
        List<String> oldCidrs = podCidrs(oldNode);
        List<String> newCidrs = podCidrs(newNode);
        if (!oldCidrs.isEmpty()) {
            if (oldCidrs.size() != newCidrs.size()) {
                errors.add(FieldError.forbidden("spec.podCIDRs", "node updates may not change podCIDR except from \"\" to valid"));
            } else {
                for (int index = 0; index < oldCidrs.size(); index++) {
                    if (!oldCidrs.get(index).equals(newCidrs.get(index))) {
                        errors.add(FieldError.forbidden("spec.podCIDRs", "node updates may not change podCIDR except from \"\" to valid"));
                    }
                }
            }
        }
        String oldProvider = Trees.text(oldNode, "spec", "providerID");
        if (!oldProvider.isEmpty() && !oldProvider.equals(Trees.text(newNode, "spec", "providerID"))) {
            errors.add(FieldError.forbidden("spec.providerID", "node updates may not change providerID except from \"\" to valid"));
        }
        return errors;
    }

    @Override
    public Map<String, String> selectableFields(ObjectNode node) {
        return Map.of("spec.unschedulable", Boolean.toString(Trees.bool(node, "spec", "unschedulable")));
    }

    @Override
    public List<TableColumn> tableColumns() {
        return COLUMNS;
    }

    @Override
    public List<Object> tableRow(ObjectNode node) {
        List<String> status = new ArrayList<>();
        for (JsonNode condition : Trees.elements(node, "status", "conditions")) {
            if (Trees.text(condition, "type").equals("Ready")) {
                status.clear();
                status.add(Trees.text(condition, "status").equals("True") ? "Ready" : "NotReady");
            }
        }
        if (status.isEmpty()) {
            status.add("Unknown");
        }
        if (Trees.bool(node, "spec", "unschedulable")) {
            status.add("SchedulingDisabled");
        }
        Set<String> roles = new TreeSet<>();
        for (Map.Entry<String, JsonNode> label : Trees.at(node, "metadata", "labels").properties()) {
            if (label.getKey().startsWith(ROLE_LABEL_PREFIX) && label.getKey().length() > ROLE_LABEL_PREFIX.length()) {
                roles.add(label.getKey().substring(ROLE_LABEL_PREFIX.length()));
            } else if (label.getKey().equals(ROLE_LABEL) && !label.getValue().asText().isEmpty()) {
                roles.add(label.getValue().asText());
            }
        }
        JsonNode info = Trees.at(node, "status", "nodeInfo");
        List<Object> cells = new ArrayList<>();
        cells.add(Trees.text(node, "metadata", "name"));
        cells.add(String.join(",", status));
        cells.add(roles.isEmpty() ? Printing.NONE : String.join(",", roles));
        cells.add(Printing.since(Trees.at(node, "metadata", "creationTimestamp"), clock.instant()));
        cells.add(Trees.text(info, "kubeletVersion"));
        cells.add(address(node, "InternalIP"));
        cells.add(address(node, "ExternalIP"));
        cells.add(orUnknown(Trees.text(info, "osImage")));
        cells.add(orUnknown(Trees.text(info, "kernelVersion")));
        cells.add(orUnknown(Trees.text(info, "containerRuntimeVersion")));
        return cells;
    }

    private static String address(JsonNode node, String type) {
        for (JsonNode address : Trees.elements(node, "status", "addresses")) {
            if (Trees.text(address, "type").equals(type)) {
                return Trees.text(address, "address");
            }
        }
        return Printing.NONE;
    }

    private static String orUnknown(String value) {
        return value.isEmpty() ? Printing.UNKNOWN : value;
    }
}
