package io.k4j.apiserver.registry.generic;

import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.List;

/**
 * Work a resource needs done beside its stored writes, as upstream's store hooks {@code BeginCreate},
 * {@code BeginUpdate} and {@code AfterDelete}: services allocate cluster IPs and node ports from ranges the
 * apiserver owns. The store calls {@code begin*} after the strategy validated the object and before the storage
 * write; the returned {@link WriteTransaction} is committed when the write is stored and reverted when it is not
 * (a rejected or conflicting write), so that a failed create holds nothing. When the storage cannot tell whether a
 * write landed, neither is called: keeping a reservation that may be unused is safer than handing it out twice.
 *
 * <p>Implementations must be thread-safe: the store calls them from concurrent requests.
 */
public interface WriteHooks {
    /** No hooks: what most resources have. */
    WriteHooks NONE = new WriteHooks() {};

    /**
     * Called once when the store starts serving, with every stored object, to rebuild state kept beside the
     * storage (e.g. which addresses are taken).
     */
    default void initialize(List<ObjectNode> storedObjects) {}

    /**
     * Prepares a create; may modify the object (e.g. fill an allocated address).
     *
     * @param dryRun true when nothing will be stored: check and fill, but reserve nothing
     * @throws io.k4j.api.errors.StatusException to reject the create
     */
    default WriteTransaction beginCreate(ObjectNode object, boolean dryRun) {
        return WriteTransaction.NONE;
    }

    /**
     * Prepares an update of the main resource (never of a subresource); may modify the new object.
     *
     * @param dryRun true when nothing will be stored: check and fill, but reserve nothing
     * @throws io.k4j.api.errors.StatusException to reject the update
     */
    default WriteTransaction beginUpdate(ObjectNode newObject, ObjectNode oldObject, boolean dryRun) {
        return WriteTransaction.NONE;
    }

    /** Called after an object was removed from the storage (not when it was only marked for deletion). */
    default void afterDelete(ObjectNode deletedObject) {}
}
