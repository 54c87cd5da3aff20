package io.k4j.apiserver.registry.core.endpoints;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.k4j.api.resource.ResourceType;
import io.k4j.api.validation.FieldError;
import io.k4j.api.validation.FieldErrors;
import io.k4j.api.validation.NameValidation;
import io.k4j.apiserver.registry.core.Addresses;
import io.k4j.apiserver.registry.core.CoreResources;
import io.k4j.apiserver.registry.core.Printing;
import io.k4j.apiserver.registry.core.Trees;
import io.k4j.apiserver.registry.core.pod.PodSpecValidation;
import io.k4j.apiserver.registry.generic.ResourceStrategy;
import io.k4j.apiserver.registry.generic.TableColumn;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.List;

/**
 * The rules of endpoints, as upstream's {@code endpointsStrategy}: every subset needs addresses with valid IPs,
 * ports need names when there are several; a PUT may create. Thread-safe.
 */
public final class EndpointsStrategy implements ResourceStrategy {
    private static final ResourceType TYPE = CoreResources.type("endpoints");
    private static final int MAX_SHOWN = 3;
    static final List<TableColumn> COLUMNS = List.of(
            TableColumn.nameColumn(),
            TableColumn.string("Endpoints", "The set of all endpoints is the union of all subsets. Addresses are placed into subsets according to the IPs they share. A single address with multiple ports, some of which are ready and some of which are not (because they come from different containers) will result in the address being displayed in different subsets for the different ports. No address will appear in both Addresses and NotReadyAddresses in the same subset. Sets of addresses and ports that comprise a service."),
            TableColumn.ageColumn());

    private final InstantSource clock;

    public EndpointsStrategy(InstantSource clock) {
        this.clock = requireNonNull(clock, "clock is null");
    }

    @Override
    public ResourceType type() {
        return TYPE;
    }

    @Override
    public void applyDefaults(ObjectNode endpoints) {
        for (ObjectNode subset : Trees.objects(endpoints, "subsets")) {
            for (ObjectNode port : Trees.objects(subset, "ports")) {
                Trees.defaultText(port, "protocol", "TCP");
            }
        }
    }

    @Override
    public void prepareForCreate(ObjectNode endpoints) {}

    @Override
    public void prepareForUpdate(ObjectNode newEndpoints, ObjectNode oldEndpoints) {}

    @Override
    public FieldErrors validate(ObjectNode endpoints) {
        FieldErrors errors = new FieldErrors();
        List<JsonNode> subsets = Trees.elements(endpoints, "subsets");
        for (int index = 0; index < subsets.size(); index++) {
            JsonNode subset = subsets.get(index);
            String path = "subsets[" + index + "]";
            if (Trees.size(subset, "addresses") == 0 && Trees.size(subset, "notReadyAddresses") == 0) {
                errors.add(FieldError.required(path, "must specify `addresses` or `notReadyAddresses`"));
            }
            validateAddresses(Trees.elements(subset, "addresses"), path + ".addresses", errors);
            validateAddresses(Trees.elements(subset, "notReadyAddresses"), path + ".notReadyAddresses", errors);
            List<JsonNode> ports = Trees.elements(subset, "ports");
            for (int portIndex = 0; portIndex < ports.size(); portIndex++) {
                JsonNode port = ports.get(portIndex);
                String portPath = path + ".ports[" + portIndex + "]";
                String name = Trees.text(port, "name");
                if (ports.size() > 1 && name.isEmpty()) {
                    errors.add(FieldError.required(portPath + ".name", ""));
                } else if (!name.isEmpty()) {
                    NameValidation.isDns1123Label(name).forEach(message -> errors.add(FieldError.invalid(portPath + ".name", name, message)));
                }
                long number = Trees.integer(port, "port");
                NameValidation.isValidPortNumber(number).forEach(message -> errors.add(FieldError.invalid(portPath + ".port", number, message)));
                PodSpecValidation.validateOneOf(Trees.text(port, "protocol"), PodSpecValidation.PROTOCOLS, portPath + ".protocol", errors);
            }
        }
        return errors;
    }

    private static void validateAddresses(List<JsonNode> addresses, String path, FieldErrors errors) {
        for (int index = 0; index < addresses.size(); index++) {
            String ip = Trees.text(addresses.get(index), "ip");
            String ipPath = path + "[" + index + "].ip";
            if (!Addresses.isIp(ip)) {
                errors.add(FieldError.invalid(ipPath, ip, Addresses.INVALID_IP));
            } else if (ip.startsWith("127.") || ip.equals("::1")) {
                errors.add(FieldError.invalid(ipPath, ip, "may not be in the loopback range (127.0.0.0/8, ::1/128)"));
            } else if (ip.startsWith("169.254.") || ip.toLowerCase().startsWith("fe80:")) {
                errors.add(FieldError.invalid(ipPath, ip, "may not be in the link-local range (169.254.0.0/16, fe80::/10)"));
            }
        }
    }

    @Override
    public FieldErrors validateUpdate(ObjectNode newEndpoints, ObjectNode oldEndpoints) {
        return validate(newEndpoints);
    }

    @Override
    public boolean allowCreateOnUpdate() {
        return true;
    }

    @Override
    public List<TableColumn> tableColumns() {
        return COLUMNS;
    }

    @Override
    public List<Object> tableRow(ObjectNode endpoints) {
        return List.of(
                Trees.text(endpoints, "metadata", "name"),
                format(endpoints),
                Printing.since(Trees.at(endpoints, "metadata", "creationTimestamp"), clock.instant()));
    }

    /** Upstream's {@code formatEndpoints}: up to three {@code ip:port} pairs and how many more there are. */
    static String format(JsonNode endpoints) {
        List<JsonNode> subsets = Trees.elements(endpoints, "subsets");
        if (subsets.isEmpty()) {
            return Printing.NONE;
        }
        List<String> shown = new ArrayList<>();
        boolean more = false;
        int count = 0;
        for (JsonNode subset : subsets) {
            List<JsonNode> addresses = Trees.elements(subset, "addresses");
            List<JsonNode> ports = Trees.elements(subset, "ports");
            if (ports.isEmpty()) {
                count += addresses.size();
                for (JsonNode address : addresses) {
                    if (shown.size() == MAX_SHOWN) {
                        more = true;
                        break;
                    }
                    shown.add(Trees.text(address, "ip"));
                }
                continue;
            }
            for (JsonNode port : ports) {
                count += addresses.size();
                for (JsonNode address : addresses) {
                    if (shown.size() == MAX_SHOWN) {
                        more = true;
                        break;
                    }
                    String ip = Trees.text(address, "ip");
                    String host = ip.contains(":") ? "[" + ip + "]" : ip;
                    shown.add(host + ":" + Trees.integer(port, "port"));
                }
            }
        }
        String joined = String.join(",", shown);
        return more ? joined + " + " + (count - MAX_SHOWN) + " more..." : joined;
    }
}
