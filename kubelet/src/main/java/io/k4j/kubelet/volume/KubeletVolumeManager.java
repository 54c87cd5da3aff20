package io.k4j.kubelet.volume;

import static java.util.Objects.requireNonNull;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.EmptyDirVolumeSource;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodSecurityContext;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.Volume;
import io.k4j.kubelet.podobjects.PodObjectSource;
import java.io.IOException;
import java.math.BigDecimal;
import java.math.RoundingMode;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.time.Duration;
import java.time.InstantSource;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;
import java.util.OptionalLong;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The kubelet's {@link VolumeManager} with upstream's in-tree plugins: emptyDir (disk, or tmpfs for medium Memory
 * with upstream's size), hostPath (with its type checks), configMap, secret, downwardAPI and projected (service-account
 * tokens through TokenRequest, renewed at 80% of their lifetime). Secret and projected volumes are tmpfs-backed as
 * upstream, so secrets never touch the disk. Files of configMap, secret, downwardAPI and projected volumes are
 * written atomically ({@code ..data} symlink swap) and refreshed by {@link #mount} and by the resync started with
 * {@link #startResync}. Thread-safe.
 */
public final class KubeletVolumeManager implements VolumeManager, AutoCloseable {
    static final String EMPTY_DIR = "kubernetes.io~empty-dir";
    static final String CONFIG_MAP = "kubernetes.io~configmap";
    static final String SECRET = "kubernetes.io~secret";
    static final String DOWNWARD_API = "kubernetes.io~downward-api";
    static final String PROJECTED = "kubernetes.io~projected";

    private static final Logger log = LoggerFactory.getLogger(KubeletVolumeManager.class);

    private final Path podsDirectory;
    private final Mounter mounter;
    private final InstantSource clock;
    private final Supplier<Map<String, Quantity>> nodeAllocatable;
    private final String clusterDomain;
    private final Path nodeHostsFile;
    private final ServiceAccountTokens tokens;
    private final Payloads payloads;
    private final Map<String, ReentrantLock> locks = new ConcurrentHashMap<>();
    private final Map<String, Pod> mountedPods = new ConcurrentHashMap<>();
    private volatile ScheduledExecutorService resync;

    /**
     * @param kubeletRoot the kubelet's root directory; pods live under {@code <root>/pods/<uid>}
     * @param objects where ConfigMaps, Secrets and tokens are read with the node's identity
     * @param mounter the host's mount table ({@link SystemMounter})
     * @param clock for token renewal and the timestamped directories
     * @param nodeAllocatable the node's {@code status.allocatable}, for defaulted resource limits and tmpfs sizes
     * @param clusterDomain the cluster's DNS domain (e.g. {@code cluster.local}) for a pod's FQDN in /etc/hosts
     * @param nodeHostsFile the node's hosts file, the base of a host-network pod's /etc/hosts ({@code /etc/hosts})
     */
    public KubeletVolumeManager(Path kubeletRoot, PodObjectSource objects, Mounter mounter, InstantSource clock,
            Supplier<Map<String, Quantity>> nodeAllocatable, String clusterDomain, Path nodeHostsFile) {
        this.podsDirectory = requireNonNull(kubeletRoot, "kubeletRoot is null").resolve("pods");
        this.mounter = requireNonNull(mounter, "mounter is null");
        this.clock = requireNonNull(clock, "clock is null");
        this.nodeAllocatable = requireNonNull(nodeAllocatable, "nodeAllocatable is null");
        this.clusterDomain = requireNonNull(clusterDomain, "clusterDomain is null");
        this.nodeHostsFile = requireNonNull(nodeHostsFile, "nodeHostsFile is null");
        this.tokens = new ServiceAccountTokens(requireNonNull(objects, "objects is null"), clock);
        this.payloads = new Payloads(objects, tokens, nodeAllocatable);
    }

    /**
     * Refreshes the configMap, secret, downwardAPI and projected volumes of every mounted pod each {@code period}
     * (upstream's kubelet resyncs pods every minute), so that changed objects and renewed tokens reach running
     * containers even when the pod worker has nothing to do.
     */
    public synchronized void startResync(Duration period) {
        if (resync != null) {
            return;
        }
        ScheduledExecutorService executor = Executors.newSingleThreadScheduledExecutor(runnable -> {
            Thread thread = new Thread(runnable, "kubelet-volume-resync");
            thread.setDaemon(true);
            return thread;
        });
        executor.scheduleWithFixedDelay(this::refreshAll, period.toMillis(), period.toMillis(), TimeUnit.MILLISECONDS);
        resync = executor;
    }

    @Override
    public synchronized void close() {
        if (resync != null) {
            resync.shutdownNow();
            resync = null;
        }
    }

    @Override
    public PodVolumes mount(Pod pod) throws VolumeMountException {
        requireNonNull(pod, "pod is null");
        String uid = pod.getMetadata().getUid();
        ReentrantLock lock = locks.computeIfAbsent(uid, key -> new ReentrantLock());
        lock.lock();
        try {
            PodVolumes volumes = setUp(pod, false);
            mountedPods.put(uid, pod);
            return volumes;
        } finally {
            lock.unlock();
        }
    }

    /** Refreshes the content-bearing volumes of every mounted pod now; failures are logged and retried next time. */
    void refreshAll() {
        for (Pod pod : List.copyOf(mountedPods.values())) {
            String uid = pod.getMetadata().getUid();
            ReentrantLock lock = locks.computeIfAbsent(uid, key -> new ReentrantLock());
            lock.lock();
            try {
                if (mountedPods.containsKey(uid)) {
                    setUp(mountedPods.get(uid), true);
                }
            } catch (VolumeMountException e) {
                log.info("Refreshing volumes of pod {}/{} failed: {}", pod.getMetadata().getNamespace(), pod.getMetadata().getName(),
                        e.getMessage());
            } catch (RuntimeException e) {
                log.warn("Refreshing volumes of pod {}/{} failed", pod.getMetadata().getNamespace(), pod.getMetadata().getName(), e);
            } finally {
                lock.unlock();
            }
        }
    }

    @Override
    public void unmount(String podUid) throws IOException {
        requireNonNull(podUid, "podUid is null");
        ReentrantLock lock = locks.computeIfAbsent(podUid, key -> new ReentrantLock());
        lock.lock();
        try {
            mountedPods.remove(podUid);
            tokens.forget(podUid);
            Path podDirectory = podDirectory(podUid);
            if (!Files.exists(podDirectory, LinkOption.NOFOLLOW_LINKS)) {
                return;
            }
            for (Path mountPoint : mounter.mountPointsUnder(podDirectory)) {
                mounter.unmount(mountPoint);
            }
            List<Path> remaining = mounter.mountPointsUnder(podDirectory);
            if (!remaining.isEmpty()) {
                // Deleting now would delete inside a mount that is still there.
                throw new IOException("volumes of pod " + podUid + " are still mounted: " + remaining);
            }
            VolumeFiles.deleteRecursively(podDirectory);
        } finally {
            lock.unlock();
            locks.remove(podUid, lock);
        }
    }

    @Override
    public Set<String> podsOnDisk() throws IOException {
        Set<String> uids = new HashSet<>();
        if (!Files.isDirectory(podsDirectory)) {
            return uids;
        }
        try (DirectoryStream<Path> entries = Files.newDirectoryStream(podsDirectory)) {
            for (Path entry : entries) {
                if (Files.isDirectory(entry, LinkOption.NOFOLLOW_LINKS)) {
                    uids.add(entry.getFileName().toString());
                }
            }
        }
        return Set.copyOf(uids);
    }

    Path podDirectory(String podUid) {
        if (podUid.isEmpty() || podUid.contains("/") || podUid.startsWith(".")) {
            throw new IllegalArgumentException("invalid pod UID: " + podUid);
        }
        return podsDirectory.resolve(podUid);
    }

    private PodVolumes setUp(Pod pod, boolean contentOnly) throws VolumeMountException {
        Path podDirectory = podDirectory(pod.getMetadata().getUid());
        try {
            for (String child : List.of("volumes", "plugins", "containers")) {
                Path directory = podDirectory.resolve(child);
                if (!Files.isDirectory(directory)) {
                    Files.createDirectories(directory);
                    VolumeFiles.setMode(directory, 0750);
                }
            }
            VolumeFiles.setMode(podDirectory, 0750);
        } catch (IOException e) {
            throw new VolumeMountException(VolumeMountException.FAILED_MOUNT,
                    "failed to make the pod directory " + podDirectory + ": " + e.getMessage(), e);
        }
        Map<String, Path> paths = new LinkedHashMap<>();
        Set<String> readOnly = new HashSet<>();
        String firstFailure = null;
        Exception firstCause = null;
        List<String> unmounted = new java.util.ArrayList<>();
        for (Volume volume : listOrEmpty(pod.getSpec().getVolumes())) {
            try {
                Path path = setUpVolume(pod, podDirectory, volume, contentOnly);
                if (path != null) {
                    paths.put(volume.getName(), path);
                }
                if (volume.getConfigMap() != null || volume.getSecret() != null || volume.getDownwardAPI() != null
                        || volume.getProjected() != null) {
                    readOnly.add(volume.getName());
                }
            } catch (SetUpFailure | IOException | RuntimeException e) {
                unmounted.add(volume.getName());
                if (firstFailure == null) {
                    firstFailure = "MountVolume.SetUp failed for volume \"" + volume.getName() + "\" : " + e.getMessage();
                    firstCause = e;
                }
            }
        }
        if (firstFailure != null) {
            throw new VolumeMountException(VolumeMountException.FAILED_MOUNT, firstFailure, firstCause, unmounted);
        }
        return new KubeletPodVolumes(pod, podDirectory, paths, readOnly, clusterDomain, nodeHostsFile, mounter);
    }

    /** Sets up one volume; returns its path on the host, or null for a volume type this kubelet does not serve. */
    private Path setUpVolume(Pod pod, Path podDirectory, Volume volume, boolean contentOnly) throws IOException, SetUpFailure {
        String name = volume.getName();
        Path volumes = podDirectory.resolve("volumes");
        OptionalInt fsGroup = fsGroup(pod);
        if (volume.getEmptyDir() != null) {
            Path directory = volumes.resolve(EMPTY_DIR).resolve(name);
            if (!contentOnly) {
                setUpEmptyDir(pod, directory, volume.getEmptyDir(), fsGroup);
            }
            return directory;
        }
        if (volume.getHostPath() != null) {
            Path path = Path.of(volume.getHostPath().getPath());
            if (!contentOnly) {
                try {
                    HostPathTypes.check(path, volume.getHostPath().getType());
                } catch (IllegalArgumentException e) {
                    throw new SetUpFailure(e.getMessage(), e);
                }
            }
            return path;
        }
        if (volume.getConfigMap() != null) {
            Path directory = wrappedDirectory(pod, volumes.resolve(CONFIG_MAP).resolve(name), false, fsGroup);
            write(directory, payloads.configMap(pod, volume.getConfigMap()), fsGroup);
            return directory;
        }
        if (volume.getSecret() != null) {
            Path directory = wrappedDirectory(pod, volumes.resolve(SECRET).resolve(name), true, fsGroup);
            write(directory, payloads.secret(pod, volume.getSecret()), fsGroup);
            return directory;
        }
        if (volume.getDownwardAPI() != null) {
            Path directory = wrappedDirectory(pod, volumes.resolve(DOWNWARD_API).resolve(name), false, fsGroup);
            write(directory, payloads.downwardApi(pod, volume.getDownwardAPI()), fsGroup);
            return directory;
        }
        if (volume.getProjected() != null) {
            Path directory = wrappedDirectory(pod, volumes.resolve(PROJECTED).resolve(name), true, fsGroup);
            write(directory, payloads.projected(pod, volume.getProjected(), fsUser(pod), fsGroup.isPresent()), fsGroup);
            return directory;
        }
        if (contentOnly) {
            return null;
        }
        throw new SetUpFailure("volume type of volume \"" + name + "\" is not supported by this kubelet");
    }

    private void setUpEmptyDir(Pod pod, Path directory, EmptyDirVolumeSource source, OptionalInt fsGroup) throws IOException, SetUpFailure {
        String medium = source.getMedium() == null ? "" : source.getMedium();
        switch (medium) {
            case "" -> {
                if (!Files.isDirectory(directory)) {
                    createWorldWritable(directory, fsGroup);
                }
            }
            case "Memory" -> {
                if (!Files.isDirectory(directory)) {
                    createWorldWritable(directory, fsGroup);
                }
                if (!mounter.isMountPoint(directory)) {
                    mounter.mountTmpfs(directory, memorySize(pod, source.getSizeLimit()));
                    if (fsGroup.isPresent()) {
                        VolumeFiles.setGroup(directory, fsGroup.getAsInt());
                        VolumeFiles.setMode(directory, 02777);
                    }
                }
            }
            default -> throw new SetUpFailure("emptyDir medium \"" + medium + "\" is not supported by this kubelet");
        }
    }

    /**
     * The directory of a configMap, secret, downwardAPI or projected volume: upstream wraps them in an emptyDir
     * (secret and projected ones memory-backed).
     */
    private Path wrappedDirectory(Pod pod, Path directory, boolean memory, OptionalInt fsGroup) throws IOException {
        if (!Files.isDirectory(directory)) {
            createWorldWritable(directory, fsGroup);
        }
        if (memory && !mounter.isMountPoint(directory)) {
            mounter.mountTmpfs(directory, memorySize(pod, null));
            VolumeFiles.setMode(directory, fsGroup.isPresent() ? 02777 : 0777);
            if (fsGroup.isPresent()) {
                VolumeFiles.setGroup(directory, fsGroup.getAsInt());
            }
        }
        return directory;
    }

    private void write(Path directory, Map<String, FileProjection> payload, OptionalInt fsGroup) throws SetUpFailure, IOException {
        try {
            new AtomicWriter(directory, clock).write(payload, fsGroup);
        } catch (IllegalArgumentException e) {
            throw new SetUpFailure(e.getMessage(), e);
        }
    }

    private static void createWorldWritable(Path directory, OptionalInt fsGroup) throws IOException {
        Files.createDirectories(directory);
        VolumeFiles.setMode(directory, 0777);
        if (fsGroup.isPresent()) {
            // As upstream's volume ownership: the fsGroup owns it and new files inherit the group (setgid).
            VolumeFiles.setGroup(directory, fsGroup.getAsInt());
            VolumeFiles.setMode(directory, 02777);
        }
    }

    /**
     * Upstream's size of a memory-backed emptyDir: the node's allocatable memory, lowered to the pod's memory limit
     * when every container has one, lowered to the volume's sizeLimit when that is smaller.
     */
    OptionalLong memorySize(Pod pod, Quantity sizeLimit) {
        Quantity allocatable = nodeAllocatable.get().get("memory");
        Long size = allocatable == null ? null : bytes(allocatable);
        Long podLimit = podMemoryLimit(pod);
        if (podLimit != null && podLimit > 0 && (size == null || podLimit <= size)) {
            size = podLimit;
        }
        if (sizeLimit != null) {
            long volumeLimit = bytes(sizeLimit);
            if (volumeLimit > 0 && (size == null || volumeLimit <= size)) {
                size = volumeLimit;
            }
        }
        return size == null ? OptionalLong.empty() : OptionalLong.of(size);
    }

    /** The pod's memory limit as its cgroup gets it, or null when a container has none. */
    private static Long podMemoryLimit(Pod pod) {
        long sum = 0;
        for (Container container : listOrEmpty(pod.getSpec().getContainers())) {
            Long limit = memoryLimit(container);
            if (limit == null) {
                return null;
            }
            sum += limit;
        }
        long limit = sum;
        for (Container container : listOrEmpty(pod.getSpec().getInitContainers())) {
            Long initLimit = memoryLimit(container);
            if (initLimit == null) {
                return null;
            }
            limit = Math.max(limit, initLimit);
        }
        return limit;
    }

    private static Long memoryLimit(Container container) {
        if (container.getResources() == null || container.getResources().getLimits() == null) {
            return null;
        }
        Quantity limit = container.getResources().getLimits().get("memory");
        return limit == null ? null : bytes(limit);
    }

    private static long bytes(Quantity quantity) {
        BigDecimal amount = io.k4j.api.quantity.Quantity.parse(quantity.toString()).toBigDecimal();
        return amount.setScale(0, RoundingMode.CEILING).longValueExact();
    }

    private static OptionalInt fsGroup(Pod pod) {
        PodSecurityContext context = pod.getSpec().getSecurityContext();
        if (context == null || context.getFsGroup() == null) {
            return OptionalInt.empty();
        }
        return OptionalInt.of(context.getFsGroup().intValue());
    }

    /**
     * Upstream's {@code FsUserFrom}: the user every init and regular container runs as (its own runAsUser, else the
     * pod's), or empty when one has none or they differ.
     */
    static OptionalLong fsUser(Pod pod) {
        PodSecurityContext podContext = pod.getSpec().getSecurityContext();
        Long podUser = podContext == null ? null : podContext.getRunAsUser();
        Long user = null;
        List<Container> containers = new java.util.ArrayList<>(listOrEmpty(pod.getSpec().getInitContainers()));
        containers.addAll(listOrEmpty(pod.getSpec().getContainers()));
        for (Container container : containers) {
            Long effective = container.getSecurityContext() != null && container.getSecurityContext().getRunAsUser() != null
                    ? container.getSecurityContext().getRunAsUser() : podUser;
            if (effective == null || (user != null && !user.equals(effective))) {
                return OptionalLong.empty();
            }
            user = effective;
        }
        return user == null ? OptionalLong.empty() : OptionalLong.of(user);
    }

    private static <T> List<T> listOrEmpty(List<T> list) {
        return list == null ? List.of() : list;
    }
}
