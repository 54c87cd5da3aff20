package io.k4j.kubelet.env;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.ResourceFieldSelector;
import io.fabric8.kubernetes.api.model.ResourceRequirements;
import java.math.BigDecimal;
import java.math.RoundingMode;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The downward API's values as upstream's kubelet computes them, shared by environment variables and downwardAPI
 * volume files: pod fields ({@code metadata.*}, {@code spec.nodeName}, {@code status.podIP} …) and container
 * resources ({@code limits.cpu} with a divisor, limits defaulting to the node's allocatable). Stateless and
 * thread-safe.
 */
public final class DownwardApi {
    private static final List<String> DEFAULTED_LIMITS = List.of("cpu", "memory", "ephemeral-storage");

    private DownwardApi() {}

    /**
     * The value of a pod field.
     *
     * @throws IllegalArgumentException with upstream's message for a field path the downward API does not support
     */
    public static String fieldValue(Pod pod, String fieldPath, PodAddresses addresses) {
        switch (fieldPath) {
            case "spec.nodeName":
                return nullToEmpty(pod.getSpec().getNodeName());
            case "spec.serviceAccountName":
                return nullToEmpty(pod.getSpec().getServiceAccountName());
            case "status.hostIP":
                return addresses.hostIp();
            case "status.hostIPs":
                return String.join(",", addresses.hostIps());
            case "status.podIP":
                return addresses.podIp();
            case "status.podIPs":
                return String.join(",", addresses.podIps());
            default:
                return metadataValue(pod, fieldPath);
        }
    }

    /**
     * The value of a {@code metadata.*} field, the only ones downwardAPI volumes may use: name, namespace, uid,
     * labels, annotations (whole maps as sorted {@code key="value"} lines, or one key with {@code ['key']}).
     */
    public static String metadataValue(Pod pod, String fieldPath) {
        if (fieldPath.endsWith("']")) {
            int opener = fieldPath.indexOf("['");
            if (opener > 0) {
                String path = fieldPath.substring(0, opener);
                String key = fieldPath.substring(opener + 2, fieldPath.length() - 2);
                return switch (path) {
                    case "metadata.annotations" -> nullToEmpty(mapOrEmpty(pod.getMetadata().getAnnotations()).get(key));
                    case "metadata.labels" -> nullToEmpty(mapOrEmpty(pod.getMetadata().getLabels()).get(key));
                    default -> throw new IllegalArgumentException("fieldPath \"" + fieldPath + "\" does not support subscript");
                };
            }
        }
        return switch (fieldPath) {
            case "metadata.annotations" -> formatMap(pod.getMetadata().getAnnotations());
            case "metadata.labels" -> formatMap(pod.getMetadata().getLabels());
            case "metadata.name" -> nullToEmpty(pod.getMetadata().getName());
            case "metadata.namespace" -> nullToEmpty(pod.getMetadata().getNamespace());
            case "metadata.uid" -> nullToEmpty(pod.getMetadata().getUid());
            default -> throw new IllegalArgumentException("unsupported fieldPath: " + fieldPath);
        };
    }

    /**
     * The value of a container resource: the quantity divided by the divisor (default 1), rounded up, as upstream.
     *
     * @param container the container the selector names, its limits not yet defaulted
     * @param allocatable the node's allocatable, the limit of a container that sets none
     * @throws IllegalArgumentException for a resource the downward API does not support
     */
    public static String resourceValue(ResourceFieldSelector selector, Container container, Map<String, Quantity> allocatable) {
        String resource = selector.getResource();
        BigDecimal divisor = selector.getDivisor() == null ? BigDecimal.ZERO : amount(selector.getDivisor());
        if (divisor.signum() == 0) {
            divisor = BigDecimal.ONE;
        }
        int dot = resource.indexOf('.');
        String kind = dot < 0 ? "" : resource.substring(0, dot);
        String name = dot < 0 ? resource : resource.substring(dot + 1);
        boolean supported = name.equals("cpu") || name.equals("memory") || name.equals("ephemeral-storage")
                || name.startsWith("hugepages-");
        if (!(kind.equals("limits") || kind.equals("requests")) || !supported) {
            throw new IllegalArgumentException("unsupported container resource : " + resource);
        }
        ResourceRequirements resources = container.getResources();
        Map<String, Quantity> values = resources == null ? null
                : kind.equals("limits") ? resources.getLimits() : resources.getRequests();
        Quantity quantity = values == null ? null : values.get(name);
        if (kind.equals("limits") && DEFAULTED_LIMITS.contains(name) && (quantity == null || amount(quantity).signum() == 0)) {
            quantity = allocatable.get(name);
        }
        BigDecimal value = quantity == null ? BigDecimal.ZERO : amount(quantity);
        if (name.equals("cpu")) {
            // Upstream compares milli-values: the quantity's and the divisor's, each rounded up to a whole milli.
            BigDecimal milli = value.movePointRight(3).setScale(0, RoundingMode.CEILING);
            BigDecimal divisorMilli = divisor.movePointRight(3).setScale(0, RoundingMode.CEILING);
            return milli.divide(divisorMilli, 0, RoundingMode.CEILING).toPlainString();
        }
        BigDecimal whole = value.setScale(0, RoundingMode.CEILING);
        BigDecimal divisorWhole = divisor.setScale(0, RoundingMode.CEILING);
        return whole.divide(divisorWhole, 0, RoundingMode.CEILING).toPlainString();
    }

    /** A resource quantity's numeric amount (e.g. {@code 500m} ▶ 0.5, {@code 1Gi} ▶ 1073741824). */
    static BigDecimal amount(Quantity quantity) {
        return io.k4j.api.quantity.Quantity.parse(quantity.toString()).toBigDecimal();
    }

    /** Upstream's rendering of a whole label or annotation map: sorted {@code key="value"} lines, Go-quoted. */
    static String formatMap(Map<String, String> map) {
        List<String> lines = new ArrayList<>();
        for (Map.Entry<String, String> entry : new TreeMap<>(mapOrEmpty(map)).entrySet()) {
            lines.add(entry.getKey() + "=" + goQuote(entry.getValue()));
        }
        return String.join("\n", lines);
    }

    /** Go's {@code %q} of a string: double quotes, backslash escapes for quotes, backslashes and control characters. */
    static String goQuote(String value) {
        StringBuilder quoted = new StringBuilder(value.length() + 2).append('"');
        value.codePoints().forEach(codePoint -> {
            switch (codePoint) {
                case '"' -> quoted.append("\\\"");
                case '\\' -> quoted.append("\\\\");
                case 0x07 -> quoted.append("\\a");
                case '\b' -> quoted.append("\\b");
                case '\f' -> quoted.append("\\f");
                case '\n' -> quoted.append("\\n");
                case '\r' -> quoted.append("\\r");
                case '\t' -> quoted.append("\\t");
                case 0x0B -> quoted.append("\\v");
                default -> {
                    if (codePoint < 0x20 || codePoint == 0x7F) {
                        quoted.append(String.format("\\x%02x", codePoint));
                    } else if (Character.isISOControl(codePoint) || !Character.isDefined(codePoint)) {
                        quoted.append(codePoint > 0xFFFF ? String.format("\\U%08x", codePoint) : String.format("\\u%04x", codePoint));
                    } else {
                        quoted.appendCodePoint(codePoint);
                    }
                }
            }
        });
        return quoted.append('"').toString();
    }

    private static Map<String, String> mapOrEmpty(Map<String, String> map) {
        return map == null ? Map.of() : map;
    }

    private static String nullToEmpty(String value) {
        return value == null ? "" : value;
    }
}
