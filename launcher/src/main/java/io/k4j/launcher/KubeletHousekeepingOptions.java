package io.k4j.launcher;

import io.k4j.kubelet.eviction.EvictionThresholds;
import io.k4j.kubelet.eviction.Threshold;
import io.k4j.kubelet.images.ImageGcPolicy;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import picocli.CommandLine;
import picocli.CommandLine.Option;

/**
 * The real node's housekeeping flags, the same for {@code k4j server} and {@code k4j agent}: static pods, hard eviction
 * thresholds and image garbage collection (upstream kubelet's names).
 */
final class KubeletHousekeepingOptions {
    @Option(names = "--pod-manifest-path",
            description = "Directory (or file) of static pod manifests the node runs (default: pod-manifests in the node's directory).")
    Path podManifestPath;

    @Option(names = "--eviction-hard", defaultValue = EvictionThresholds.DEFAULT_HARD, converter = EvictionHardConverter.class,
            description = "Hard eviction thresholds, as upstream's kubelet; giving it replaces all defaults (default ${DEFAULT-VALUE}).")
    String evictionHard;

    @Option(names = "--image-gc-high-threshold", defaultValue = "85",
            description = "Image file system usage percent from which unused images are deleted (default ${DEFAULT-VALUE}).")
    int imageGcHighThreshold;

    @Option(names = "--image-gc-low-threshold", defaultValue = "80",
            description = "Image file system usage percent image garbage collection frees down to (default ${DEFAULT-VALUE}).")
    int imageGcLowThreshold;

    @Option(names = "--minimum-image-ttl-duration", defaultValue = "2m", converter = GoDurationConverter.class,
            description = "Minimum age of an unused image before it is garbage collected (default ${DEFAULT-VALUE}).")
    Duration minimumImageTtlDuration;

    Optional<Path> podManifestPath() {
        return Optional.ofNullable(podManifestPath);
    }

    List<Threshold> evictionHard() {
        return EvictionThresholds.parse(evictionHard);
    }

    ImageGcPolicy imageGcPolicy() {
        return new ImageGcPolicy(imageGcHighThreshold, imageGcLowThreshold, minimumImageTtlDuration);
    }

    /** Checks {@code --eviction-hard} while the command line is parsed, so that a bad one is a usage error. */
    static final class EvictionHardConverter implements CommandLine.ITypeConverter<String> {
        @Override
        public String convert(String value) {
            try {
                EvictionThresholds.parse(value);
                return value;
            }
            catch (IllegalArgumentException e) {
                throw new CommandLine.TypeConversionException(e.getMessage());
            }
        }
    }
}
