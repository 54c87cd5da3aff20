package io.k4j.scheduler.plugins.imagelocality;

import static java.util.Objects.requireNonNull;

import io.fabric8.kubernetes.api.model.Container;
import io.k4j.scheduler.framework.CycleState;
import io.k4j.scheduler.framework.FrameworkHandle;
import io.k4j.scheduler.framework.ImageStateSummary;
import io.k4j.scheduler.framework.NodeInfo;
import io.k4j.scheduler.framework.PodInfo;
import io.k4j.scheduler.framework.ScorePlugin;
import io.k4j.scheduler.plugins.Names;
import java.util.List;
import java.util.Map;

/**
 * Prefers nodes that already have the pod's images, weighting each image by its size and by how widely it is spread
 * (an image on every node says little), between 23 MB and 1000 MB per container as upstream. Thread-safe.
 */
public final class ImageLocality implements ScorePlugin {
    public static final String NAME = Names.IMAGE_LOCALITY;
    private static final long MEBIBYTE = 1024 * 1024;
    private static final long MIN_THRESHOLD = 23 * MEBIBYTE;
    private static final long MAX_CONTAINER_THRESHOLD = 1000 * MEBIBYTE;

    private final FrameworkHandle handle;

    public ImageLocality(FrameworkHandle handle) {
        this.handle = requireNonNull(handle, "handle is null");
    }

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public long score(CycleState state, PodInfo pod, NodeInfo nodeInfo) {
        Map<String, ImageStateSummary> images = nodeInfo.imageStates();
        int totalNodes = Math.max(1, handle.snapshot().numNodes());
        List<Container> containers = pod.pod().getSpec().getContainers() == null ? List.of() : pod.pod().getSpec().getContainers();
        List<Container> initContainers = pod.pod().getSpec().getInitContainers() == null ? List.of() : pod.pod().getSpec().getInitContainers();
        int numContainers = containers.size() + initContainers.size();
        if (images.isEmpty()) {
            return calculatePriority(0, numContainers);
        }
        long sum = sumImageScores(images, initContainers, totalNodes) + sumImageScores(images, containers, totalNodes);
        return calculatePriority(sum, numContainers);
    }

    private static long sumImageScores(Map<String, ImageStateSummary> images, List<Container> containers, int totalNodes) {
        long sum = 0;
        for (Container container : containers) {
            if (container.getImage() == null) {
                continue;
            }
            ImageStateSummary summary = images.get(normalizedImageName(container.getImage()));
            if (summary != null) {
                sum += (long) (summary.sizeBytes() * ((double) summary.numNodes() / totalNodes));
            }
        }
        return sum;
    }

    static long calculatePriority(long sumScores, int numContainers) {
        long maxThreshold = MAX_CONTAINER_THRESHOLD * Math.max(1, numContainers);
        long clamped = Math.max(MIN_THRESHOLD, Math.min(maxThreshold, sumScores));
        return MAX_NODE_SCORE * (clamped - MIN_THRESHOLD) / (maxThreshold - MIN_THRESHOLD);
    }

    /** Adds {@code :latest} to an image without tag or digest, as nodes report images with their tags. */
    static String normalizedImageName(String image) {
        int lastSlash = image.lastIndexOf('/');
        String lastPart = image.substring(lastSlash + 1);
        if (!lastPart.contains(":") && !image.contains("@")) {
            return image + ":latest";
        }
        return image;
    }
}
