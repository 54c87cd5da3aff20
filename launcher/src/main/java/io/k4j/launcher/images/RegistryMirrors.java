package io.k4j.launcher.images;

import java.io.IOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Writes containerd's registry host configuration (CRI {@code registry.config_path}, containerd 1.6's
 * {@code hosts.toml} format, one directory per registry host) so that {@code docker.io} images resolve through the
 * local registry first: {@code image: nginx} pulls {@code docker.io/library/nginx:latest} from it with no change to
 * the manifest. Docker Hub stays the upstream server, as in a real mirror setup, for what the mirror lacks.
 *
 * <p>Stateless and thread-safe; files are replaced atomically.
 */
public final class RegistryMirrors {
    private RegistryMirrors() {}

    /**
     * Writes {@code <configPath>/docker.io/hosts.toml} with {@code mirror} (e.g. {@code http://127.0.0.1:5000}) as a
     * pull/resolve host, and returns {@code configPath}: the value for containerd's CRI {@code config_path}.
     */
    public static Path write(Path configPath, URI mirror) throws IOException {
        String hosts = """
                # Written by k4j: docker.io images resolve through k4j's local registry (see `k4j images`).
                server = "https://registry-1.docker.io"

                [host."%s"]
                  capabilities = ["pull", "resolve"]
                """.formatted(origin(mirror));
        writeHostsFile(configPath, "docker.io", hosts);
        return configPath;
    }

    /**
     * Writes {@code <configPath>/<host>/hosts.toml} for a registry that speaks plain HTTP at {@code endpoint}, e.g. a
     * second registry with authentication at {@code 127.0.0.1:5001}; returns {@code configPath}.
     */
    public static Path writePlainHttpHost(Path configPath, String host, URI endpoint) throws IOException {
        String hosts = """
                # Written by k4j: a registry on loopback that speaks plain HTTP.
                server = "%s"

                [host."%s"]
                  capabilities = ["pull", "resolve", "push"]
                """.formatted(origin(endpoint), origin(endpoint));
        writeHostsFile(configPath, host, hosts);
        return configPath;
    }

    private static void writeHostsFile(Path configPath, String host, String content) throws IOException {
        Path directory = configPath.resolve(host);
        Files.createDirectories(directory);
        OciLayout.writeAtomically(directory.resolve("hosts.toml"), content.getBytes(StandardCharsets.UTF_8));
    }

    private static String origin(URI endpoint) {
        if (endpoint.getScheme() == null || endpoint.getHost() == null) {
            throw new IllegalArgumentException("not a registry endpoint: " + endpoint);
        }
        return endpoint.getScheme() + "://" + endpoint.getHost() + (endpoint.getPort() >= 0 ? ":" + endpoint.getPort() : "");
    }
}
