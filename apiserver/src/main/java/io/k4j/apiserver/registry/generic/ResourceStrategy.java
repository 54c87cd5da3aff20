package io.k4j.apiserver.registry.generic;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.k4j.api.resource.ResourceType;
import io.k4j.api.validation.FieldErrors;
import io.k4j.api.validation.NameValidator;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The rules of one resource (or of one of its subresources, e.g. status), as upstream's registry
 * strategies: the generic store owns every create/update/delete/conflict/resourceVersion mechanic and
 * calls these hooks (see {@link ResourceDefinition} for how a resource is served). Objects are JSON trees in the served version; hooks may modify the object they are given.
 *
 * <p>Metadata that every resource shares (name, generateName, labels, annotations, ownerReferences,
 * finalizers, uid, creationTimestamp, resourceVersion) is validated and set by the store; hooks handle only
 * what is specific to the resource. Implementations are stateless and thread-safe.
 */
public interface ResourceStrategy {
    /** The resource these rules are for. */
    ResourceType type();

    /**
     * Fills defaults as upstream's defaulting functions do when a request body is decoded (create, update
     * and patch results), e.g. a container's {@code imagePullPolicy} or a pod's {@code restartPolicy}.
     */
    default void applyDefaults(ObjectNode object) {}

    /**
     * Normalises an object before create: typically clears {@code status} and sets {@code metadata.generation}
     * to 1 for resources that track generation.
     */
    void prepareForCreate(ObjectNode object);

    /**
     * Normalises an update: typically copies {@code status} from the old object (the main resource ignores
     * status) or {@code spec} (the status subresource ignores spec) and bumps {@code metadata.generation} when
     * the spec changed.
     */
    void prepareForUpdate(ObjectNode newObject, ObjectNode oldObject);

    /** Validates a new object; returns every problem found (never stops at the first). */
    FieldErrors validate(ObjectNode object);

    /** Validates an update, including immutable fields; returns every problem found. */
    FieldErrors validateUpdate(ObjectNode newObject, ObjectNode oldObject);

    /** Warnings returned to the client in {@code Warning} headers on create. */
    default List<String> warningsOnCreate(ObjectNode object) {
        return List.of();
    }

    /** Warnings returned to the client in {@code Warning} headers on update. */
    default List<String> warningsOnUpdate(ObjectNode newObject, ObjectNode oldObject) {
        return List.of();
    }

    /**
     * How long an object lives after its last write, as upstream's {@code TTLFunc} (events: {@code --event-ttl}):
     * the store attaches each create and update to a storage lease of this length, so the object is deleted (and
     * watchers see DELETED) when it expires. Empty, the default, keeps objects until they are deleted.
     */
    default Optional<Duration> timeToLive() {
        return Optional.empty();
    }

    /**
     * Whether the watch cache keeps the resource's objects, so that GET and LIST are served from memory. Without, they
     * are read from storage and the cache keeps only its window of recent events for watches, as upstream serves the
     * resources whose watch cache size is 0 ({@code DefaultWatchCacheSizes}: events) from etcd.
     */
    default boolean cachesObjects() {
        return true;
    }

    /** Whether PUT of a missing object creates it (upstream: true for e.g. Lease, Endpoints, false for most). */
    default boolean allowCreateOnUpdate() {
        return false;
    }

    /** Whether an update without {@code metadata.resourceVersion} is accepted (last write wins). */
    default boolean allowUnconditionalUpdate() {
        return true;
    }

    /**
     * The grace period a delete gets, as upstream's {@code CheckGracefulDelete}: 0 deletes at once; a positive
     * value sets {@code deletionTimestamp} and {@code deletionGracePeriodSeconds} and leaves the object for its
     * owner (the kubelet, for pods) to finish. Most resources delete at once.
     *
     * @param requestedSeconds the {@code gracePeriodSeconds} of the delete options, or {@code null}
     */
    default long gracePeriodSeconds(ObjectNode object, Long requestedSeconds) {
        return 0;
    }

    /**
     * Whether the object must stay (marked with {@code deletionTimestamp}) after a delete for a reason beyond
     * {@code metadata.finalizers}, as upstream's namespaces wait for {@code spec.finalizers}. The store deletes the
     * object once this turns false and no finalizers remain.
     */
    default boolean hasPendingFinalization(ObjectNode object) {
        return false;
    }

    /**
     * Called when a delete marks the object for deletion (sets {@code deletionTimestamp}) rather than removing it,
     * e.g. to set a namespace's {@code status.phase} to {@code Terminating}.
     */
    default void prepareForDelete(ObjectNode object) {}

    /**
     * The rule object names follow (upstream's {@code ValidateNameFunc}): DNS subdomain for most resources, DNS
     * label for Namespaces, RFC 1035 label for Services, path segment for RBAC roles.
     */
    default NameValidator nameValidator() {
        return NameValidator.DNS_SUBDOMAIN;
    }

    /**
     * Whether a delete that removes the object at once answers with the object (upstream: pods) rather than a
     * {@code Success} Status naming it (most resources).
     */
    default boolean returnDeletedObject() {
        return false;
    }

    /**
     * The values field selectors can match, beyond {@code metadata.name} and {@code metadata.namespace}
     * which the store provides for every resource, e.g. {@code spec.nodeName} and {@code status.phase} for pods.
     */
    default Map<String, String> selectableFields(ObjectNode object) {
        return Map.of();
    }

    /** The server-side printing columns ({@code as=Table}), in upstream's order and with upstream's names. */
    List<TableColumn> tableColumns();

    /**
     * One table row: one cell per column of {@link #tableColumns()}; cells are String, Long/Integer, Boolean,
     * or null. The NAME cell comes first.
     */
    List<Object> tableRow(ObjectNode object);
}
