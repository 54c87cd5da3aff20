package io.k4j.kubelet.images;

import static java.util.Objects.requireNonNull;

import io.k4j.kubelet.cri.CriException;
import io.k4j.kubelet.cri.ImageService;
import io.k4j.kubelet.cri.v1.Container;
import io.k4j.kubelet.cri.v1.Image;
import io.k4j.kubelet.cri.v1.ImageFilter;
import io.k4j.kubelet.cri.v1.ImageSpec;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/**
 * The kubelet's image garbage collector, as upstream's image GC manager: remembers when it first saw each image and
 * when a container last used it; when the image file system is fuller than the policy's high threshold it deletes
 * unused images through CRI RemoveImage, least recently used first (then first detected first), until usage is back
 * at the low threshold. Never deletes an image a container (running or exited) uses, the sandbox image, an image the
 * runtime pins, or an image younger than the policy's minimum age. The eviction manager calls
 * {@link #deleteUnusedImages} under disk pressure.
 *
 * <p>Thread-safe (one collection at a time).
 */
public final class ImageGarbageCollector implements AutoCloseable {
    /** Upstream's ImageGCPeriod. */
    public static final Duration PERIOD = Duration.ofMinutes(5);
    private static final Logger log = LoggerFactory.getLogger(ImageGarbageCollector.class);

    /** The image file system's size and free space, in bytes. */
    public record FilesystemUsage(long capacityBytes, long availableBytes) {}

    private record ImageRecord(Instant firstDetected, Instant lastUsed, long size, boolean pinned) {}

    private final ImageService images;
    private final Supplier<List<Container>> containers;
    private final String sandboxImage;
    private final ImageGcPolicy policy;
    private final Supplier<Optional<FilesystemUsage>> filesystem;
    private final InstantSource clock;
    private final Map<String, ImageRecord> records = new HashMap<>();
    private final ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor(
            Thread.ofPlatform().daemon().name("k4j-kubelet-image-gc").factory());

    /**
     * @param containers every container of the runtime, running or exited (CRI ListContainers)
     * @param sandboxImage the runtime's sandbox (pause) image reference, never deleted
     * @param filesystem the image file system's usage, if known
     */
    public ImageGarbageCollector(ImageService images, Supplier<List<Container>> containers, String sandboxImage,
            ImageGcPolicy policy, Supplier<Optional<FilesystemUsage>> filesystem, InstantSource clock) {
        this.images = requireNonNull(images, "images is null");
        this.containers = requireNonNull(containers, "containers is null");
        this.sandboxImage = requireNonNull(sandboxImage, "sandboxImage is null");
        this.policy = requireNonNull(policy, "policy is null");
        this.filesystem = requireNonNull(filesystem, "filesystem is null");
        this.clock = requireNonNull(clock, "clock is null");
    }

    /** Detects the images now (so their minimum age counts from the kubelet's start) and collects every period. */
    public void start(Duration period) {
        timer.execute(this::detectQuietly);
        timer.scheduleWithFixedDelay(() -> {
            try {
                garbageCollect();
            }
            catch (RuntimeException e) {
                log.warn("Image garbage collection failed: {}", e.getMessage());
            }
        }, period.toMillis(), period.toMillis(), TimeUnit.MILLISECONDS);
    }

    private void detectQuietly() {
        try {
            detectImages(clock.instant());
        }
        catch (RuntimeException e) {
            log.debug("Detecting images failed: {}", e.getMessage());
        }
    }

    /**
     * Frees space down to the low threshold if usage reached the high threshold.
     *
     * @return the bytes freed
     * @throws IllegalStateException with upstream's message when not enough unused images could be freed
     */
    public synchronized long garbageCollect() {
        Optional<FilesystemUsage> usage = filesystem.get();
        if (usage.isEmpty()) {
            return 0;
        }
        long capacity = usage.get().capacityBytes();
        long available = Math.min(usage.get().availableBytes(), capacity);
        if (capacity <= 0) {
            throw new IllegalStateException("invalid capacity " + capacity + " on image filesystem");
        }
        int usagePercent = 100 - (int) (available * 100 / capacity);
        if (usagePercent < policy.highThresholdPercent()) {
            detectImages(clock.instant());
            return 0;
        }
        long amountToFree = capacity * (100 - policy.lowThresholdPercent()) / 100 - available;
        log.info("Disk usage on image filesystem is over the high threshold, trying to free bytes down to the low "
                + "threshold: usage {}%, high threshold {}%, amount to free {} bytes, low threshold {}%",
                usagePercent, policy.highThresholdPercent(), amountToFree, policy.lowThresholdPercent());
        long freed = freeSpace(amountToFree, clock.instant());
        if (freed < amountToFree) {
            throw new IllegalStateException("Failed to garbage collect required amount of images. Attempted to free "
                    + amountToFree + " bytes, but only found " + freed + " bytes eligible to free.");
        }
        return freed;
    }

    /** Deletes every unused image old enough, whatever the usage (the eviction manager's node-level reclaim). */
    public synchronized long deleteUnusedImages() {
        return freeSpace(Long.MAX_VALUE, clock.instant());
    }

    private long freeSpace(long bytesToFree, Instant freeTime) {
        Set<String> inUse = detectImages(freeTime);
        List<Map.Entry<String, ImageRecord>> candidates = new ArrayList<>();
        for (Map.Entry<String, ImageRecord> entry : records.entrySet()) {
            if (!inUse.contains(entry.getKey()) && !entry.getValue().pinned()) {
                candidates.add(entry);
            }
        }
        candidates.sort(Comparator.comparing((Map.Entry<String, ImageRecord> entry) -> entry.getValue().lastUsed())
                .thenComparing(entry -> entry.getValue().firstDetected()));
        long freed = 0;
        for (Map.Entry<String, ImageRecord> candidate : candidates) {
            ImageRecord record = candidate.getValue();
            if (!record.lastUsed().isBefore(freeTime)
                    || Duration.between(record.firstDetected(), freeTime).compareTo(policy.minimumAge()) < 0) {
                continue;
            }
            log.info("Removing image {} to free {} bytes", candidate.getKey(), record.size());
            try {
                images.removeImage(ImageSpec.newBuilder().setImage(candidate.getKey()).build());
            }
            catch (CriException e) {
                log.warn("Removing image {} failed: {}", candidate.getKey(), e.getMessage());
                continue;
            }
            records.remove(candidate.getKey());
            freed += record.size();
            if (freed >= bytesToFree) {
                break;
            }
        }
        return freed;
    }

    /** Updates the records; returns the image ids in use (by any container, or the sandbox image). */
    private Set<String> detectImages(Instant detectTime) {
        List<Image> listed = images.listImages(ImageFilter.getDefaultInstance());
        Set<String> inUse = new HashSet<>();
        for (Container container : containers.get()) {
            if (!container.getImageRef().isEmpty()) {
                inUse.add(container.getImageRef());
            }
            if (!container.getImageId().isEmpty()) {
                inUse.add(container.getImageId());
            }
        }
        for (Image image : listed) {
            if (isSandboxImage(image)) {
                inUse.add(image.getId());
            }
        }
        Set<String> present = new HashSet<>();
        for (Image image : listed) {
            String id = image.getId();
            present.add(id);
            ImageRecord previous = records.get(id);
            Instant firstDetected = previous == null ? detectTime : previous.firstDetected();
            Instant lastUsed = inUse.contains(id) ? detectTime
                    : previous == null ? Instant.EPOCH : previous.lastUsed();
            records.put(id, new ImageRecord(firstDetected, lastUsed, image.getSize(), image.getPinned()));
        }
        records.keySet().retainAll(present);
        return inUse;
    }

    private boolean isSandboxImage(Image image) {
        String normalized = normalize(sandboxImage);
        return image.getId().equals(sandboxImage)
                || image.getRepoTagsList().stream().anyMatch(tag -> normalize(tag).equals(normalized))
                || image.getRepoDigestsList().stream().anyMatch(digest -> digest.equals(sandboxImage));
    }

    /** {@code pause:3.10} and {@code docker.io/library/pause:3.10} name the same image. */
    private static String normalize(String reference) {
        String withRegistry = reference.contains("/") && isRegistry(reference.substring(0, reference.indexOf('/')))
                ? reference
                : "docker.io/" + (reference.contains("/") ? reference : "library/" + reference);
        int slash = withRegistry.lastIndexOf('/');
        return withRegistry.indexOf(':', slash) < 0 && !withRegistry.contains("@") ? withRegistry + ":latest" : withRegistry;
    }

    private static boolean isRegistry(String component) {
        return component.contains(".") || component.contains(":") || component.equals("localhost");
    }

    @Override
    public void close() {
        timer.shutdownNow();
    }
}
