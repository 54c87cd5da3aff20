package io.k4j.kubelet.images;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.k4j.controllerkit.testing.MutableClock;
import io.k4j.kubelet.cri.ImageService;
import io.k4j.kubelet.cri.v1.AuthConfig;
import io.k4j.kubelet.cri.v1.Container;
import io.k4j.kubelet.cri.v1.Image;
import io.k4j.kubelet.cri.v1.ImageFilter;
import io.k4j.kubelet.cri.v1.ImageFsInfoResponse;
import io.k4j.kubelet.cri.v1.ImageSpec;
import io.k4j.kubelet.cri.v1.PodSandboxConfig;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

class ImageGarbageCollectorTest {
    private static final long GIB = 1024L * 1024 * 1024;

    /** Images by id with their sizes; removing one frees its size on the fake file system. */
    private static final class FakeImageService implements ImageService {
        final Map<String, Image> images = new LinkedHashMap<>();
        final List<String> removed = new ArrayList<>();
        long capacity = 100 * GIB;
        long used;

        void add(String id, String tag, long size, boolean pinned) {
            images.put(id, Image.newBuilder().setId(id).addRepoTags(tag).setSize(size).setPinned(pinned).build());
            used += size;
        }

        Optional<ImageGarbageCollector.FilesystemUsage> usage() {
            return Optional.of(new ImageGarbageCollector.FilesystemUsage(capacity, capacity - used));
        }

        @Override
        public List<Image> listImages(ImageFilter filter) {
            return List.copyOf(images.values());
        }

        @Override
        public Optional<Image> imageStatus(ImageSpec image) {
            return Optional.ofNullable(images.get(image.getImage()));
        }

        @Override
        public String pullImage(ImageSpec image, AuthConfig auth, PodSandboxConfig sandboxConfig) {
            throw new UnsupportedOperationException("no pulls in these tests");
        }

        @Override
        public void removeImage(ImageSpec image) {
            Image gone = images.remove(image.getImage());
            if (gone != null) {
                removed.add(gone.getId());
                used -= gone.getSize();
            }
        }

        @Override
        public ImageFsInfoResponse imageFsInfo() {
            return ImageFsInfoResponse.getDefaultInstance();
        }
    }

    private final FakeImageService images = new FakeImageService();
    private final List<Container> containers = new ArrayList<>();
    private final MutableClock clock = new MutableClock(Instant.parse("2026-01-01T00:00:00Z"));
    private final ImageGarbageCollector collector = new ImageGarbageCollector(images, () -> List.copyOf(containers),
            "docker.io/library/pause:3.10", ImageGcPolicy.DEFAULT, images::usage, clock);

    private void useImage(String id) {
        containers.add(Container.newBuilder().setId("c-" + id).setImageRef(id).build());
    }

    @Test
    void belowTheHighThresholdNothingIsDeleted() {
        images.add("sha256:a", "docker.io/library/a:1", 84 * GIB, false);
        collector.deleteUnusedImages();
        clock.advance(Duration.ofHours(1));

        assertThat(collector.garbageCollect()).isZero();
        assertThat(images.removed).isEmpty();
    }

    @Test
    void aboveTheHighThresholdUnusedImagesGoLeastRecentlyUsedFirstDownToTheLowThreshold() {
        images.add("sha256:old", "docker.io/library/old:1", 3 * GIB, false);
        images.add("sha256:recent", "docker.io/library/recent:1", 3 * GIB, false);
        images.add("sha256:busy", "docker.io/library/busy:1", 40 * GIB, false);
        images.add("sha256:pause", "docker.io/library/pause:3.10", GIB, false);
        images.add("sha256:pinned", "docker.io/library/pinned:1", GIB, true);
        images.add("sha256:filler", "docker.io/library/filler:1", 38 * GIB, false);
        useImage("sha256:filler");
        useImage("sha256:old");
        // 86 % full, but every image is younger than the minimum age of 2 minutes.
        assertThatThrownBy(collector::garbageCollect).hasMessageContaining("but only found 0 bytes eligible to free");
        clock.advance(Duration.ofMinutes(1));
        containers.removeIf(container -> container.getImageRef().equals("sha256:old"));
        useImage("sha256:recent");
        collector.deleteUnusedImages(); // detects: recent used now, old used a minute ago; nothing old enough
        assertThat(images.removed).isEmpty();
        containers.removeIf(container -> container.getImageRef().equals("sha256:recent"));
        clock.advance(Duration.ofMinutes(2));
        useImage("sha256:busy");

        long freed = collector.garbageCollect(); // 86 GiB of 100 used: free 6 GiB to reach 80 %

        assertThat(freed).isEqualTo(6 * GIB);
        assertThat(images.removed).containsExactly("sha256:old", "sha256:recent");
        assertThat(images.images).containsKeys("sha256:busy", "sha256:pause", "sha256:pinned", "sha256:filler");
    }

    @Test
    void notEnoughUnusedImagesIsAnErrorWithUpstreamsMessage() {
        images.add("sha256:busy", "docker.io/library/busy:1", 90 * GIB, false);
        images.add("sha256:small", "docker.io/library/small:1", GIB, false);
        useImage("sha256:busy");
        collector.deleteUnusedImages();
        clock.advance(Duration.ofMinutes(3));

        assertThatThrownBy(collector::garbageCollect)
                .hasMessage("Failed to garbage collect required amount of images. Attempted to free " + 11 * GIB
                        + " bytes, but only found " + GIB + " bytes eligible to free.");
        assertThat(images.removed).containsExactly("sha256:small");
    }

    @Test
    void theSandboxImageIsNeverDeletedWhateverItsTag() {
        images.add("sha256:pause", "pause:3.10", GIB, false);
        images.add("sha256:other", "busybox", GIB, false);
        collector.deleteUnusedImages();
        clock.advance(Duration.ofMinutes(3));

        assertThat(collector.deleteUnusedImages()).isEqualTo(GIB);
        assertThat(images.removed).containsExactly("sha256:other");
    }

    @Test
    void thePolicyIsValidatedAsUpstream() {
        assertThatThrownBy(() -> new ImageGcPolicy(101, 80, Duration.ZERO))
                .hasMessage("invalid HighThresholdPercent 101, must be in range [0-100]");
        assertThatThrownBy(() -> new ImageGcPolicy(70, 80, Duration.ZERO))
                .hasMessage("LowThresholdPercent 80 can not be higher than HighThresholdPercent 70");
    }
}
