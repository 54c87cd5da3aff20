package io.k4j.launcher.images;

import static java.util.Objects.requireNonNull;

import java.util.List;

/**
 * An image in the {@link ImageCache}'s OCI layout: its repository name ({@code busybox}), its tags and its manifest.
 *
 * @param rebuilt whether this run built it (false when the cached image matched its inputs)
 */
public record BuiltImage(String name, List<String> tags, OciLayout.Descriptor manifest, boolean rebuilt) {
    public BuiltImage {
        requireNonNull(name, "name is null");
        tags = List.copyOf(tags);
        requireNonNull(manifest, "manifest is null");
    }

    /** The repository in a registry: Docker Hub's official images live under {@code library/}. */
    public String repository() {
        return "library/" + name;
    }
}
