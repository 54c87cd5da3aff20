package io.k4j.launcher.images;

import static java.util.Objects.requireNonNull;

import java.util.List;

/**
 * The runtime part of an image's configuration (the OCI config's {@code config} object): what a container of the
 * image runs unless its pod says otherwise.
 *
 * @param entrypoint the entrypoint (empty for none)
 * @param command the default command ({@code Cmd})
 * @param environment {@code NAME=value} pairs
 * @param exposedPorts ports such as {@code 80/tcp}
 * @param workingDirectory the working directory
 * @param stopSignal the signal that stops a container gracefully, e.g. {@code SIGQUIT} for nginx; empty for SIGTERM
 */
public record ImageConfig(
        List<String> entrypoint,
        List<String> command,
        List<String> environment,
        List<String> exposedPorts,
        String workingDirectory,
        String stopSignal) {
    public static final String DEFAULT_PATH = "PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin";

    public ImageConfig {
        entrypoint = List.copyOf(entrypoint);
        command = List.copyOf(command);
        environment = List.copyOf(environment);
        exposedPorts = List.copyOf(exposedPorts);
        requireNonNull(workingDirectory, "workingDirectory is null");
        requireNonNull(stopSignal, "stopSignal is null");
    }
}
