package io.k4j.apiserver.endpoints;

import io.k4j.api.errors.StatusException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The form a response takes, chosen from the {@code Accept} header as upstream negotiates: plain JSON or YAML,
 * or a {@code meta.k8s.io} Table or PartialObjectMetadata(List) transformation (kubectl get asks for
 * {@code application/json;as=Table;v=v1;g=meta.k8s.io,…,application/json}). Protobuf is not served, so a client
 * listing it first falls through to the next type it accepts.
 */
public record Representation(Kind kind, boolean yaml, String tableVersion) {
    public enum Kind { OBJECT, TABLE, PARTIAL_OBJECT_METADATA }

    public static final Representation JSON = new Representation(Kind.OBJECT, false, "");
    public static final Representation YAML = new Representation(Kind.OBJECT, true, "");

    public String contentType() {
        return switch (kind) {
            case OBJECT -> yaml ? "application/yaml" : "application/json";
            case TABLE -> "application/json;as=Table;v=" + tableVersion + ";g=meta.k8s.io";
            case PARTIAL_OBJECT_METADATA -> "application/json;as=PartialObjectMetadata;v=" + tableVersion + ";g=meta.k8s.io";
        };
    }

    /** A media type of an Accept header with its parameters (names lower case). */
    public record MediaType(String type, Map<String, String> parameters) {
        public String parameter(String name) {
            return parameters.getOrDefault(name, "");
        }
    }

    public static List<MediaType> parseAccept(String accept) {
        List<MediaType> types = new ArrayList<>();
        if (accept == null || accept.isBlank()) {
            return types;
        }
        for (String entry : accept.split(",")) {
            String[] pieces = entry.trim().split(";");
            Map<String, String> parameters = new LinkedHashMap<>();
            for (int i = 1; i < pieces.length; i++) {
                int equals = pieces[i].indexOf('=');
                if (equals > 0) {
                    parameters.put(pieces[i].substring(0, equals).trim().toLowerCase(Locale.ROOT), pieces[i].substring(equals + 1).trim());
                }
            }
            types.add(new MediaType(pieces[0].trim().toLowerCase(Locale.ROOT), parameters));
        }
        return types;
    }

    /**
     * @param list whether the response is a list (PartialObjectMetadataList is then the transformation)
     * @throws StatusException 406 when nothing acceptable is offered
     */
    public static Representation negotiate(String accept, boolean list) {
        List<MediaType> types = parseAccept(accept);
        if (types.isEmpty()) {
            return JSON;
        }
        for (MediaType type : types) {
            String as = type.parameter("as");
            boolean json = type.type().equals("application/json");
            if (!as.isEmpty()) {
                if (!json || !type.parameter("g").equals("meta.k8s.io")) {
                    continue;
                }
                String version = type.parameter("v");
                if (!version.equals("v1") && !version.equals("v1beta1")) {
                    continue;
                }
                if (as.equals("Table")) {
                    return new Representation(Kind.TABLE, false, version);
                }
                if (as.equals("PartialObjectMetadata") && !list || as.equals("PartialObjectMetadataList") && list) {
                    return new Representation(Kind.PARTIAL_OBJECT_METADATA, false, version);
                }
                continue;
            }
            switch (type.type()) {
                case "application/json", "application/*", "*/*", "application/json-patch+json", "application/merge-patch+json" -> {
                    return JSON;
                }
                case "application/yaml" -> {
                    return YAML;
                }
                default -> {
                    // Not served (protobuf, CBOR …): try the next one the client accepts.
                }
            }
        }
        throw StatusException.notAcceptable("only the following media types are accepted: application/json, application/yaml");
    }
}
