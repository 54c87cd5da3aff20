package io.k4j.kubelet.podworkers;

import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.fabric8.kubernetes.api.model.Pod;
import java.util.Objects;

/**
 * Which pod updates the kubelet must sync for, as upstream's pod config tells an update from a reconcile: a change of
 * the spec, labels, annotations, deletion timestamp or grace period, or of the phase. An update that only carries
 * status the kubelet wrote itself (a new waiting reason, a condition) must not sync the pod again, or a failure's
 * first reason (ErrImagePull, RunContainerError) would at once be replaced by its back-off. Stateless and thread-safe.
 */
public final class PodChanges {
    private PodChanges() {}

    public static boolean needsSync(Pod previous, Pod current) {
        ObjectMeta before = previous.getMetadata();
        ObjectMeta after = current.getMetadata();
        return !Objects.equals(previous.getSpec(), current.getSpec())
                || !Objects.equals(before.getLabels(), after.getLabels())
                || !Objects.equals(before.getAnnotations(), after.getAnnotations())
                || !Objects.equals(before.getDeletionTimestamp(), after.getDeletionTimestamp())
                || !Objects.equals(before.getDeletionGracePeriodSeconds(), after.getDeletionGracePeriodSeconds())
                || !Objects.equals(before.getUid(), after.getUid())
                || !Objects.equals(phase(previous), phase(current));
    }

    private static String phase(Pod pod) {
        return pod.getStatus() == null ? null : pod.getStatus().getPhase();
    }
}
