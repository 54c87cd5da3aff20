package io.k4j.controllers.history;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.PodTemplateSpec;
import io.fabric8.kubernetes.api.model.apps.ControllerRevision;
import io.fabric8.kubernetes.api.model.apps.ControllerRevisionBuilder;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.k4j.api.selection.LabelSelector;
import io.k4j.controllerkit.informers.Lister;
import io.k4j.controllerkit.pods.ControllerRefManager;
import io.k4j.controllerkit.pods.OwnerReferences;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * ControllerRevisions for DaemonSets and StatefulSets, as upstream's {@code pkg/controller/history}: a revision stores
 * the pod template as the patch {@code {"spec":{"template":{...,"$patch":"replace"}}}} (what {@code kubectl rollout
 * undo} applies), is named {@code <owner>-<hash>} with the hash also in its {@code controller-revision-hash} label,
 * and carries an increasing revision number. Name collisions raise the owner's collision count, which goes into the
 * hash. Thread-safe.
 */
public final class ControllerHistory {
    public static final String CONTROLLER_REVISION_HASH_LABEL = "controller-revision-hash";
    /** Upstream trims the owner name so that {@code <prefix>-<hash>} stays a valid name. */
    private static final int MAX_PREFIX_LENGTH = 223;
    /** Characters {@code rand.SafeEncodeString} maps to: no vowels, no confusable digits. */
    private static final String SAFE_ALPHABET = "bcdfghjklmnpqrstvwxz2456789";
    private static final ObjectMapper CANONICAL = new ObjectMapper().configure(SerializationFeature.ORDER_MAP_ENTRIES_BY_KEYS, true);

    private final RevisionStore store;
    private final Lister<ControllerRevision> revisions;

    public ControllerHistory(RevisionStore store, Lister<ControllerRevision> revisions) {
        this.store = requireNonNull(store, "store is null");
        this.revisions = requireNonNull(revisions, "revisions is null");
    }

    /**
     * The revisions of {@code owner}: those it controls that match {@code selector}, after adopting matching orphans
     * and releasing what no longer matches, sorted by revision number.
     */
    public List<ControllerRevision> list(HasMetadata owner, String apiVersion, String kind, LabelSelector selector) {
        String uid = owner.getMetadata().getUid();
        List<ControllerRevision> candidates = revisions.list(owner.getMetadata().getNamespace()).stream()
                .filter(revision -> OwnerReferences.isControlledBy(revision, uid) || selector.matches(labels(revision)))
                .toList();
        ControllerRefManager<ControllerRevision> manager = new ControllerRefManager<>(owner, OwnerReferences.newControllerRef(owner, apiVersion, kind), selector,
                () -> owner.getMetadata().getDeletionTimestamp() == null,
                store::patch);
        List<ControllerRevision> owned = new ArrayList<>(manager.claim(candidates));
        owned.sort(BY_REVISION);
        return owned;
    }

    /** Oldest first, then by name, as upstream's {@code SortControllerRevisions}. */
    public static final Comparator<ControllerRevision> BY_REVISION = Comparator.comparing((ControllerRevision revision) -> revision.getRevision() == null ? 0L : revision.getRevision())
            .thenComparing(revision -> revision.getMetadata().getName());

    /**
     * A new (not yet stored) revision of {@code owner} for {@code template}.
     *
     * @param collisionCount the owner's {@code status.collisionCount}
     */
    public static ControllerRevision newRevision(HasMetadata owner, String apiVersion, String kind, PodTemplateSpec template, long revision, int collisionCount) {
        JsonNode data = templatePatch(template);
        String hash = hash(data, collisionCount);
        Map<String, String> labels = new HashMap<>();
        if (template.getMetadata() != null && template.getMetadata().getLabels() != null) {
            labels.putAll(template.getMetadata().getLabels());
        }
        labels.put(CONTROLLER_REVISION_HASH_LABEL, hash);
        Map<String, String> annotations = owner.getMetadata().getAnnotations() == null ? null : new HashMap<>(owner.getMetadata().getAnnotations());
        Object dataObject = CANONICAL.convertValue(data, Object.class);
        return new ControllerRevisionBuilder()
                .withNewMetadata()
                .withName(revisionName(owner.getMetadata().getName(), hash))
                .withNamespace(owner.getMetadata().getNamespace())
                .withLabels(labels)
                .withAnnotations(annotations)
                .withOwnerReferences(OwnerReferences.newControllerRef(owner, apiVersion, kind))
                .endMetadata()
                .withData(dataObject)
                .withRevision(revision)
                .build();
    }

    /** {@code {"spec":{"template":{..., "$patch":"replace"}}}}: what a revision stores and {@code rollout undo} applies. */
    public static JsonNode templatePatch(PodTemplateSpec template) {
        ObjectNode templateNode = CANONICAL.valueToTree(template);
        templateNode.put("$patch", "replace");
        ObjectNode patch = CANONICAL.createObjectNode();
        patch.putObject("spec").set("template", templateNode);
        return patch;
    }

    /** The pod template a revision stores. */
    public static PodTemplateSpec templateOf(ControllerRevision revision) {
        JsonNode data = CANONICAL.valueToTree(revision.getData());
        JsonNode template = data.path("spec").path("template");
        if (!(template instanceof ObjectNode templateNode)) {
            throw new IllegalArgumentException("controller revision " + revision.getMetadata().getName() + " has no spec.template");
        }
        ObjectNode copy = templateNode.deepCopy();
        copy.remove("$patch");
        return CANONICAL.convertValue(copy, PodTemplateSpec.class);
    }

    /** True when both revisions store the same template (upstream's {@code EqualRevision}). */
    public static boolean equalRevision(ControllerRevision left, ControllerRevision right) {
        if (left == null || right == null) {
            return left == right;
        }
        String leftHash = labels(left).get(CONTROLLER_REVISION_HASH_LABEL);
        String rightHash = labels(right).get(CONTROLLER_REVISION_HASH_LABEL);
        if (leftHash != null && rightHash != null && !leftHash.equals(rightHash)) {
            return false;
        }
        return canonical(left.getData()).equals(canonical(right.getData()));
    }

    /** The revisions in {@code existing} equal to {@code wanted}. */
    public static List<ControllerRevision> findEqual(List<ControllerRevision> existing, ControllerRevision wanted) {
        return existing.stream().filter(revision -> equalRevision(revision, wanted)).toList();
    }

    /** The next revision number: one more than the highest in {@code existing}. */
    public static long nextRevision(List<ControllerRevision> existing) {
        return existing.stream().map(ControllerRevision::getRevision).filter(Objects::nonNull).mapToLong(Long::longValue).max().orElse(0) + 1;
    }

    /**
     * Stores {@code revision}. When a different revision already has its name, raises the collision count and
     * retries with a new hash, as upstream's {@code CreateControllerRevision}; the caller must persist the new
     * collision count.
     *
     * @param collisionCount holds the owner's collision count; raised in place on collisions
     * @return the stored revision, or the equal one that already existed
     */
    public ControllerRevision create(HasMetadata owner, String apiVersion, String kind, PodTemplateSpec template, long revisionNumber, int[] collisionCount) {
        while (true) {
            ControllerRevision revision = newRevision(owner, apiVersion, kind, template, revisionNumber, collisionCount[0]);
            try {
                return store.create(revision);
            } catch (KubernetesClientException e) {
                if (e.getCode() != 409) {
                    throw e;
                }
                ControllerRevision existing = store.get(owner.getMetadata().getNamespace(), revision.getMetadata().getName()).orElse(null);
                if (existing != null && equalRevision(existing, revision) && OwnerReferences.isControlledBy(existing, owner.getMetadata().getUid())) {
                    return existing;
                }
                collisionCount[0]++;
            }
        }
    }

    /** Gives an existing revision a new number (a rollback to it makes it the newest). */
    public ControllerRevision updateRevision(ControllerRevision revision, long newNumber) {
        if (Objects.equals(revision.getRevision(), newNumber)) {
            return revision;
        }
        ControllerRevision copy = new ControllerRevisionBuilder(revision).withRevision(newNumber).build();
        return store.update(copy);
    }

    public void delete(ControllerRevision revision) {
        try {
            store.delete(revision.getMetadata().getNamespace(), revision.getMetadata().getName());
        } catch (KubernetesClientException e) {
            if (e.getCode() != 404) {
                throw e;
            }
        }
    }

    /** {@code <prefix>-<hash>} with the prefix trimmed as upstream's {@code ControllerRevisionName}. */
    public static String revisionName(String prefix, String hash) {
        String trimmed = prefix.length() > MAX_PREFIX_LENGTH ? prefix.substring(0, MAX_PREFIX_LENGTH) : prefix;
        return trimmed + "-" + hash;
    }

    /**
     * FNV-32a over the canonical JSON of the data (keys sorted, as Go encodes maps) and the collision count, written
     * in decimal and mapped to the safe alphabet as upstream's {@code HashControllerRevision}.
     */
    public static String hash(JsonNode data, int collisionCount) {
        int hash = 0x811c9dc5;
        byte[] bytes = canonical(data).getBytes(StandardCharsets.UTF_8);
        hash = fnv(hash, bytes);
        if (collisionCount > 0) {
            byte[] count = new byte[4];
            // Upstream writes the count little-endian before hashing it.
            for (int i = 0; i < 4; i++) {
                count[i] = (byte) (collisionCount >>> (8 * i));
            }
            hash = fnv(hash, count);
        }
        String decimal = Long.toString(Integer.toUnsignedLong(hash));
        StringBuilder encoded = new StringBuilder();
        for (char character : decimal.toCharArray()) {
            encoded.append(SAFE_ALPHABET.charAt(character % SAFE_ALPHABET.length()));
        }
        return encoded.toString();
    }

    private static int fnv(int hash, byte[] bytes) {
        for (byte value : bytes) {
            hash ^= value & 0xff;
            hash *= 0x01000193;
        }
        return hash;
    }

    private static String canonical(Object data) {
        try {
            Object tree = CANONICAL.convertValue(data, Object.class);
            return CANONICAL.writeValueAsString(tree);
        } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
            throw new IllegalArgumentException("controller revision data is not JSON", e);
        }
    }

    private static Map<String, String> labels(HasMetadata object) {
        return object.getMetadata().getLabels() == null ? Map.of() : object.getMetadata().getLabels();
    }

    /** The hash label of a pod or revision, if any. */
    public static Optional<String> hashLabel(HasMetadata object) {
        return Optional.ofNullable(labels(object).get(CONTROLLER_REVISION_HASH_LABEL));
    }
}
