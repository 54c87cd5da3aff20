package io.k4j.controllers.garbagecollector;

import static java.util.Objects.requireNonNull;

import io.fabric8.kubernetes.api.model.OwnerReference;
import io.k4j.controllerkit.workqueue.WorkQueue;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Function;

/**
 * The graph of ownerReferences, as upstream's {@code GraphBuilder}: one node per object (keyed by uid) with its owners
 * and dependents, built from informer events, plus "virtual" nodes for owners referenced before (or without) being
 * observed. Each change does a constant amount of work per reference, never a relist. Changes that need an API
 * round trip go to the attempt-to-delete and attempt-to-orphan queues. Thread-safe: one lock guards the graph.
 */
public final class DependencyGraph {
    private final Map<String, Node> nodes = new HashMap<>();
    private final WorkQueue<ObjectIdentity> attemptToDelete;
    private final WorkQueue<ObjectIdentity> attemptToOrphan;
    private final Function<ObjectIdentity, ObjectIdentity> virtualNamespaceResolver;

    /**
     * @param virtualNamespaceResolver given the identity a dependent's reference implies (with the dependent's
     *     namespace), returns the identity the owner has: with an empty namespace when the owner kind is cluster-scoped
     */
    public DependencyGraph(WorkQueue<ObjectIdentity> attemptToDelete, WorkQueue<ObjectIdentity> attemptToOrphan,
            Function<ObjectIdentity, ObjectIdentity> virtualNamespaceResolver) {
        this.attemptToDelete = requireNonNull(attemptToDelete, "attemptToDelete is null");
        this.attemptToOrphan = requireNonNull(attemptToOrphan, "attemptToOrphan is null");
        this.virtualNamespaceResolver = requireNonNull(virtualNamespaceResolver, "virtualNamespaceResolver is null");
    }

    /** A dependent as its owner sees it. */
    public record Dependent(ObjectIdentity identity, boolean beingDeleted, boolean deletingDependents, boolean blocksOwnerDeletion) {}

    /** A consistent copy of one node, for the workers. */
    public record NodeView(ObjectIdentity identity, boolean virtual, boolean beingDeleted, boolean deletingDependents,
            List<OwnerReference> owners, List<Dependent> dependents) {
        public NodeView {
            owners = List.copyOf(owners);
            dependents = List.copyOf(dependents);
        }
    }

    private static final class Node {
        ObjectIdentity identity;
        List<OwnerReference> owners = List.of();
        /** Allocated on the first dependent: most objects (pods, leases, events) never own anything. */
        Set<Node> dependents = Set.of();
        boolean virtual;
        boolean beingDeleted;
        boolean deletingDependents;
        boolean orphaning;

        Node(ObjectIdentity identity, boolean virtual) {
            this.identity = identity;
            this.virtual = virtual;
        }

        void addDependent(Node dependent) {
            if (dependents.isEmpty()) {
                dependents = new LinkedHashSet<>();
            }
            dependents.add(dependent);
        }

        void removeDependent(Node dependent) {
            if (!dependents.isEmpty()) {
                dependents.remove(dependent);
            }
        }

        boolean blocks(String ownerUid) {
            for (OwnerReference owner : owners) {
                if (owner.getUid().equals(ownerUid) && Boolean.TRUE.equals(owner.getBlockOwnerDeletion())) {
                    return true;
                }
            }
            return false;
        }
    }

    /** An object was added or updated. */
    public synchronized void observe(ObservedObject object) {
        Node node = nodes.get(object.identity().uid());
        if (node == null) {
            node = new Node(object.identity(), false);
            nodes.put(object.identity().uid(), node);
            node.owners = object.owners();
            for (OwnerReference owner : object.owners()) {
                addToOwner(node, owner);
            }
            processTransitions(node, object);
            return;
        }
        if (node.virtual) {
            // The owner that dependents named is real after all. If they named it by other coordinates, let them
            // check their references against the API.
            node.virtual = false;
            if (!node.identity.sameCoordinates(object.identity())) {
                node.dependents.forEach(dependent -> attemptToDelete.add(dependent.identity));
            }
        }
        node.identity = object.identity();
        updateOwners(node, object.owners());
        processTransitions(node, object);
    }

    /** An object was deleted. */
    public synchronized void forget(ObservedObject object) {
        Node node = nodes.get(object.identity().uid());
        if (node == null || node.virtual) {
            return;
        }
        remove(node);
    }

    /**
     * The API says the object of {@code identity} does not exist (or has another uid): drop its virtual node and let its
     * dependents decide again, as upstream's virtual delete event.
     */
    public synchronized void forgetVirtual(ObjectIdentity identity) {
        Node node = nodes.get(identity.uid());
        if (node == null) {
            return;
        }
        if (node.virtual) {
            remove(node);
            return;
        }
        // Observed under other coordinates than the ones that were looked up: some dependents named it wrongly.
        if (!node.identity.sameCoordinates(identity)) {
            node.dependents.forEach(dependent -> attemptToDelete.add(dependent.identity));
        }
    }

    public synchronized Optional<NodeView> view(String uid) {
        Node node = nodes.get(uid);
        if (node == null) {
            return Optional.empty();
        }
        List<Dependent> dependents = new ArrayList<>(node.dependents.size());
        for (Node dependent : node.dependents) {
            dependents.add(new Dependent(dependent.identity, dependent.beingDeleted, dependent.deletingDependents, dependent.blocks(uid)));
        }
        return Optional.of(new NodeView(node.identity, node.virtual, node.beingDeleted, node.deletingDependents, node.owners, dependents));
    }

    public synchronized int size() {
        return nodes.size();
    }

    private void remove(Node node) {
        nodes.remove(node.identity.uid());
        for (OwnerReference reference : node.owners) {
            Node owner = nodes.get(reference.getUid());
            if (owner != null) {
                owner.removeDependent(node);
                if (owner.deletingDependents) {
                    // One dependent fewer may be all a foreground deletion waited for.
                    attemptToDelete.add(owner.identity);
                }
            }
        }
        for (Node dependent : node.dependents) {
            attemptToDelete.add(dependent.identity);
        }
    }

    private void addToOwner(Node dependent, OwnerReference reference) {
        Node owner = nodes.get(reference.getUid());
        if (owner == null) {
            ObjectIdentity implied = new ObjectIdentity(reference.getApiVersion(), reference.getKind(), dependent.identity.namespace(),
                    reference.getName(), reference.getUid());
            owner = new Node(virtualNamespaceResolver.apply(implied), true);
            nodes.put(reference.getUid(), owner);
            // Nothing may ever report this owner (absent, or of an unwatched kind): check it with the API.
            attemptToDelete.add(owner.identity);
        }
        owner.addDependent(dependent);
    }

    private void updateOwners(Node node, List<OwnerReference> newOwners) {
        Map<String, OwnerReference> oldByUid = new HashMap<>();
        node.owners.forEach(owner -> oldByUid.put(owner.getUid(), owner));
        Map<String, OwnerReference> newByUid = new HashMap<>();
        newOwners.forEach(owner -> newByUid.put(owner.getUid(), owner));
        List<OwnerReference> previous = node.owners;
        node.owners = newOwners;
        for (OwnerReference owner : newOwners) {
            OwnerReference old = oldByUid.get(owner.getUid());
            if (old == null) {
                addToOwner(node, owner);
            } else if (Boolean.TRUE.equals(old.getBlockOwnerDeletion()) && !Boolean.TRUE.equals(owner.getBlockOwnerDeletion())) {
                wakeForegroundOwner(owner.getUid());
            }
        }
        for (OwnerReference owner : previous) {
            if (!newByUid.containsKey(owner.getUid())) {
                Node ownerNode = nodes.get(owner.getUid());
                if (ownerNode != null) {
                    ownerNode.removeDependent(node);
                }
                wakeForegroundOwner(owner.getUid());
            }
        }
    }

    private void wakeForegroundOwner(String ownerUid) {
        Node owner = nodes.get(ownerUid);
        if (owner != null && owner.deletingDependents) {
            attemptToDelete.add(owner.identity);
        }
    }

    private void processTransitions(Node node, ObservedObject object) {
        node.beingDeleted = object.beingDeleted();
        if (object.orphaning() && !node.orphaning) {
            attemptToOrphan.add(node.identity);
        }
        node.orphaning = object.orphaning();
        if (object.deletingDependents() && !node.deletingDependents) {
            node.deletingDependents = true;
            node.dependents.forEach(dependent -> attemptToDelete.add(dependent.identity));
            attemptToDelete.add(node.identity);
        }
        node.deletingDependents = object.deletingDependents();
    }
}
