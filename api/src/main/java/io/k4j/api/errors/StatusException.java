package io.k4j.api.errors;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.k4j.api.validation.FieldError;
import io.k4j.api.validation.FieldErrors;
import java.util.List;

/**
 * The one API error: everything that fails a request becomes a {@code Status} with upstream's reason,
 * code, message and details. Factories mirror upstream's {@code apierrors.New*} so messages match.
 */
public final class StatusException extends RuntimeException {
    private final StatusReason reason;
    private final int code;
    private final String name;
    private final String group;
    private final String kind;
    private final List<StatusCause> causes;
    private final Integer retryAfterSeconds;

    public StatusException(StatusReason reason, int code, String message, String name, String group, String kind, List<StatusCause> causes, Integer retryAfterSeconds) {
        super(requireNonNull(message, "message is null"), null, false, false);
        this.reason = requireNonNull(reason, "reason is null");
        this.code = code;
        this.name = name;
        this.group = group;
        this.kind = kind;
        this.causes = List.copyOf(requireNonNull(causes, "causes is null"));
        this.retryAfterSeconds = retryAfterSeconds;
    }

    public StatusException(StatusReason reason, String message) {
        this(reason, reason.code(), message, null, null, null, List.of(), null);
    }

    public static StatusException notFound(String group, String resource, String name) {
        return new StatusException(StatusReason.NOT_FOUND, 404, qualified(group, resource) + " \"" + name + "\" not found", name, group, resource, List.of(), null);
    }

    public static StatusException alreadyExists(String group, String resource, String name) {
        return new StatusException(StatusReason.ALREADY_EXISTS, 409, qualified(group, resource) + " \"" + name + "\" already exists", name, group, resource, List.of(), null);
    }

    /** 409 Conflict, e.g. a stale resourceVersion: {@code Operation cannot be fulfilled on pods "x": <detail>}. */
    public static StatusException conflict(String group, String resource, String name, String detail) {
        return new StatusException(StatusReason.CONFLICT, 409, "Operation cannot be fulfilled on " + qualified(group, resource) + " \"" + name + "\": " + detail, name, group, resource, List.of(), null);
    }

    /** The detail upstream gives for an update with a stale resourceVersion. */
    public static final String OBJECT_MODIFIED = "the object has been modified; please apply your changes to the latest version and try again";

    /** 422 Invalid with one cause per field error: {@code Pod "x" is invalid: [a: …, b: …]}. */
    public static StatusException invalid(String group, String kind, String name, FieldErrors errors) {
        List<FieldError> list = errors.list();
        String joined;
        if (list.size() == 1) {
            joined = list.get(0).message();
        } else {
            StringBuilder builder = new StringBuilder("[");
            for (int i = 0; i < list.size(); i++) {
                builder.append(i == 0 ? "" : ", ").append(list.get(i).message());
            }
            joined = builder.append(']').toString();
        }
        List<StatusCause> causes = list.stream()
                .map(error -> new StatusCause(error.type().causeType(), error.errorBody(), error.field()))
                .toList();
        String qualifiedKind = group.isEmpty() ? kind : kind + "." + group;
        return new StatusException(StatusReason.INVALID, 422, qualifiedKind + " \"" + name + "\" is invalid: " + joined, name, group, kind, causes, null);
    }

    public static StatusException badRequest(String message) {
        return new StatusException(StatusReason.BAD_REQUEST, message);
    }

    public static StatusException unauthorized() {
        return new StatusException(StatusReason.UNAUTHORIZED, "Unauthorized");
    }

    /** 403 in upstream's words: {@code pods "x" is forbidden: User "bob" cannot get resource …}. */
    public static StatusException forbidden(String group, String resource, String name, String reasonText) {
        String subject = name == null || name.isEmpty()
                ? qualified(group, resource) + " is forbidden: "
                : qualified(group, resource) + " \"" + name + "\" is forbidden: ";
        return new StatusException(StatusReason.FORBIDDEN, 403, subject + reasonText, name, group, resource, List.of(), null);
    }

    /** 403 for a non-resource URL or request without a resource: the message is given whole. */
    public static StatusException forbidden(String message) {
        return new StatusException(StatusReason.FORBIDDEN, message);
    }

    /** 410 Expired: a continue token or resourceVersion that is no longer available. */
    public static StatusException expired(String message) {
        return new StatusException(StatusReason.EXPIRED, message);
    }

    public static StatusException gone(String message) {
        return new StatusException(StatusReason.GONE, message);
    }

    public static StatusException requestEntityTooLarge(long limitBytes) {
        return new StatusException(StatusReason.REQUEST_ENTITY_TOO_LARGE, "Request entity too large: limit is " + limitBytes);
    }

    public static StatusException methodNotSupported(String group, String resource, String verb) {
        return new StatusException(StatusReason.METHOD_NOT_ALLOWED, 405, verb + " is not supported on resources of kind \"" + qualified(group, resource) + "\"", null, group, resource, List.of(), null);
    }

    public static StatusException notAcceptable(String message) {
        return new StatusException(StatusReason.NOT_ACCEPTABLE, message);
    }

    public static StatusException unsupportedMediaType(String contentType) {
        return new StatusException(StatusReason.UNSUPPORTED_MEDIA_TYPE, "the body of the request was in an unknown format - accepted media types include: application/json, application/yaml, application/apply-patch+yaml, application/json-patch+json, application/merge-patch+json, application/strategic-merge-patch+json; got " + contentType);
    }

    public static StatusException internalError(String message) {
        return new StatusException(StatusReason.INTERNAL_ERROR, "Internal error occurred: " + message);
    }

    public static StatusException serviceUnavailable(String message) {
        return new StatusException(StatusReason.SERVICE_UNAVAILABLE, message);
    }

    public static StatusException tooManyRequests(String message, int retryAfterSeconds) {
        return new StatusException(StatusReason.TOO_MANY_REQUESTS, 429, message, null, null, null, List.of(), retryAfterSeconds);
    }

    public static StatusException timeout(String message) {
        return new StatusException(StatusReason.TIMEOUT, message);
    }

    private static String qualified(String group, String resource) {
        return group == null || group.isEmpty() ? resource : resource + "." + group;
    }

    public StatusReason reason() {
        return reason;
    }

    public int code() {
        return code;
    }

    public List<StatusCause> causes() {
        return causes;
    }

    /** The {@code Status} object as upstream sends it. */
    public ObjectNode toStatus() {
        JsonNodeFactory factory = JsonNodeFactory.instance;
        ObjectNode status = factory.objectNode();
        status.put("kind", "Status");
        status.put("apiVersion", "v1");
        status.putObject("metadata");
        status.put("status", "Failure");
        status.put("message", getMessage());
        status.put("reason", reason.wireName());
        if (name != null || kind != null || !causes.isEmpty() || retryAfterSeconds != null) {
            ObjectNode details = status.putObject("details");
            if (name != null && !name.isEmpty()) {
                details.put("name", name);
            }
            if (group != null && !group.isEmpty()) {
                details.put("group", group);
            }
            if (kind != null) {
                details.put("kind", kind);
            }
            if (!causes.isEmpty()) {
                ArrayNode array = details.putArray("causes");
                for (StatusCause cause : causes) {
                    ObjectNode node = array.addObject();
                    node.put("reason", cause.reason());
                    node.put("message", cause.message());
                    node.put("field", cause.field());
                }
            }
            if (retryAfterSeconds != null) {
                details.put("retryAfterSeconds", retryAfterSeconds);
            }
        }
        status.put("code", code);
        return status;
    }
}
