package io.k4j.controllers.garbagecollector;

import static java.util.Objects.requireNonNull;

import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.fabric8.kubernetes.api.model.OwnerReference;
import io.fabric8.kubernetes.api.model.OwnerReferenceBuilder;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.k4j.controllerkit.workqueue.WorkQueue;
import io.k4j.controllers.dynamic.ApiResource;
import java.net.HttpURLConnection;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The decisions of the garbage collector, as upstream's {@code attemptToDeleteItem} and {@code attemptToOrphan}:
 * <ul>
 *   <li>an object whose owners are all gone (checked by uid against the API, not the cache) is deleted, in the
 *       background unless it asks otherwise; owners that are gone or waiting for their dependents are dropped from
 *       the references of an object that still has a live owner;</li>
 *   <li>an owner deleted in the foreground (finalizer {@code foregroundDeletion}) keeps its finalizer until no
 *       dependent that blocks owner deletion is left; its dependents are deleted meanwhile;</li>
 *   <li>an owner deleted with the {@code orphan} finalizer loses its references from every dependent, then the
 *       finalizer.</li>
 * </ul>
 * Thread-safe: the graph and the queues are, and each key is processed by one worker at a time.
 */
public final class GarbageCollector {
    private static final Logger LOG = LoggerFactory.getLogger("garbage-collector");
    static final String BACKGROUND = "Background";
    static final String FOREGROUND = "Foreground";
    static final String ORPHAN = "Orphan";
    private static final int CONFLICT_RETRIES = 5;

    private final DependencyGraph graph;
    private final ObjectClient objects;
    private final Supplier<ResourceKinds> kinds;
    private final WorkQueue<ObjectIdentity> attemptToDelete;
    private final AbsentOwnerCache absentOwners = new AbsentOwnerCache(500);

    public GarbageCollector(DependencyGraph graph, ObjectClient objects, Supplier<ResourceKinds> kinds, WorkQueue<ObjectIdentity> attemptToDelete) {
        this.graph = requireNonNull(graph, "graph is null");
        this.objects = requireNonNull(objects, "objects is null");
        this.kinds = requireNonNull(kinds, "kinds is null");
        this.attemptToDelete = requireNonNull(attemptToDelete, "attemptToDelete is null");
    }

    /** Processes one key of the attempt-to-delete queue. */
    public void attemptToDelete(ObjectIdentity key) {
        Optional<DependencyGraph.NodeView> found = graph.view(key.uid());
        if (found.isEmpty()) {
            return;
        }
        DependencyGraph.NodeView node = found.get();
        if (node.beingDeleted() && !node.deletingDependents()) {
            return;
        }
        ApiResource resource = resolve(node.identity().apiVersion(), node.identity().kind());
        Optional<ObjectMeta> latest = objects.get(resource, namespaceFor(resource, node.identity().namespace()), node.identity().name());
        if (latest.isEmpty() || !node.identity().uid().equals(latest.get().getUid())) {
            // Gone, or a new object under the old name: the node (virtual or stale) goes, its dependents decide again.
            graph.forgetVirtual(node.identity());
            return;
        }
        ObjectMeta object = latest.get();
        if (node.deletingDependents()) {
            processDeletingDependents(node, resource, object);
            return;
        }
        List<OwnerReference> owners = object.getOwnerReferences() == null ? List.of() : object.getOwnerReferences();
        if (owners.isEmpty()) {
            return;
        }
        List<OwnerReference> solid = new ArrayList<>();
        List<OwnerReference> dangling = new ArrayList<>();
        List<OwnerReference> waiting = new ArrayList<>();
        for (OwnerReference owner : owners) {
            switch (classify(node.identity(), owner)) {
                case SOLID -> solid.add(owner);
                case DANGLING -> dangling.add(owner);
                case WAITING_FOR_DEPENDENTS_DELETION -> waiting.add(owner);
            }
        }
        if (!solid.isEmpty()) {
            if (!dangling.isEmpty() || !waiting.isEmpty()) {
                Set<String> drop = new HashSet<>();
                dangling.forEach(owner -> drop.add(owner.getUid()));
                waiting.forEach(owner -> drop.add(owner.getUid()));
                LOG.debug("{} has a live owner; removing references to {}", node.identity(), drop);
                removeOwnerReferences(resource, node.identity(), object, drop);
            }
            return;
        }
        if (!waiting.isEmpty() && !node.dependents().isEmpty()) {
            // Deleted in the foreground itself so that its own dependents go first. A dependent already deleting its
            // dependents could be waiting on us in a cycle: stop blocking our owners to break it.
            if (node.dependents().stream().anyMatch(DependencyGraph.Dependent::deletingDependents)) {
                object = unblockOwnerReferences(resource, node.identity(), object);
            }
            delete(resource, node.identity(), object, FOREGROUND);
            return;
        }
        List<String> finalizers = object.getFinalizers() == null ? List.of() : object.getFinalizers();
        String policy = finalizers.contains(ObservedObject.ORPHAN_FINALIZER) ? ORPHAN
                : finalizers.contains(ObservedObject.FOREGROUND_FINALIZER) ? FOREGROUND
                : BACKGROUND;
        delete(resource, node.identity(), object, policy);
    }

    /** Processes one key of the attempt-to-orphan queue: the owner's dependents lose their references, then it its finalizer. */
    public void attemptToOrphan(ObjectIdentity owner) {
        Optional<DependencyGraph.NodeView> found = graph.view(owner.uid());
        if (found.isEmpty()) {
            return;
        }
        List<String> failures = new ArrayList<>();
        for (DependencyGraph.Dependent dependent : found.get().dependents()) {
            try {
                ApiResource resource = resolve(dependent.identity().apiVersion(), dependent.identity().kind());
                Optional<ObjectMeta> latest = objects.get(resource, namespaceFor(resource, dependent.identity().namespace()), dependent.identity().name());
                if (latest.isPresent() && dependent.identity().uid().equals(latest.get().getUid())) {
                    removeOwnerReferences(resource, dependent.identity(), latest.get(), Set.of(owner.uid()));
                }
            } catch (KubernetesClientException e) {
                failures.add(dependent.identity() + ": " + e.getMessage());
            }
        }
        if (!failures.isEmpty()) {
            throw new IllegalStateException("orphaning the dependents of " + owner + " failed: " + String.join("; ", failures));
        }
        ApiResource resource = resolve(owner.apiVersion(), owner.kind());
        removeFinalizer(resource, owner, ObservedObject.ORPHAN_FINALIZER);
    }

    private void processDeletingDependents(DependencyGraph.NodeView node, ApiResource resource, ObjectMeta object) {
        List<DependencyGraph.Dependent> blocking = node.dependents().stream().filter(DependencyGraph.Dependent::blocksOwnerDeletion).toList();
        if (blocking.isEmpty()) {
            LOG.debug("{}: no dependent blocks its deletion; removing the foregroundDeletion finalizer", node.identity());
            removeFinalizer(resource, node.identity(), ObservedObject.FOREGROUND_FINALIZER);
            return;
        }
        for (DependencyGraph.Dependent dependent : blocking) {
            if (!dependent.deletingDependents()) {
                attemptToDelete.add(dependent.identity());
            }
        }
    }

    private enum Reference { SOLID, DANGLING, WAITING_FOR_DEPENDENTS_DELETION }

    /** Upstream's {@code isDangling} plus the foreground check: always a live GET, behind a cache of known-absent owners. */
    private Reference classify(ObjectIdentity dependent, OwnerReference reference) {
        ApiResource resource = resolve(reference.getApiVersion(), reference.getKind());
        String namespace = namespaceFor(resource, dependent.namespace());
        if (resource.namespaced() && dependent.namespace().isEmpty()) {
            // A cluster-scoped object cannot be owned by a namespaced one: the reference can never resolve.
            LOG.debug("{} is cluster-scoped but names the namespaced owner {} {}", dependent, reference.getKind(), reference.getName());
            return Reference.DANGLING;
        }
        if (absentOwners.contains(namespace, reference.getUid())) {
            return Reference.DANGLING;
        }
        Optional<ObjectMeta> owner = objects.get(resource, namespace, reference.getName());
        if (owner.isEmpty() || !reference.getUid().equals(owner.get().getUid())) {
            absentOwners.add(namespace, reference.getUid());
            return Reference.DANGLING;
        }
        ObjectMeta metadata = owner.get();
        boolean foreground = metadata.getDeletionTimestamp() != null
                && metadata.getFinalizers() != null && metadata.getFinalizers().contains(ObservedObject.FOREGROUND_FINALIZER);
        return foreground ? Reference.WAITING_FOR_DEPENDENTS_DELETION : Reference.SOLID;
    }

    private void delete(ApiResource resource, ObjectIdentity identity, ObjectMeta latest, String policy) {
        LOG.debug("deleting {} with propagation {}", identity, policy);
        objects.delete(resource, latest, policy);
    }

    private void removeOwnerReferences(ApiResource resource, ObjectIdentity identity, ObjectMeta latest, Set<String> ownerUids) {
        ObjectMeta current = latest;
        for (int attempt = 0; ; attempt++) {
            List<OwnerReference> owners = current.getOwnerReferences() == null ? List.of() : current.getOwnerReferences();
            List<OwnerReference> kept = owners.stream().filter(owner -> !ownerUids.contains(owner.getUid())).toList();
            if (kept.size() == owners.size()) {
                return;
            }
            try {
                objects.setOwnerReferences(resource, current, kept);
                return;
            } catch (KubernetesClientException e) {
                Optional<ObjectMeta> refreshed = refreshAfterConflict(e, attempt, resource, identity);
                if (refreshed.isEmpty()) {
                    return;
                }
                current = refreshed.get();
            }
        }
    }

    private ObjectMeta unblockOwnerReferences(ApiResource resource, ObjectIdentity identity, ObjectMeta latest) {
        List<OwnerReference> owners = latest.getOwnerReferences();
        List<OwnerReference> unblocked = owners.stream()
                .map(owner -> Boolean.TRUE.equals(owner.getBlockOwnerDeletion()) ? new OwnerReferenceBuilder(owner).withBlockOwnerDeletion(false).build() : owner)
                .toList();
        if (unblocked.equals(owners)) {
            return latest;
        }
        objects.setOwnerReferences(resource, latest, unblocked);
        return objects.get(resource, namespaceFor(resource, identity.namespace()), identity.name()).orElse(latest);
    }

    private void removeFinalizer(ApiResource resource, ObjectIdentity identity, String finalizer) {
        for (int attempt = 0; ; attempt++) {
            Optional<ObjectMeta> latest = objects.get(resource, namespaceFor(resource, identity.namespace()), identity.name());
            if (latest.isEmpty() || !identity.uid().equals(latest.get().getUid())) {
                return;
            }
            List<String> finalizers = latest.get().getFinalizers() == null ? List.of() : latest.get().getFinalizers();
            if (!finalizers.contains(finalizer)) {
                return;
            }
            try {
                objects.setFinalizers(resource, latest.get(), finalizers.stream().filter(name -> !name.equals(finalizer)).toList());
                return;
            } catch (KubernetesClientException e) {
                if (e.getCode() != HttpURLConnection.HTTP_CONFLICT || attempt >= CONFLICT_RETRIES) {
                    throw e;
                }
            }
        }
    }

    /** After a failed write: the fresh metadata to retry with on a conflict, empty when the object is gone; rethrows otherwise. */
    private Optional<ObjectMeta> refreshAfterConflict(KubernetesClientException error, int attempt, ApiResource resource, ObjectIdentity identity) {
        if (error.getCode() == HttpURLConnection.HTTP_NOT_FOUND) {
            return Optional.empty();
        }
        if (error.getCode() != HttpURLConnection.HTTP_CONFLICT || attempt >= CONFLICT_RETRIES) {
            throw error;
        }
        return objects.get(resource, namespaceFor(resource, identity.namespace()), identity.name())
                .filter(fresh -> identity.uid().equals(fresh.getUid()));
    }

    private ApiResource resolve(String apiVersion, String kind) {
        return kinds.get().resolve(apiVersion, kind)
                .orElseThrow(() -> new IllegalStateException("no served resource for apiVersion " + apiVersion + ", kind " + kind));
    }

    private static String namespaceFor(ApiResource resource, String namespace) {
        return resource.namespaced() ? namespace : "";
    }
}
