package io.k4j.kubelet.config;

import static java.util.Objects.requireNonNull;

import io.fabric8.kubernetes.api.model.Pod;
import io.k4j.api.codec.Timestamps;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.time.Duration;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.stream.Stream;

/**
 * The static pods of a manifest path (upstream's {@code --pod-manifest-path}): a directory whose regular files not
 * starting with a dot each hold one pod, or a single file. The path is read at {@link #start} and then every check
 * period; whenever the set of pods changes (a file added, changed or removed) the listener gets the whole new set,
 * as upstream's file source sends SET updates. A file that is not a valid pod is skipped and logged once per content.
 * A missing path is no pods, so the directory can be created later.
 *
 * <p>Thread-safe; the listener is called from one thread at a time.
 */
public final class ManifestFileSource implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(ManifestFileSource.class);

    private record Read(String content, Pod pod) {}

    private final Path path;
    private final String nodeName;
    private final Duration checkPeriod;
    private final InstantSource clock;
    private final Consumer<List<Pod>> listener;
    private final ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor(
            Thread.ofPlatform().daemon().name("k4j-kubelet-manifests").factory());
    private final Map<Path, Read> known = new HashMap<>();
    private final Map<Path, String> reportedErrors = new HashMap<>();
    private final java.util.Set<String> reportedDuplicates = new java.util.HashSet<>();
    private List<Pod> current;
    private boolean missingReported;

    /**
     * @param checkPeriod how often the path is read again
     * @param listener gets every new set of static pods
     */
    public ManifestFileSource(Path path, String nodeName, Duration checkPeriod, InstantSource clock,
            Consumer<List<Pod>> listener) {
        this.path = requireNonNull(path, "path is null");
        this.nodeName = requireNonNull(nodeName, "nodeName is null");
        this.checkPeriod = requireNonNull(checkPeriod, "checkPeriod is null");
        this.clock = requireNonNull(clock, "clock is null");
        this.listener = requireNonNull(listener, "listener is null");
    }

    /** Reads the path once (the listener gets the first set before this returns), then keeps checking it. */
    public void start() {
        check();
        timer.scheduleWithFixedDelay(this::check, checkPeriod.toMillis(), checkPeriod.toMillis(), TimeUnit.MILLISECONDS);
        log.info("Watching {} for static pods", path);
    }

    /** Reads the path and tells the listener if the pods changed. */
    public synchronized void check() {
        List<Pod> pods;
        try {
            pods = readAll();
        }
        catch (RuntimeException e) {
            log.warn("Reading the static pods of {} failed: {}", path, e.toString());
            return;
        }
        if (current == null || !uids(pods).equals(uids(current))) {
            current = List.copyOf(pods);
            listener.accept(current);
        }
    }

    private List<Pod> readAll() {
        List<Path> files;
        try {
            files = files();
            missingReported = false;
        }
        catch (NoSuchFileException e) {
            if (!missingReported) {
                log.info("The static pod path {} does not exist; no static pods", path);
                missingReported = true;
            }
            files = List.of();
        }
        catch (IOException e) {
            log.warn("Listing the static pod path {} failed: {}", path, e.getMessage());
            return current == null ? List.of() : current;
        }
        Map<Path, Read> reads = new LinkedHashMap<>();
        List<Pod> pods = new ArrayList<>();
        for (Path file : files) {
            String content;
            try {
                content = Files.readString(file);
            }
            catch (IOException e) {
                log.debug("Reading {} failed: {}", file, e.getMessage());
                continue;
            }
            Read previous = known.get(file);
            if (previous != null && previous.content().equals(content)) {
                reads.put(file, previous);
                pods.add(previous.pod());
                continue;
            }
            try {
                Pod pod = PodManifests.decode(content, file.toString(), nodeName, Timestamps.format(clock.instant()));
                reads.put(file, new Read(content, pod));
                pods.add(pod);
                reportedErrors.remove(file);
            }
            catch (PodManifests.InvalidManifestException e) {
                if (!content.equals(reportedErrors.put(file, content))) {
                    log.warn("Could not process manifest file \"{}\": {}", file, e.getMessage());
                }
            }
        }
        known.clear();
        known.putAll(reads);
        reportedErrors.keySet().retainAll(files);
        return withoutDuplicates(pods);
    }

    /** As upstream's config merge: of pods with the same namespace and name, the first (by file name) wins. */
    private List<Pod> withoutDuplicates(List<Pod> pods) {
        java.util.Set<String> names = new java.util.HashSet<>();
        List<Pod> unique = new ArrayList<>();
        for (Pod pod : pods) {
            if (names.add(StaticPods.fullName(pod))) {
                unique.add(pod);
            }
            else if (reportedDuplicates.add(pod.getMetadata().getUid())) {
                log.warn("Static pod {} from {} has the name of another static pod; ignoring it", StaticPods.fullName(pod),
                        path);
            }
        }
        return unique;
    }

    private List<Path> files() throws IOException {
        if (!Files.isDirectory(path)) {
            if (!Files.exists(path)) {
                throw new NoSuchFileException(path.toString());
            }
            return List.of(path);
        }
        try (Stream<Path> entries = Files.list(path)) {
            return entries
                    .filter(file -> !file.getFileName().toString().startsWith("."))
                    .filter(Files::isRegularFile)
                    .sorted()
                    .toList();
        }
    }

    private static List<String> uids(List<Pod> pods) {
        return pods.stream().map(pod -> pod.getMetadata().getUid()).toList();
    }

    @Override
    public void close() {
        timer.shutdownNow();
    }
}
