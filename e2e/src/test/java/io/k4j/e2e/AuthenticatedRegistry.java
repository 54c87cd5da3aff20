package io.k4j.e2e;

import io.k4j.launcher.images.BuiltImage;
import io.k4j.launcher.images.Htpasswd;
import io.k4j.launcher.images.ImageCache;
import io.k4j.launcher.images.LocalRegistry;
import io.k4j.launcher.images.OciLayout;
import io.k4j.launcher.images.Progress;
import io.k4j.launcher.images.RegistryMirrors;
import io.k4j.launcher.images.RegistryPusher;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * A second docker-registry on a free loopback port that requires basic authentication, holding the busybox image as
 * {@code private/busybox:latest}: the registry behind the {@code imagePullSecrets} tests. A pod whose
 * {@code imagePullSecrets} name a {@code kubernetes.io/dockerconfigjson} Secret with {@link #dockerConfigJson()}
 * pulls {@link #image()}; a pod without gets {@code ErrImagePull}.
 *
 * <p>Thread-safe; {@link #close} stops the registry.
 */
public final class AuthenticatedRegistry implements AutoCloseable {
    public static final String USERNAME = "k4j-puller";

    private final LocalRegistry registry;
    private final String password;

    private AuthenticatedRegistry(LocalRegistry registry, String password) {
        this.registry = registry;
        this.password = password;
    }

    /** Starts the registry with its state in {@code directory} and pushes busybox (built into the machine's image cache if needed). */
    public static AuthenticatedRegistry start(Path directory) throws IOException {
        byte[] secret = new byte[16];
        new java.security.SecureRandom().nextBytes(secret);
        String password = java.util.HexFormat.of().formatHex(secret);
        Path htpasswd = Htpasswd.write(directory.resolve("htpasswd"), Map.of(USERNAME, password));
        Progress progress = message -> System.out.println("authenticated registry: " + message);
        ImageCache cache = ImageCache.standard(ImageCache.defaultDirectory());
        BuiltImage busybox = cache.build(progress).stream().filter(image -> image.name().equals("busybox")).findFirst().orElseThrow();
        LocalRegistry registry = LocalRegistry.start(directory.resolve("registry"), "127.0.0.1", 0, Optional.of(htpasswd), progress);
        try {
            new RegistryPusher(registry.endpoint(), Optional.of(new RegistryPusher.Credentials(USERNAME, password)))
                    .push(OciLayout.open(cache.layoutDirectory()), busybox.manifest(), "private/busybox", List.of("latest"));
        } catch (IOException | RuntimeException e) {
            registry.close();
            throw e;
        }
        return new AuthenticatedRegistry(registry, password);
    }

    /** The image only this registry has, e.g. {@code 127.0.0.1:41234/private/busybox:latest}. */
    public String image() {
        return registry.hostAndPort() + "/private/busybox:latest";
    }

    public String hostAndPort() {
        return registry.hostAndPort();
    }

    public String password() {
        return password;
    }

    /** The {@code .dockerconfigjson} of a pull secret for this registry. */
    public String dockerConfigJson() {
        String auth = Base64.getEncoder().encodeToString((USERNAME + ":" + password).getBytes(StandardCharsets.UTF_8));
        return "{\"auths\":{\"" + registry.hostAndPort() + "\":{\"username\":\"" + USERNAME + "\",\"password\":\"" + password
                + "\",\"auth\":\"" + auth + "\"}}}";
    }

    /**
     * Tells containerd (through its registry {@code config_path}) that this registry speaks plain HTTP; containerd
     * already assumes so for loopback hosts, this makes it explicit.
     */
    public void writeHostConfig(Path registryConfigPath) throws IOException {
        RegistryMirrors.writePlainHttpHost(registryConfigPath, registry.hostAndPort(), registry.endpoint());
    }

    @Override
    public void close() {
        registry.close();
    }
}
