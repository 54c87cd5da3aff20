package io.k4j.apiserver.registry.discovery.endpointslice;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.k4j.api.resource.ResourceType;
import io.k4j.api.validation.FieldError;
import io.k4j.api.validation.FieldErrors;
import io.k4j.api.validation.ObjectMetaValidation;
import io.k4j.apiserver.registry.generic.ResourceStrategy;
import io.k4j.apiserver.registry.generic.TableColumn;
import io.k4j.apiserver.registry.groups.Ages;
import io.k4j.apiserver.registry.groups.Generations;
import io.k4j.apiserver.registry.groups.Json;
import io.k4j.apiserver.registry.groups.Validators;
import java.net.Inet4Address;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * The rules of discovery.k8s.io/v1 EndpointSlices, as upstream's {@code pkg/registry/discovery/endpointslice/strategy.go},
 * the discovery/v1 defaults and {@code ValidateEndpointSlice}: addresses of the slice's address type, unique
 * port names, an immutable address type. Any change outside metadata is a new generation. Stateless and
 * thread-safe.
 */
public final class EndpointSliceStrategy implements ResourceStrategy {
    private static final int MAX_ENDPOINTS = 1000;
    private static final int MAX_ADDRESSES = 100;
    private static final int MAX_PORTS = 20000;
    private static final int MAX_TOPOLOGY_LABELS = 16;
    private static final List<String> ADDRESS_TYPES = List.of("FQDN", "IPv4", "IPv6");
    private static final List<String> PROTOCOLS = List.of("SCTP", "TCP", "UDP");
    private static final Pattern IPV4 = Pattern.compile("(25[0-5]|2[0-4][0-9]|1[0-9][0-9]|[1-9]?[0-9])(\\.(25[0-5]|2[0-4][0-9]|1[0-9][0-9]|[1-9]?[0-9])){3}");
    private static final Pattern IPV6_CHARACTERS = Pattern.compile("[0-9A-Fa-f:.]+");
    private static final List<TableColumn> COLUMNS = List.of(
            TableColumn.nameColumn(),
            TableColumn.string("AddressType", "addressType specifies the type of address carried by this EndpointSlice. All addresses in this slice must be the same type. This field is immutable after creation."),
            TableColumn.string("Ports", "ports specifies the list of network ports exposed by each endpoint in this slice."),
            TableColumn.string("Endpoints", "endpoints is a list of unique endpoints in this slice."),
            TableColumn.ageColumn());

    private final ResourceType type;
    private final Ages ages;

    public EndpointSliceStrategy(ResourceType type, Ages ages) {
        this.type = requireNonNull(type, "type is null");
        this.ages = requireNonNull(ages, "ages is null");
    }

    @Override
    public ResourceType type() {
        return type;
    }

    @Override
    public void applyDefaults(ObjectNode object) {
        for (JsonNode port : Json.elements(object, "ports")) {
            if (port instanceof ObjectNode portObject) {
                if (!Json.present(portObject, "name")) {
                    portObject.put("name", "");
                }
                Json.putIfAbsent(portObject, "protocol", "TCP");
            }
        }
    }

    @Override
    public void prepareForCreate(ObjectNode object) {
        Json.object(object, "metadata").put("generation", 1);
    }

    @Override
    public void prepareForUpdate(ObjectNode newObject, ObjectNode oldObject) {
        ObjectNode newWithoutMetadata = newObject.deepCopy();
        ObjectNode oldWithoutMetadata = oldObject.deepCopy();
        newWithoutMetadata.remove("metadata");
        oldWithoutMetadata.remove("metadata");
        Generations.bumpGenerationIf(newObject, oldObject, !Json.semanticEquals(newWithoutMetadata, oldWithoutMetadata));
    }

    @Override
    public FieldErrors validate(ObjectNode object) {
        String addressType = Json.string(object, "addressType");
        FieldErrors errors = new FieldErrors();
        if (addressType.isEmpty()) {
            return errors.add(FieldError.required("addressType", ""));
        } else if (!ADDRESS_TYPES.contains(addressType)) {
            return errors.add(FieldError.notSupported("addressType", addressType, ADDRESS_TYPES));
        }
        return validateContent(object);
    }

    @Override
    public FieldErrors validateUpdate(ObjectNode newObject, ObjectNode oldObject) {
        FieldErrors errors = validateContent(newObject);
        Validators.immutable(errors, newObject.get("addressType"), oldObject.get("addressType"), "addressType");
        return errors;
    }

    private static FieldErrors validateContent(ObjectNode object) {
        FieldErrors errors = new FieldErrors();
        validateEndpoints(errors, Json.elements(object, "endpoints"), Json.string(object, "addressType"));
        validatePorts(errors, Json.elements(object, "ports"));
        return errors;
    }

    private static void validateEndpoints(FieldErrors errors, List<JsonNode> endpoints, String addressType) {
        if (endpoints.size() > MAX_ENDPOINTS) {
            errors.add(FieldError.tooMany("endpoints", endpoints.size(), MAX_ENDPOINTS));
            return;
        }
        for (int i = 0; i < endpoints.size(); i++) {
            JsonNode endpoint = endpoints.get(i);
            String path = "endpoints[" + i + "]";
            List<JsonNode> addresses = Json.elements(endpoint, "addresses");
            if (addresses.isEmpty()) {
                errors.add(FieldError.required(path + ".addresses", "must contain at least 1 address"));
            } else if (addresses.size() > MAX_ADDRESSES) {
                errors.add(FieldError.tooMany(path + ".addresses", addresses.size(), MAX_ADDRESSES));
            }
            for (int addressIndex = 0; addressIndex < addresses.size(); addressIndex++) {
                validateAddress(errors, addresses.get(addressIndex).asText(), addressType, path + ".addresses[" + addressIndex + "]");
            }
            String nodeName = Json.text(endpoint, "nodeName");
            if (nodeName != null) {
                for (String message : Validators.dns1123Subdomain(nodeName)) {
                    errors.add(FieldError.invalid(path + ".nodeName", nodeName, message));
                }
            }
            int topologyCount = Json.size(endpoint, "deprecatedTopology");
            if (topologyCount > MAX_TOPOLOGY_LABELS) {
                errors.add(FieldError.tooMany(path + ".deprecatedTopology", topologyCount, MAX_TOPOLOGY_LABELS));
            }
            errors.addAll(ObjectMetaValidation.validateLabels(Json.at(endpoint, "deprecatedTopology"), path + ".deprecatedTopology"));
            String hostname = Json.text(endpoint, "hostname");
            if (hostname != null) {
                for (String message : Validators.dns1123Label(hostname)) {
                    errors.add(FieldError.invalid(path + ".hostname", hostname, message));
                }
            }
        }
    }

    private static void validateAddress(FieldErrors errors, String address, String addressType, String path) {
        switch (addressType) {
            case "IPv4" -> {
                if (!IPV4.matcher(address).matches()) {
                    errors.add(FieldError.invalid(path, address, "must be a valid IPv4 address"));
                } else {
                    validateNonSpecial(errors, address, path);
                }
            }
            case "IPv6" -> {
                InetAddress parsed = parse(address);
                if (!(parsed instanceof Inet6Address)) {
                    errors.add(FieldError.invalid(path, address, "must be a valid IPv6 address"));
                } else {
                    validateNonSpecial(errors, address, path);
                }
            }
            default -> {
                // FQDN: a DNS subdomain with at least two labels.
                List<String> messages = new ArrayList<>(Validators.dns1123Subdomain(address));
                if (messages.isEmpty() && !address.contains(".")) {
                    messages.add("should be a domain with at least two segments separated by dots");
                }
                for (String message : messages) {
                    errors.add(FieldError.invalid(path, address, message));
                }
            }
        }
    }

    private static InetAddress parse(String address) {
        if (!address.contains(":") || !IPV6_CHARACTERS.matcher(address).matches()) {
            return null;
        }
        try {
            return InetAddress.getByName(address);
        } catch (UnknownHostException e) {
            return null;
        }
    }

    // Upstream's ValidateNonSpecialIP: endpoints must be reachable pod or node addresses.
    private static void validateNonSpecial(FieldErrors errors, String text, String path) {
        InetAddress address;
        try {
            address = InetAddress.getByName(text);
        } catch (UnknownHostException e) {
            return;
        }
        if (address.isAnyLocalAddress()) {
            errors.add(FieldError.invalid(path, text, "may not be unspecified (0.0.0.0)"));
        } else if (address.isLoopbackAddress()) {
            errors.add(FieldError.invalid(path, text, "may not be in the loopback range (127.0.0.0/8, ::1/128)"));
        } else if (address.isLinkLocalAddress()) {
            errors.add(FieldError.invalid(path, text, "may not be in the link-local range (169.254.0.0/16, fe80::/10)"));
        } else if (address.isMCLinkLocal() || (address instanceof Inet4Address && text.startsWith("224.0.0."))) {
            errors.add(FieldError.invalid(path, text, "may not be in the link-local multicast range (224.0.0.0/24, ff02::/10)"));
        }
    }

    private static void validatePorts(FieldErrors errors, List<JsonNode> ports) {
        if (ports.size() > MAX_PORTS) {
            errors.add(FieldError.tooMany("ports", ports.size(), MAX_PORTS));
            return;
        }
        Set<String> names = new HashSet<>();
        for (int i = 0; i < ports.size(); i++) {
            JsonNode port = ports.get(i);
            String path = "ports[" + i + "]";
            String name = Json.string(port, "name");
            if (!name.isEmpty()) {
                for (String message : Validators.dns1123Label(name)) {
                    errors.add(FieldError.invalid(path + ".name", name, message));
                }
            }
            if (!names.add(name)) {
                errors.add(FieldError.duplicate(path + ".name", name));
            }
            String protocol = Json.text(port, "protocol");
            if (protocol == null) {
                errors.add(FieldError.required(path + ".protocol", ""));
            } else if (!PROTOCOLS.contains(protocol)) {
                errors.add(FieldError.notSupported(path + ".protocol", protocol, PROTOCOLS));
            }
            String appProtocol = Json.text(port, "appProtocol");
            if (appProtocol != null) {
                for (String message : Validators.qualifiedName(appProtocol)) {
                    errors.add(FieldError.invalid(path + ".appProtocol", appProtocol, message));
                }
            }
        }
    }

    @Override
    public List<TableColumn> tableColumns() {
        return COLUMNS;
    }

    @Override
    public List<Object> tableRow(ObjectNode object) {
        List<String> ports = new ArrayList<>();
        List<JsonNode> portNodes = Json.elements(object, "ports");
        for (JsonNode port : portNodes) {
            if (ports.size() < 3) {
                ports.add(Json.present(port, "port") ? String.valueOf(Json.longValue(port, "port"))
                        : Json.present(port, "name") ? Json.string(port, "name") : "*");
            }
        }
        List<String> addresses = new ArrayList<>();
        int addressCount = 0;
        for (JsonNode endpoint : Json.elements(object, "endpoints")) {
            for (JsonNode address : Json.elements(endpoint, "addresses")) {
                if (addresses.size() < 3) {
                    addresses.add(address.asText());
                }
                addressCount++;
            }
        }
        return List.of(Json.string(object, "metadata", "name"), Json.string(object, "addressType"), listWithMore(ports, portNodes.size()),
                listWithMore(addresses, addressCount), ages.since(Json.text(object, "metadata", "creationTimestamp")));
    }

    // Upstream's listWithMoreString: at most three items, then "+ N more...".
    private static String listWithMore(List<String> shown, int count) {
        String joined = String.join(",", shown);
        if (count > 3) {
            return joined + " + " + (count - 3) + " more...";
        }
        return joined.isEmpty() ? "<unset>" : joined;
    }
}
