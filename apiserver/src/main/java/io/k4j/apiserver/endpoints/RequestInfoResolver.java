package io.k4j.apiserver.endpoints;

import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * Parses a request into a {@link RequestInfo} following upstream's {@code RequestInfoFactory}:
 * {@code /api/<version>/…} and {@code /apis/<group>/<version>/…} with optional {@code namespaces/<ns>/},
 * the legacy {@code /watch/} segment, {@code ?watch=true}, subresources, and the special case that
 * {@code namespaces/<name>[/status|/finalize]} is the namespace object itself. Thread-safe.
 */
public final class RequestInfoResolver {
    private static final Set<String> NAMESPACE_SUBRESOURCES = Set.of("status", "finalize");

    public RequestInfo resolve(String method, String path, Map<String, List<String>> query) {
        String verb = method.toLowerCase(Locale.ROOT);
        String trimmed = path.startsWith("/") ? path.substring(1) : path;
        if (trimmed.endsWith("/")) {
            trimmed = trimmed.substring(0, trimmed.length() - 1);
        }
        List<String> parts = trimmed.isEmpty() ? List.of() : Arrays.asList(trimmed.split("/", -1));
        if (parts.isEmpty() || !(parts.get(0).equals("api") || parts.get(0).equals("apis"))) {
            return RequestInfo.nonResource(path, verb);
        }
        String prefix = parts.get(0);
        int index = 1;
        String group = "";
        if (prefix.equals("apis")) {
            if (parts.size() < 3) {
                return RequestInfo.nonResource(path, verb);
            }
            group = parts.get(1);
            index = 2;
        } else if (parts.size() < 3) {
            return RequestInfo.nonResource(path, verb);
        }
        String version = parts.get(index);
        List<String> rest = parts.subList(index + 1, parts.size());
        boolean watch = false;
        if (!rest.isEmpty() && rest.get(0).equals("watch")) {
            watch = true;
            rest = rest.subList(1, rest.size());
        }
        String namespace = "";
        String resource;
        String name = "";
        String subresource = "";
        if (rest.isEmpty()) {
            return RequestInfo.nonResource(path, verb);
        }
        if (rest.get(0).equals("namespaces")) {
            if (rest.size() > 1) {
                namespace = rest.get(1);
                // namespaces/<ns>/<resource>… addresses objects in the namespace; namespaces/<ns>[/status] the namespace itself.
                if (rest.size() > 2 && !NAMESPACE_SUBRESOURCES.contains(rest.get(2))) {
                    rest = rest.subList(2, rest.size());
                }
            }
        }
        resource = rest.get(0);
        if (rest.size() > 1) {
            name = rest.get(1);
        }
        if (rest.size() > 2) {
            subresource = String.join("/", rest.subList(2, rest.size()));
        }
        if (watch || "true".equals(first(query, "watch")) || "1".equals(first(query, "watch"))) {
            watch = watch || method.equals("GET");
        }
        String resourceVerb = switch (method) {
            case "POST" -> "create";
            case "GET", "HEAD" -> watch ? "watch" : name.isEmpty() ? "list" : "get";
            case "PUT" -> "update";
            case "PATCH" -> "patch";
            case "DELETE" -> name.isEmpty() ? "deletecollection" : "delete";
            default -> verb;
        };
        if ((resourceVerb.equals("list") || resourceVerb.equals("watch")) && name.isEmpty()) {
            String fieldSelector = first(query, "fieldSelector");
            if (fieldSelector != null) {
                for (String term : fieldSelector.split(",")) {
                    String trimmedTerm = term.trim();
                    if (trimmedTerm.startsWith("metadata.name=") && !trimmedTerm.startsWith("metadata.name!=")) {
                        name = trimmedTerm.substring(trimmedTerm.indexOf('=') + 1).replaceFirst("^=", "");
                    }
                }
            }
        }
        return new RequestInfo(true, path, resourceVerb, prefix, group, version, namespace, resource, subresource, name);
    }

    private static String first(Map<String, List<String>> query, String key) {
        List<String> values = query.get(key);
        return values == null || values.isEmpty() ? null : values.get(0);
    }
}
