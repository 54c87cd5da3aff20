package io.k4j.launcher.images;

import static java.util.Objects.requireNonNull;

/**
 * A single-layer image ready to be written: its root file system, its configuration and one line saying how it was
 * made (the config's history).
 */
public record ImageDefinition(ImageFilesystem filesystem, ImageConfig config, String createdBy) {
    public ImageDefinition {
        requireNonNull(filesystem, "filesystem is null");
        requireNonNull(config, "config is null");
        requireNonNull(createdBy, "createdBy is null");
    }
}
