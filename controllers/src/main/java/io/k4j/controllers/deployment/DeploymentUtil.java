package io.k4j.controllers.deployment;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.MapperFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.json.JsonMapper;
import io.fabric8.kubernetes.api.model.IntOrString;
import io.fabric8.kubernetes.api.model.PodTemplateSpec;
import io.fabric8.kubernetes.api.model.PodTemplateSpecBuilder;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.apps.DeploymentCondition;
import io.fabric8.kubernetes.api.model.apps.DeploymentConditionBuilder;
import io.fabric8.kubernetes.api.model.apps.DeploymentStatus;
import io.fabric8.kubernetes.api.model.apps.ReplicaSet;
import io.fabric8.kubernetes.api.model.apps.ReplicaSetCondition;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;

/**
 * The Deployment rules upstream keeps in {@code pkg/controller/deployment/util}: revision and replica annotations,
 * surge/unavailable fenceposts, proportional-scaling fractions, the pod-template hash, condition bookkeeping and the
 * complete/progressing/timed-out tests. Stateless and thread-safe; methods that take a status or replica set mutate
 * only that argument, which callers own.
 */
public final class DeploymentUtil {
    public static final String REVISION_ANNOTATION = "deployment.kubernetes.io/revision";
    public static final String REVISION_HISTORY_ANNOTATION = "deployment.kubernetes.io/revision-history";
    public static final String DESIRED_REPLICAS_ANNOTATION = "deployment.kubernetes.io/desired-replicas";
    public static final String MAX_REPLICAS_ANNOTATION = "deployment.kubernetes.io/max-replicas";
    public static final String ROLLBACK_TO_ANNOTATION = "deprecated.deployment.rollback.to";
    public static final String LAST_APPLIED_ANNOTATION = "kubectl.kubernetes.io/last-applied-configuration";
    /** Upstream's {@code DefaultDeploymentUniqueLabelKey}. */
    public static final String POD_TEMPLATE_HASH_LABEL = "pod-template-hash";
    /** Upstream limits the revision-history annotation to about 100 revisions. */
    static final int MAX_REVISION_HISTORY_LENGTH_IN_CHARS = 2000;

    public static final String PROGRESSING = "Progressing";
    public static final String AVAILABLE = "Available";
    public static final String REPLICA_FAILURE = "ReplicaFailure";

    public static final String NEW_REPLICA_SET_REASON = "NewReplicaSetCreated";
    public static final String FOUND_NEW_REPLICA_SET_REASON = "FoundNewReplicaSet";
    public static final String REPLICA_SET_UPDATED_REASON = "ReplicaSetUpdated";
    public static final String NEW_REPLICA_SET_AVAILABLE_REASON = "NewReplicaSetAvailable";
    public static final String TIMED_OUT_REASON = "ProgressDeadlineExceeded";
    public static final String FAILED_REPLICA_SET_CREATE_REASON = "ReplicaSetCreateError";
    public static final String PAUSED_REASON = "DeploymentPaused";
    public static final String RESUMED_REASON = "DeploymentResumed";
    public static final String MINIMUM_REPLICAS_AVAILABLE = "MinimumReplicasAvailable";
    public static final String MINIMUM_REPLICAS_UNAVAILABLE = "MinimumReplicasUnavailable";

    private static final Set<String> ANNOTATIONS_TO_SKIP = Set.of(
            LAST_APPLIED_ANNOTATION, REVISION_ANNOTATION, REVISION_HISTORY_ANNOTATION, DESIRED_REPLICAS_ANNOTATION, MAX_REPLICAS_ANNOTATION,
            ROLLBACK_TO_ANNOTATION);
    private static final String SAFE_ALPHABET = "bcdfghjklmnpqrstvwxz2456789";
    private static final ObjectMapper CANONICAL = JsonMapper.builder()
            .enable(SerializationFeature.ORDER_MAP_ENTRIES_BY_KEYS)
            .enable(MapperFeature.SORT_PROPERTIES_ALPHABETICALLY)
            .build();

    private DeploymentUtil() {}

    // Spec accessors with upstream's defaults.

    public static int replicas(Deployment deployment) {
        Integer replicas = deployment.getSpec().getReplicas();
        return replicas == null ? 1 : replicas;
    }

    public static int replicas(ReplicaSet replicaSet) {
        Integer replicas = replicaSet.getSpec().getReplicas();
        return replicas == null ? 1 : replicas;
    }

    static int statusReplicas(ReplicaSet replicaSet) {
        return replicaSet.getStatus() == null ? 0 : value(replicaSet.getStatus().getReplicas());
    }

    static int readyReplicas(ReplicaSet replicaSet) {
        return replicaSet.getStatus() == null ? 0 : value(replicaSet.getStatus().getReadyReplicas());
    }

    static int availableReplicas(ReplicaSet replicaSet) {
        return replicaSet.getStatus() == null ? 0 : value(replicaSet.getStatus().getAvailableReplicas());
    }

    static int value(Integer count) {
        return count == null ? 0 : count;
    }

    public static boolean isRollingUpdate(Deployment deployment) {
        return deployment.getSpec().getStrategy() == null || !"Recreate".equals(deployment.getSpec().getStrategy().getType());
    }

    public static boolean isPaused(Deployment deployment) {
        return Boolean.TRUE.equals(deployment.getSpec().getPaused());
    }

    public static int minReadySeconds(Deployment deployment) {
        return deployment.getSpec().getMinReadySeconds() == null ? 0 : deployment.getSpec().getMinReadySeconds();
    }

    /** A deadline is set and is not the "no deadline" value MaxInt32. */
    public static boolean hasProgressDeadline(Deployment deployment) {
        Integer deadline = deployment.getSpec().getProgressDeadlineSeconds();
        return deadline != null && deadline != Integer.MAX_VALUE;
    }

    public static boolean hasRevisionHistoryLimit(Deployment deployment) {
        Integer limit = deployment.getSpec().getRevisionHistoryLimit();
        return limit != null && limit != Integer.MAX_VALUE;
    }

    // Surge and unavailability.

    /**
     * An int-or-percent scaled against {@code total}: percentages round up for surge and down for unavailability, as
     * upstream's {@code GetScaledValueFromIntOrPercent}.
     */
    public static int scaledValue(IntOrString value, int total, boolean roundUp) {
        if (value == null) {
            return 0;
        }
        if (value.getIntVal() != null) {
            return value.getIntVal();
        }
        String text = value.getStrVal();
        if (text == null || !text.endsWith("%")) {
            throw new IllegalArgumentException("invalid value for IntOrString: invalid type: string is not a percentage");
        }
        int percent;
        try {
            percent = Integer.parseInt(text.substring(0, text.length() - 1));
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("invalid value \"" + text + "\": " + e.getMessage());
        }
        long scaled = (long) percent * total;
        return (int) (roundUp ? Math.ceilDiv(scaled, 100) : Math.floorDiv(scaled, 100));
    }

    /**
     * Upstream's {@code ResolveFenceposts}: the absolute surge and unavailability; when both round to zero,
     * unavailability becomes 1 so a rollout can make progress.
     */
    public static int[] resolveFenceposts(IntOrString maxSurge, IntOrString maxUnavailable, int desired) {
        int surge = scaledValue(maxSurge == null ? new IntOrString(0) : maxSurge, desired, true);
        int unavailable = scaledValue(maxUnavailable == null ? new IntOrString(0) : maxUnavailable, desired, false);
        if (surge == 0 && unavailable == 0) {
            unavailable = 1;
        }
        return new int[] {surge, unavailable};
    }

    public static int maxSurge(Deployment deployment) {
        if (!isRollingUpdate(deployment)) {
            return 0;
        }
        return resolveFenceposts(rollingMaxSurge(deployment), rollingMaxUnavailable(deployment), replicas(deployment))[0];
    }

    public static int maxUnavailable(Deployment deployment) {
        if (!isRollingUpdate(deployment) || replicas(deployment) == 0) {
            return 0;
        }
        int unavailable = resolveFenceposts(rollingMaxSurge(deployment), rollingMaxUnavailable(deployment), replicas(deployment))[1];
        return Math.min(unavailable, replicas(deployment));
    }

    private static IntOrString rollingMaxSurge(Deployment deployment) {
        return deployment.getSpec().getStrategy() == null || deployment.getSpec().getStrategy().getRollingUpdate() == null
                ? null
                : deployment.getSpec().getStrategy().getRollingUpdate().getMaxSurge();
    }

    private static IntOrString rollingMaxUnavailable(Deployment deployment) {
        return deployment.getSpec().getStrategy() == null || deployment.getSpec().getStrategy().getRollingUpdate() == null
                ? null
                : deployment.getSpec().getStrategy().getRollingUpdate().getMaxUnavailable();
    }

    /** How many replicas the new replica set should have now (upstream's {@code NewRSNewReplicas}). */
    public static int newReplicaSetNewReplicas(Deployment deployment, List<ReplicaSet> all, ReplicaSet newReplicaSet) {
        if (!isRollingUpdate(deployment)) {
            return replicas(deployment);
        }
        int surge = scaledValue(rollingMaxSurge(deployment) == null ? new IntOrString(0) : rollingMaxSurge(deployment), replicas(deployment), true);
        int current = specReplicas(all);
        int maxTotal = replicas(deployment) + surge;
        if (current >= maxTotal) {
            return replicas(newReplicaSet);
        }
        int scaleUp = Math.min(maxTotal - current, replicas(deployment) - replicas(newReplicaSet));
        return replicas(newReplicaSet) + scaleUp;
    }

    // Sums over replica sets (nulls skipped).

    public static int specReplicas(List<ReplicaSet> replicaSets) {
        return replicaSets.stream().filter(Objects::nonNull).mapToInt(DeploymentUtil::replicas).sum();
    }

    public static int actualReplicas(List<ReplicaSet> replicaSets) {
        return replicaSets.stream().filter(Objects::nonNull).mapToInt(DeploymentUtil::statusReplicas).sum();
    }

    public static int readyReplicas(List<ReplicaSet> replicaSets) {
        return replicaSets.stream().filter(Objects::nonNull).mapToInt(DeploymentUtil::readyReplicas).sum();
    }

    public static int availableReplicas(List<ReplicaSet> replicaSets) {
        return replicaSets.stream().filter(Objects::nonNull).mapToInt(DeploymentUtil::availableReplicas).sum();
    }

    /** Replica sets that want pods. */
    public static List<ReplicaSet> active(List<ReplicaSet> replicaSets) {
        return replicaSets.stream().filter(Objects::nonNull).filter(replicaSet -> replicas(replicaSet) > 0).toList();
    }

    // Orders.

    /** Older first, then by name (upstream's {@code ReplicaSetsByCreationTimestamp}). */
    public static final Comparator<ReplicaSet> BY_CREATION = Comparator
            .comparing((ReplicaSet replicaSet) -> creation(replicaSet))
            .thenComparing(replicaSet -> replicaSet.getMetadata().getName());

    /** Larger first; equal sizes newer first (upstream's {@code ReplicaSetsBySizeNewer}). */
    public static final Comparator<ReplicaSet> BY_SIZE_NEWER = Comparator
            .comparingInt((ReplicaSet replicaSet) -> -replicas(replicaSet))
            .thenComparing(BY_CREATION.reversed());

    /** Larger first; equal sizes older first (upstream's {@code ReplicaSetsBySizeOlder}). */
    public static final Comparator<ReplicaSet> BY_SIZE_OLDER = Comparator
            .comparingInt((ReplicaSet replicaSet) -> -replicas(replicaSet))
            .thenComparing(BY_CREATION);

    /** Lower revision first, equal revisions by creation (upstream's {@code ReplicaSetsByRevision}). */
    public static final Comparator<ReplicaSet> BY_REVISION = Comparator
            .comparingLong((ReplicaSet replicaSet) -> revision(replicaSet).orElse(0L))
            .thenComparing(BY_CREATION);

    private static Instant creation(ReplicaSet replicaSet) {
        String timestamp = replicaSet.getMetadata().getCreationTimestamp();
        return timestamp == null || timestamp.isEmpty() ? Instant.EPOCH : Instant.parse(timestamp);
    }

    // Revisions and annotations.

    /** The revision annotation; empty when missing or not a number. */
    public static Optional<Long> revision(ReplicaSet replicaSet) {
        Map<String, String> annotations = replicaSet.getMetadata().getAnnotations();
        String value = annotations == null ? null : annotations.get(REVISION_ANNOTATION);
        if (value == null || value.isEmpty()) {
            return Optional.empty();
        }
        try {
            return Optional.of(Long.parseLong(value));
        } catch (NumberFormatException e) {
            return Optional.empty();
        }
    }

    /** The highest revision among {@code replicaSets}, 0 when none has one. */
    public static long maxRevision(List<ReplicaSet> replicaSets) {
        return replicaSets.stream().filter(Objects::nonNull).map(DeploymentUtil::revision).flatMap(Optional::stream).mapToLong(Long::longValue).max().orElse(0);
    }

    /** Sets the deployment's revision annotation; true when it changed. */
    public static boolean setDeploymentRevision(Deployment deployment, String revision) {
        Map<String, String> annotations = annotations(deployment.getMetadata());
        if (Objects.equals(annotations.get(REVISION_ANNOTATION), revision)) {
            return false;
        }
        annotations.put(REVISION_ANNOTATION, revision);
        return true;
    }

    /**
     * Upstream's {@code SetNewReplicaSetAnnotations}: copies the deployment's own annotations, raises the revision
     * to {@code newRevision} (remembering the replaced one in revision-history when this is a rollback to an old
     * replica set), and for a replica set about to be created sets the desired and max replicas.
     *
     * @return whether any annotation changed
     */
    public static boolean setNewReplicaSetAnnotations(Deployment deployment, ReplicaSet replicaSet, String newRevision, boolean exists) {
        boolean changed = copyDeploymentAnnotations(deployment, replicaSet);
        Map<String, String> annotations = annotations(replicaSet.getMetadata());
        String oldRevision = annotations.get(REVISION_ANNOTATION);
        long oldRevisionNumber = 0;
        if (oldRevision != null && !oldRevision.isEmpty()) {
            try {
                oldRevisionNumber = Long.parseLong(oldRevision);
            } catch (NumberFormatException e) {
                return false;
            }
        }
        long newRevisionNumber;
        try {
            newRevisionNumber = Long.parseLong(newRevision);
        } catch (NumberFormatException e) {
            return false;
        }
        if (oldRevisionNumber < newRevisionNumber) {
            annotations.put(REVISION_ANNOTATION, newRevision);
            changed = true;
            if (oldRevision != null) {
                String history = annotations.getOrDefault(REVISION_HISTORY_ANNOTATION, "");
                if (history.isEmpty()) {
                    annotations.put(REVISION_HISTORY_ANNOTATION, oldRevision);
                } else {
                    List<String> revisions = new ArrayList<>(Arrays.asList(history.split(",")));
                    int totalLength = history.length() + oldRevision.length() + 1;
                    int start = 0;
                    while (totalLength > MAX_REVISION_HISTORY_LENGTH_IN_CHARS && start < revisions.size()) {
                        totalLength -= revisions.get(start).length() + 1;
                        start++;
                    }
                    if (totalLength <= MAX_REVISION_HISTORY_LENGTH_IN_CHARS) {
                        List<String> kept = new ArrayList<>(revisions.subList(start, revisions.size()));
                        kept.add(oldRevision);
                        annotations.put(REVISION_HISTORY_ANNOTATION, String.join(",", kept));
                    }
                }
            }
        }
        if (!exists && setReplicasAnnotations(replicaSet, replicas(deployment), replicas(deployment) + maxSurge(deployment))) {
            changed = true;
        }
        return changed;
    }

    private static boolean copyDeploymentAnnotations(Deployment deployment, ReplicaSet replicaSet) {
        Map<String, String> source = deployment.getMetadata().getAnnotations();
        if (source == null) {
            return false;
        }
        Map<String, String> target = annotations(replicaSet.getMetadata());
        boolean changed = false;
        for (Map.Entry<String, String> entry : source.entrySet()) {
            if (ANNOTATIONS_TO_SKIP.contains(entry.getKey()) || Objects.equals(target.get(entry.getKey()), entry.getValue())) {
                continue;
            }
            target.put(entry.getKey(), entry.getValue());
            changed = true;
        }
        return changed;
    }

    /** Sets desired-replicas and max-replicas; true when either changed. */
    public static boolean setReplicasAnnotations(ReplicaSet replicaSet, int desired, int max) {
        Map<String, String> annotations = annotations(replicaSet.getMetadata());
        boolean changed = false;
        if (!Integer.toString(desired).equals(annotations.get(DESIRED_REPLICAS_ANNOTATION))) {
            annotations.put(DESIRED_REPLICAS_ANNOTATION, Integer.toString(desired));
            changed = true;
        }
        if (!Integer.toString(max).equals(annotations.get(MAX_REPLICAS_ANNOTATION))) {
            annotations.put(MAX_REPLICAS_ANNOTATION, Integer.toString(max));
            changed = true;
        }
        return changed;
    }

    public static boolean replicasAnnotationsNeedUpdate(ReplicaSet replicaSet, int desired, int max) {
        Map<String, String> annotations = replicaSet.getMetadata().getAnnotations();
        if (annotations == null) {
            return true;
        }
        return !Integer.toString(desired).equals(annotations.get(DESIRED_REPLICAS_ANNOTATION))
                || !Integer.toString(max).equals(annotations.get(MAX_REPLICAS_ANNOTATION));
    }

    static Optional<Integer> intAnnotation(ReplicaSet replicaSet, String key) {
        Map<String, String> annotations = replicaSet.getMetadata().getAnnotations();
        String value = annotations == null ? null : annotations.get(key);
        if (value == null) {
            return Optional.empty();
        }
        try {
            return Optional.of(Integer.parseInt(value));
        } catch (NumberFormatException e) {
            return Optional.empty();
        }
    }

    private static Map<String, String> annotations(io.fabric8.kubernetes.api.model.ObjectMeta metadata) {
        if (metadata.getAnnotations() == null) {
            metadata.setAnnotations(new HashMap<>());
        } else if (!(metadata.getAnnotations() instanceof HashMap)) {
            metadata.setAnnotations(new HashMap<>(metadata.getAnnotations()));
        }
        return metadata.getAnnotations();
    }

    // Saturation and proportional scaling.

    /** The new replica set runs exactly the deployment's replicas, all available. */
    public static boolean isSaturated(Deployment deployment, ReplicaSet replicaSet) {
        if (replicaSet == null) {
            return false;
        }
        Optional<Integer> desired = intAnnotation(replicaSet, DESIRED_REPLICAS_ANNOTATION);
        return desired.isPresent() && desired.get() == replicas(deployment)
                && replicas(replicaSet) == replicas(deployment)
                && availableReplicas(replicaSet) == replicas(deployment);
    }

    /** The only active replica set, or the newest one when none is active; null when several are active. */
    public static ReplicaSet findActiveOrLatest(ReplicaSet newReplicaSet, List<ReplicaSet> oldReplicaSets) {
        if (newReplicaSet == null && oldReplicaSets.isEmpty()) {
            return null;
        }
        List<ReplicaSet> newestFirst = new ArrayList<>(oldReplicaSets);
        newestFirst.sort(BY_CREATION.reversed());
        List<ReplicaSet> all = new ArrayList<>(newestFirst);
        all.add(newReplicaSet);
        List<ReplicaSet> active = active(all);
        return switch (active.size()) {
            case 0 -> newReplicaSet != null ? newReplicaSet : newestFirst.get(0);
            case 1 -> active.get(0);
            default -> null;
        };
    }

    /**
     * How many replicas to add to (or, negative, remove from) {@code replicaSet} in a proportional scale of
     * {@code toAdd} of which {@code added} are already handed out (upstream's {@code GetProportion}).
     */
    public static int proportion(ReplicaSet replicaSet, Deployment deployment, int toAdd, int added) {
        if (replicaSet == null || replicas(replicaSet) == 0 || toAdd == 0 || toAdd == added) {
            return 0;
        }
        int fraction = replicaSetFraction(replicaSet, deployment);
        int allowed = toAdd - added;
        return toAdd > 0 ? Math.min(fraction, allowed) : Math.max(fraction, allowed);
    }

    private static int replicaSetFraction(ReplicaSet replicaSet, Deployment deployment) {
        if (replicas(deployment) == 0) {
            return -replicas(replicaSet);
        }
        int deploymentMaxReplicas = replicas(deployment) + maxSurge(deployment);
        int maxBeforeScale = intAnnotation(replicaSet, MAX_REPLICAS_ANNOTATION).orElse(0);
        if (maxBeforeScale == 0) {
            // Not annotated (adopted, say): fall back to the deployment's current size.
            maxBeforeScale = deployment.getStatus() == null ? 0 : value(deployment.getStatus().getReplicas());
            if (maxBeforeScale == 0) {
                return 0;
            }
        }
        double newSize = (double) replicas(replicaSet) * deploymentMaxReplicas / maxBeforeScale;
        return (int) roundHalfAwayFromZero(newSize) - replicas(replicaSet);
    }

    private static long roundHalfAwayFromZero(double value) {
        return value < 0 ? -Math.round(-value) : Math.round(value);
    }

    // Templates.

    /** Equal templates apart from the pod-template-hash label (upstream's {@code EqualIgnoreHash}). */
    public static boolean equalIgnoreHash(PodTemplateSpec first, PodTemplateSpec second) {
        return Objects.equals(withoutHash(first), withoutHash(second));
    }

    private static PodTemplateSpec withoutHash(PodTemplateSpec template) {
        if (template == null) {
            return null;
        }
        PodTemplateSpec copy = new PodTemplateSpecBuilder(template).build();
        if (copy.getMetadata() != null && copy.getMetadata().getLabels() != null) {
            Map<String, String> labels = new HashMap<>(copy.getMetadata().getLabels());
            labels.remove(POD_TEMPLATE_HASH_LABEL);
            copy.getMetadata().setLabels(labels);
        }
        return copy;
    }

    /**
     * The pod-template-hash of a template: FNV-32a over its canonical JSON, followed by the collision count when
     * set, written as upstream does (the decimal hash with each digit mapped into a vowel-free alphabet), so names
     * look like upstream's {@code web-7d9c8f6b5}.
     */
    public static String computeHash(PodTemplateSpec template, Integer collisionCount) {
        byte[] bytes;
        try {
            bytes = CANONICAL.writeValueAsBytes(template);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("cannot serialize pod template", e);
        }
        int hash = 0x811c9dc5;
        for (byte b : bytes) {
            hash ^= b & 0xff;
            hash *= 0x01000193;
        }
        if (collisionCount != null) {
            // Upstream writes the count as 8 little-endian bytes (a uint32 in an 8-byte buffer).
            long count = Integer.toUnsignedLong(collisionCount);
            for (int shift = 0; shift < 64; shift += 8) {
                hash ^= (int) ((count >>> shift) & 0xff);
                hash *= 0x01000193;
            }
        }
        String decimal = Integer.toUnsignedString(hash);
        StringBuilder encoded = new StringBuilder(decimal.length());
        for (char digit : decimal.toCharArray()) {
            encoded.append(SAFE_ALPHABET.charAt(digit % SAFE_ALPHABET.length()));
        }
        return encoded.toString();
    }

    // Conditions.

    public static Optional<DeploymentCondition> condition(DeploymentStatus status, String type) {
        if (status == null || status.getConditions() == null) {
            return Optional.empty();
        }
        return status.getConditions().stream().filter(condition -> type.equals(condition.getType())).findFirst();
    }

    public static DeploymentCondition newCondition(String type, String status, String reason, String message, Instant now) {
        String time = timestamp(now);
        return new DeploymentConditionBuilder()
                .withType(type)
                .withStatus(status)
                .withReason(reason)
                .withMessage(message)
                .withLastUpdateTime(time)
                .withLastTransitionTime(time)
                .build();
    }

    /**
     * Upstream's {@code SetDeploymentCondition}: no change when status and reason are the same; the transition time
     * is kept when only the reason changes.
     */
    public static void setCondition(DeploymentStatus status, DeploymentCondition condition) {
        Optional<DeploymentCondition> current = condition(status, condition.getType());
        if (current.isPresent() && Objects.equals(current.get().getStatus(), condition.getStatus())
                && Objects.equals(current.get().getReason(), condition.getReason())) {
            return;
        }
        if (current.isPresent() && Objects.equals(current.get().getStatus(), condition.getStatus())) {
            condition.setLastTransitionTime(current.get().getLastTransitionTime());
        }
        List<DeploymentCondition> conditions = new ArrayList<>();
        if (status.getConditions() != null) {
            status.getConditions().stream().filter(existing -> !condition.getType().equals(existing.getType())).forEach(conditions::add);
        }
        conditions.add(condition);
        status.setConditions(conditions);
    }

    public static void removeCondition(DeploymentStatus status, String type) {
        if (status.getConditions() == null) {
            return;
        }
        status.setConditions(new ArrayList<>(status.getConditions().stream().filter(condition -> !type.equals(condition.getType())).toList()));
    }

    static DeploymentCondition fromReplicaSetCondition(ReplicaSetCondition condition) {
        return new DeploymentConditionBuilder()
                .withType(condition.getType())
                .withStatus(condition.getStatus())
                .withLastTransitionTime(condition.getLastTransitionTime())
                .withLastUpdateTime(condition.getLastTransitionTime())
                .withReason(condition.getReason())
                .withMessage(condition.getMessage())
                .build();
    }

    static String timestamp(Instant instant) {
        return instant.truncatedTo(ChronoUnit.SECONDS).toString();
    }

    // Progress.

    /** All replicas updated and available, and the latest generation observed. */
    public static boolean deploymentComplete(Deployment deployment, DeploymentStatus status) {
        int desired = replicas(deployment);
        return value(status.getUpdatedReplicas()) == desired
                && value(status.getReplicas()) == desired
                && value(status.getAvailableReplicas()) == desired
                && (status.getObservedGeneration() == null ? 0 : status.getObservedGeneration())
                        >= (deployment.getMetadata().getGeneration() == null ? 0 : deployment.getMetadata().getGeneration());
    }

    /** Something moved forward since the stored status: more updated, fewer old, more ready or more available. */
    public static boolean deploymentProgressing(Deployment deployment, DeploymentStatus status) {
        DeploymentStatus old = deployment.getStatus() == null ? new DeploymentStatus() : deployment.getStatus();
        int oldOldReplicas = value(old.getReplicas()) - value(old.getUpdatedReplicas());
        int newOldReplicas = value(status.getReplicas()) - value(status.getUpdatedReplicas());
        return value(status.getUpdatedReplicas()) > value(old.getUpdatedReplicas())
                || newOldReplicas < oldOldReplicas
                || value(status.getReadyReplicas()) > value(old.getReadyReplicas())
                || value(status.getAvailableReplicas()) > value(old.getAvailableReplicas());
    }

    /** No progress reported for longer than progressDeadlineSeconds. */
    public static boolean deploymentTimedOut(Deployment deployment, DeploymentStatus status, Instant now) {
        if (!hasProgressDeadline(deployment)) {
            return false;
        }
        Optional<DeploymentCondition> condition = condition(status, PROGRESSING);
        if (condition.isEmpty()) {
            return false;
        }
        if (NEW_REPLICA_SET_AVAILABLE_REASON.equals(condition.get().getReason())) {
            return false;
        }
        if (TIMED_OUT_REASON.equals(condition.get().getReason())) {
            return true;
        }
        String lastUpdate = condition.get().getLastUpdateTime();
        if (lastUpdate == null || lastUpdate.isEmpty()) {
            return false;
        }
        Instant deadline = Instant.parse(lastUpdate).plus(Duration.ofSeconds(deployment.getSpec().getProgressDeadlineSeconds()));
        return deadline.isBefore(now);
    }
}
