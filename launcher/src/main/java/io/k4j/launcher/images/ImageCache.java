package io.k4j.launcher.images;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.locks.ReentrantLock;
import java.util.stream.Stream;

/**
 * The machine's built images: one OCI layout ({@code oci/}) holding every image, the inputs each was built from
 * ({@code inputs/<name>}) and downloaded packages ({@code packages/}). {@link #build} builds an image only when its
 * inputs changed, so a fresh data directory (every end-to-end test) reuses what an earlier run built. The default
 * location is shared by all data directories of the machine: {@code /var/cache/k4j/images} for root,
 * {@code ~/.cache/k4j/images} otherwise.
 *
 * <p>Thread-safe and safe across processes: builds hold a lock file in the cache directory.
 */
public final class ImageCache {
    private static final ReentrantLock LOCK_IN_THIS_PROCESS = new ReentrantLock();
    private static final ObjectMapper JSON = new ObjectMapper();

    private final Path directory;
    private final List<ImageRecipe> recipes;

    public ImageCache(Path directory, List<ImageRecipe> recipes) {
        this.directory = requireNonNull(directory, "directory is null").toAbsolutePath();
        this.recipes = List.copyOf(recipes);
    }

    /** The standard images: busybox, pause and nginx. */
    public static ImageCache standard(Path directory) {
        BusyboxImage busybox = BusyboxImage.fromHost();
        return new ImageCache(directory, List.of(busybox, new PauseImage(busybox), new NginxImage(directory.resolve("packages"), busybox)));
    }

    public static Path defaultDirectory() {
        if ("root".equals(System.getProperty("user.name"))) {
            return Path.of("/var/cache/k4j/images");
        }
        String cacheHome = System.getenv("XDG_CACHE_HOME");
        Path base = cacheHome != null && !cacheHome.isBlank() ? Path.of(cacheHome) : Path.of(System.getProperty("user.home"), ".cache");
        return base.resolve("k4j").resolve("images");
    }

    public Path directory() {
        return directory;
    }

    public Path layoutDirectory() {
        return directory.resolve("oci");
    }

    /** Builds what is missing or out of date and returns every image of the cache's recipes. */
    public List<BuiltImage> build(Progress progress) throws IOException {
        return build(progress, false);
    }

    /** As {@link #build(Progress)}; {@code force} rebuilds even images whose inputs did not change. */
    public List<BuiltImage> build(Progress progress, boolean force) throws IOException {
        Files.createDirectories(directory.resolve("inputs"));
        LOCK_IN_THIS_PROCESS.lock();
        try (FileChannel lockFile = FileChannel.open(directory.resolve(".lock"), StandardOpenOption.CREATE, StandardOpenOption.WRITE);
                FileLock ignored = lockFile.lock()) {
            OciLayout layout = OciLayout.open(layoutDirectory());
            List<BuiltImage> images = new ArrayList<>();
            boolean anyRebuilt = false;
            for (ImageRecipe recipe : recipes) {
                BuiltImage image = buildOne(layout, recipe, progress, force);
                anyRebuilt |= image.rebuilt();
                images.add(image);
            }
            if (anyRebuilt) {
                layout.removeUnreferencedBlobs();
            }
            return List.copyOf(images);
        } finally {
            LOCK_IN_THIS_PROCESS.unlock();
        }
    }

    private BuiltImage buildOne(OciLayout layout, ImageRecipe recipe, Progress progress, boolean force) throws IOException {
        String inputs = recipe.inputs(progress);
        List<String> tags = recipe.tags();
        Path inputsFile = directory.resolve("inputs").resolve(recipe.name());
        Optional<OciLayout.Descriptor> cached = upToDate(layout, recipe.name(), tags, inputs, inputsFile);
        if (cached.isPresent() && !force) {
            progress.report(recipe.name() + ": up to date (" + String.join(", ", tags) + ")");
            return new BuiltImage(recipe.name(), tags, cached.get(), false);
        }
        progress.report(recipe.name() + ": building ...");
        long started = System.nanoTime();
        Path work = Files.createTempDirectory(directory, "build-" + recipe.name() + "-");
        try {
            ImageDefinition definition = recipe.build(work, progress);
            OciLayout.Layer layer = layout.writeLayer(definition.filesystem());
            OciLayout.Descriptor config = layout.writeJson(OciLayout.CONFIG_MEDIA_TYPE, configJson(definition, layer));
            ObjectNode manifest = JSON.createObjectNode();
            manifest.put("schemaVersion", 2);
            manifest.put("mediaType", OciLayout.MANIFEST_MEDIA_TYPE);
            manifest.set("config", config.toJson());
            manifest.putArray("layers").add(layer.blob().toJson());
            OciLayout.Descriptor manifestDescriptor = layout.writeJson(OciLayout.MANIFEST_MEDIA_TYPE, manifest);
            for (String tag : tags) {
                layout.tag(recipe.name() + ":" + tag, manifestDescriptor);
            }
            OciLayout.writeAtomically(inputsFile, (inputs + "\n" + manifestDescriptor.digest() + "\n").getBytes(StandardCharsets.UTF_8));
            progress.report(String.format("%s: built %s (%s, layer %.1f MB) in %.1f s", recipe.name(), String.join(", ", tags),
                    shortDigest(manifestDescriptor.digest()), layer.blob().size() / 1e6, (System.nanoTime() - started) / 1e9));
            return new BuiltImage(recipe.name(), tags, manifestDescriptor, true);
        } finally {
            deleteTree(work);
        }
    }

    private static Optional<OciLayout.Descriptor> upToDate(OciLayout layout, String name, List<String> tags, String inputs, Path inputsFile)
            throws IOException {
        if (!Files.isRegularFile(inputsFile)) {
            return Optional.empty();
        }
        List<String> recorded = Files.readAllLines(inputsFile, StandardCharsets.UTF_8);
        if (recorded.size() < 2 || !recorded.get(0).equals(inputs)) {
            return Optional.empty();
        }
        Optional<OciLayout.Descriptor> found = Optional.empty();
        for (String tag : tags) {
            Optional<OciLayout.Descriptor> manifest = layout.resolve(name + ":" + tag);
            if (manifest.isEmpty() || !manifest.get().digest().equals(recorded.get(1)) || !complete(layout, manifest.get())) {
                return Optional.empty();
            }
            found = manifest;
        }
        return found;
    }

    private static boolean complete(OciLayout layout, OciLayout.Descriptor manifest) throws IOException {
        if (!layout.hasBlob(manifest.digest())) {
            return false;
        }
        com.fasterxml.jackson.databind.JsonNode json = layout.readJson(manifest.digest());
        if (!layout.hasBlob(json.path("config").path("digest").asText())) {
            return false;
        }
        for (com.fasterxml.jackson.databind.JsonNode layer : json.path("layers")) {
            if (!layout.hasBlob(layer.path("digest").asText())) {
                return false;
            }
        }
        return true;
    }

    private static ObjectNode configJson(ImageDefinition definition, OciLayout.Layer layer) {
        ImageConfig imageConfig = definition.config();
        ObjectNode config = JSON.createObjectNode();
        // A fixed creation time keeps the config, and so the manifest digest, the same for the same inputs.
        config.put("created", "1970-01-01T00:00:00Z");
        config.put("architecture", architecture());
        config.put("os", "linux");
        ObjectNode runtime = config.putObject("config");
        if (!imageConfig.environment().isEmpty()) {
            imageConfig.environment().forEach(runtime.putArray("Env")::add);
        }
        if (!imageConfig.entrypoint().isEmpty()) {
            imageConfig.entrypoint().forEach(runtime.putArray("Entrypoint")::add);
        }
        if (!imageConfig.command().isEmpty()) {
            imageConfig.command().forEach(runtime.putArray("Cmd")::add);
        }
        if (!imageConfig.exposedPorts().isEmpty()) {
            ObjectNode ports = runtime.putObject("ExposedPorts");
            imageConfig.exposedPorts().forEach(ports::putObject);
        }
        runtime.put("WorkingDir", imageConfig.workingDirectory());
        if (!imageConfig.stopSignal().isEmpty()) {
            runtime.put("StopSignal", imageConfig.stopSignal());
        }
        ObjectNode rootfs = config.putObject("rootfs");
        rootfs.put("type", "layers");
        rootfs.putArray("diff_ids").add(layer.diffId());
        ArrayNode history = config.putArray("history");
        history.addObject().put("created", "1970-01-01T00:00:00Z").put("created_by", definition.createdBy());
        return config;
    }

    /** The OCI architecture name of this JVM's platform. */
    static String architecture() {
        String arch = System.getProperty("os.arch");
        return switch (arch) {
            case "amd64", "x86_64" -> "amd64";
            case "aarch64", "arm64" -> "arm64";
            case "ppc64le" -> "ppc64le";
            case "s390x" -> "s390x";
            case "riscv64" -> "riscv64";
            default -> arch;
        };
    }

    static String shortDigest(String digest) {
        return digest.length() > 19 ? digest.substring(0, 19) : digest;
    }

    private static void deleteTree(Path root) throws IOException {
        if (!Files.exists(root)) {
            return;
        }
        try (Stream<Path> walk = Files.walk(root)) {
            for (Path path : walk.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(path);
            }
        }
    }
}
