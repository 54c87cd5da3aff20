package io.k4j.apiserver.registry.generic;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.k4j.api.errors.StatusException;
import io.k4j.apiserver.authentication.UserInfo;
import io.k4j.apiserver.endpoints.HttpExchange;
import java.io.IOException;

/**
 * A subresource served by its own logic rather than by a strategy on the parent's store, e.g. {@code binding},
 * {@code eviction}, {@code scale} or {@code token}. ({@code status} is a {@link ResourceStrategy} instead.)
 * Implementations are thread-safe.
 */
public interface SubresourceHandler {
    /** The subresource name in URLs, e.g. {@code scale}. */
    String subresource();

    /** The kind of the objects read and written, e.g. {@code Scale} in {@code autoscaling/v1}. */
    String apiVersion();

    String kind();

    /**
     * Whether this is a streaming subresource ({@code exec}, {@code attach}, {@code portforward}) that answers every
     * request itself in {@link #connect}, typically by accepting a WebSocket upgrade with
     * {@link io.k4j.apiserver.websocket.ChannelConnection#accept}.
     */
    default boolean streaming() {
        return false;
    }

    /**
     * Serves a request for a {@link #streaming()} subresource on its exchange; authentication and authorization are
     * done. The handler owns the exchange until it returns (an error thrown before it answered becomes a Status).
     */
    default void connect(Request request, HttpExchange exchange) throws IOException {
        throw StatusException.methodNotSupported(request.parent().type().gvk().group(), request.parent().type().plural() + "/" + subresource(), "connect");
    }

    /** GET of the subresource. */
    default ObjectNode get(Request request) {
        throw StatusException.methodNotSupported(request.parent().type().gvk().group(), request.parent().type().plural() + "/" + subresource(), "get");
    }

    /** POST of the subresource (binding, eviction, token); returns the response body. */
    default ObjectNode create(Request request, ObjectNode body) {
        throw StatusException.methodNotSupported(request.parent().type().gvk().group(), request.parent().type().plural() + "/" + subresource(), "create");
    }

    /** PUT (and, after the server applied the patch to the GET result, PATCH) of the subresource. */
    default ObjectNode update(Request request, ObjectNode body) {
        throw StatusException.methodNotSupported(request.parent().type().gvk().group(), request.parent().type().plural() + "/" + subresource(), "update");
    }

    /**
     * PATCH with {@code application/apply-patch+yaml}: server-side apply of {@code configuration} (of this
     * subresource's kind) for {@code manager}; the field manager is validated. Subresources that do not support it
     * answer 415, as the generic patch of a type that has no apply.
     *
     * @param force take fields other managers own instead of failing with 409
     */
    default ObjectNode apply(Request request, ObjectNode configuration, String manager, boolean force) {
        throw StatusException.unsupportedMediaType("application/apply-patch+yaml");
    }

    /**
     * One call's context.
     *
     * @param parent the parent resource's store
     * @param namespace the namespace, empty for cluster-scoped parents
     * @param name the parent object's name
     * @param user who asks
     * @param dryRun whether nothing may be persisted
     * @param fieldOwnership how an update or patch records its manager in the parent's managed fields
     */
    record Request(ObjectStore parent, String namespace, String name, UserInfo user, boolean dryRun, OperationContext.FieldOwnership fieldOwnership) {
        public Request {
            requireNonNull(fieldOwnership, "fieldOwnership is null");
        }

        /** A request whose writes record no field ownership (in-process callers, reads, creates). */
        public Request(ObjectStore parent, String namespace, String name, UserInfo user, boolean dryRun) {
            this(parent, namespace, name, user, dryRun, OperationContext.FieldOwnership.UNTRACKED);
        }
    }
}
