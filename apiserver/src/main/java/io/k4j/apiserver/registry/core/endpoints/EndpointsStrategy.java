package io.k4j.apiserver.registry.core.endpoints;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.k4j.api.resource.ResourceType;
import io.k4j.api.validation.FieldError;
import io.k4j.api.validation.FieldErrors;
import io.k4j.api.validation.NameValidation;
import io.k4j.apiserver.registry.core.CoreResources;
import io.k4j.apiserver.registry.core.Printing;
import io.k4j.apiserver.registry.core.Trees;
import io.k4j.apiserver.registry.core.pod.PodSpecValidation;
import io.k4j.apiserver.registry.generic.ResourceStrategy;
import io.k4j.apiserver.registry.generic.TableColumn;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

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

    /** Upstream's {@code validateEndpointAddress}: a valid IP that is not special, a DNS label hostname, a DNS subdomain node name. */
    private static void validateAddresses(List<JsonNode> addresses, String path, FieldErrors errors) {
        for (int index = 0; index < addresses.size(); index++) {
            JsonNode address = addresses.get(index);
            String itemPath = path + "[" + index + "]";
            String ip = Trees.text(address, "ip");
            errors.addAll(NameValidation.isValidIp(itemPath + ".ip", ip));
            String hostname = Trees.text(address, "hostname");
            if (!hostname.isEmpty()) {
                NameValidation.isDns1123Label(hostname).forEach(message -> errors.add(FieldError.invalid(itemPath + ".hostname", hostname, message)));
            }
            if (Trees.has(address, "nodeName")) {
                String nodeName = Trees.text(address, "nodeName");
                NameValidation.isDns1123Subdomain(nodeName).forEach(message -> errors.add(FieldError.invalid(itemPath + ".nodeName", nodeName, message)));
            }
            validateNonSpecialIp(ip, itemPath + ".ip", errors);
        }
    }

    /** Upstream's {@code ValidateNonSpecialIP}: endpoints may not point at unspecified, loopback or link-local addresses. */
    private static void validateNonSpecialIp(String ip, String path, FieldErrors errors) {
        if (!NameValidation.isValidIp(path, ip).isEmpty()) {
            errors.add(FieldError.invalid(path, ip, "must be a valid IP address"));
            return;
        }
        int[] ipv4 = ipv4Octets(ip);
        String lower = ip.toLowerCase(Locale.ROOT);
        boolean ipv6 = ipv4 == null;
        int firstHextet = ipv6 ? firstHextet(lower) : -1;
        if (ipv6 ? lower.equals("::") || lower.equals("0:0:0:0:0:0:0:0") : ipv4[0] == 0 && ipv4[1] == 0 && ipv4[2] == 0 && ipv4[3] == 0) {
            errors.add(FieldError.invalid(path, ip, "may not be unspecified (" + ip + ")"));
        }
        if (ipv6 ? lower.equals("::1") || lower.equals("0:0:0:0:0:0:0:1") : ipv4[0] == 127) {
            errors.add(FieldError.invalid(path, ip, "may not be in the loopback range (127.0.0.0/8, ::1/128)"));
        }
        if (ipv6 ? (firstHextet & 0xffc0) == 0xfe80 : ipv4[0] == 169 && ipv4[1] == 254) {
            errors.add(FieldError.invalid(path, ip, "may not be in the link-local range (169.254.0.0/16, fe80::/10)"));
        }
        if (ipv6 ? firstHextet == 0xff02 : ipv4[0] == 224 && ipv4[1] == 0 && ipv4[2] == 0) {
            errors.add(FieldError.invalid(path, ip, "may not be in the link-local multicast range (224.0.0.0/24, ff02::/10)"));
        }
    }

    /** The octets of a valid dotted IPv4 address, or null for IPv6. Leading zeros are decimal, as Go's sloppy parser reads them. */
    private static int[] ipv4Octets(String ip) {
        if (ip.contains(":")) {
            return null;
        }
        String[] parts = ip.split("\\.");
        int[] octets = new int[4];
        for (int index = 0; index < 4; index++) {
            octets[index] = Integer.parseInt(parts[index]);
        }
        return octets;
    }

    private static int firstHextet(String ipv6) {
        int colon = ipv6.indexOf(':');
        return colon <= 0 ? 0 : Integer.parseInt(ipv6.substring(0, colon), 16);
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
