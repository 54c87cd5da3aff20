package io.k4j.launcher.images;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;

/**
 * How one image is made from what the host has (Debian packages, host binaries, a compiler). {@link ImageCache}
 * asks for the {@linkplain #inputs inputs} first and builds only when they changed since the last build.
 */
public sealed interface ImageRecipe permits BusyboxImage, PauseImage, NginxImage {
    /** The repository name under {@code library/}, e.g. {@code busybox}. */
    String name();

    /**
     * A description of everything the image is made from (package versions, file digests, the recipe's own version),
     * cheap to compute: equal inputs mean an equal image. May fetch packages into {@code workArea}'s cache.
     */
    String inputs(Progress progress) throws IOException;

    /** The tags to give the image, e.g. {@code latest} and {@code 1.35.0}; known after {@link #inputs}. */
    List<String> tags();

    /** Builds the image; {@code workDirectory} is an empty scratch directory deleted afterwards. */
    ImageDefinition build(Path workDirectory, Progress progress) throws IOException;
}
