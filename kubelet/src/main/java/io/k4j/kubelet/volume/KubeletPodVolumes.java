package io.k4j.kubelet.volume;

import static java.util.Objects.requireNonNull;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.VolumeMount;
import io.k4j.kubelet.env.CreateContainerConfigException;
import io.k4j.kubelet.env.EnvironmentVariable;
import io.k4j.kubelet.env.VariableExpansion;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ThreadLocalRandom;

/** The volumes of one pod as {@link KubeletVolumeManager} set them up. Thread-safe. */
final class KubeletPodVolumes implements PodVolumes {
    static final String ETC_HOSTS = "/etc/hosts";
    static final String DEFAULT_TERMINATION_MESSAGE_PATH = "/dev/termination-log";

    private final Pod pod;
    private final Path podDirectory;
    private final Map<String, Path> paths;
    private final Set<String> readOnlyVolumes;
    private final String clusterDomain;
    private final Path nodeHostsFile;
    private final Mounter mounter;

    KubeletPodVolumes(Pod pod, Path podDirectory, Map<String, Path> paths, Set<String> readOnlyVolumes, String clusterDomain,
            Path nodeHostsFile, Mounter mounter) {
        this.mounter = requireNonNull(mounter, "mounter is null");
        this.pod = requireNonNull(pod, "pod is null");
        this.podDirectory = requireNonNull(podDirectory, "podDirectory is null");
        this.paths = Map.copyOf(paths);
        this.readOnlyVolumes = Set.copyOf(readOnlyVolumes);
        this.clusterDomain = requireNonNull(clusterDomain, "clusterDomain is null");
        this.nodeHostsFile = requireNonNull(nodeHostsFile, "nodeHostsFile is null");
    }

    @Override
    public String podUid() {
        return pod.getMetadata().getUid();
    }

    @Override
    public Map<String, Path> volumePaths() {
        return paths;
    }

    @Override
    public List<ContainerMount> mountsFor(Container container, List<EnvironmentVariable> environment, List<String> podIps)
            throws CreateContainerConfigException {
        requireNonNull(container, "container is null");
        requireNonNull(environment, "environment is null");
        requireNonNull(podIps, "podIps is null");
        List<ContainerMount> mounts = new ArrayList<>();
        boolean mountEtcHosts = !podIps.isEmpty();
        List<VolumeMount> volumeMounts = listOrEmpty(container.getVolumeMounts());
        for (int index = 0; index < volumeMounts.size(); index++) {
            VolumeMount volumeMount = volumeMounts.get(index);
            if (ETC_HOSTS.equals(volumeMount.getMountPath())) {
                mountEtcHosts = false;
            }
            Path volumePath = paths.get(volumeMount.getName());
            if (volumePath == null) {
                throw new CreateContainerConfigException(
                        "cannot find volume \"" + volumeMount.getName() + "\" to mount into container \"" + container.getName() + "\"");
            }
            Path hostPath = volumePath;
            String subPath = volumeMount.getSubPath() == null ? "" : volumeMount.getSubPath();
            if (volumeMount.getSubPathExpr() != null && !volumeMount.getSubPathExpr().isEmpty()) {
                subPath = expandSubPath(volumeMount.getSubPathExpr(), environment);
            }
            if (!subPath.isEmpty()) {
                hostPath = pinSubPath(container, volumeMount, index, prepareSubPath(container, volumeMount, volumePath, subPath));
            }
            boolean readOnly = Boolean.TRUE.equals(volumeMount.getReadOnly()) || readOnlyVolumes.contains(volumeMount.getName());
            mounts.add(new ContainerMount(volumeMount.getMountPath(), hostPath, readOnly, propagation(volumeMount.getMountPropagation())));
        }
        if (mountEtcHosts) {
            mounts.add(new ContainerMount(ETC_HOSTS, writeEtcHosts(podIps), false, MountPropagation.PRIVATE));
        }
        String terminationMessagePath = container.getTerminationMessagePath() == null || container.getTerminationMessagePath().isEmpty()
                ? DEFAULT_TERMINATION_MESSAGE_PATH : container.getTerminationMessagePath();
        mounts.add(new ContainerMount(terminationMessagePath, createTerminationLog(container), false, MountPropagation.PRIVATE));
        return List.copyOf(mounts);
    }

    private static String expandSubPath(String expression, List<EnvironmentVariable> environment) throws CreateContainerConfigException {
        Map<String, String> values = new HashMap<>();
        for (EnvironmentVariable variable : environment) {
            values.put(variable.name(), variable.value());
        }
        Set<String> missing = new TreeSet<>();
        String expanded = VariableExpansion.expand(expression, name -> {
            String value = values.get(name);
            if (value == null || value.isEmpty()) {
                missing.add(name);
                return "";
            }
            return value;
        });
        if (!missing.isEmpty()) {
            throw new CreateContainerConfigException("missing value for " + String.join(", ", missing));
        }
        return expanded;
    }

    /**
     * Resolves and, when missing, creates a subPath inside the volume, refusing one that leaves the volume (an
     * absolute path, {@code ..}, or a symlink pointing outside), as upstream's safe subpath handling.
     */
    private static Path prepareSubPath(Container container, VolumeMount volumeMount, Path volumePath, String subPath)
            throws CreateContainerConfigException {
        if (subPath.startsWith("/")) {
            throw new CreateContainerConfigException("error SubPath `" + subPath + "` must not be an absolute path");
        }
        for (String element : subPath.split("/")) {
            if (element.equals("..")) {
                throw new CreateContainerConfigException(
                        "unable to provision SubPath `" + subPath + "`: must not contain '..'");
            }
        }
        Path hostPath = volumePath.resolve(subPath);
        try {
            if (!Files.exists(hostPath, LinkOption.NOFOLLOW_LINKS) && !Files.isSymbolicLink(hostPath)) {
                int mode = Files.isDirectory(volumePath) ? VolumeFiles.mode(volumePath) : 0755;
                Path parent = volumePath.toRealPath();
                for (Path element : volumePath.relativize(hostPath)) {
                    Path next = parent.resolve(element);
                    if (!Files.exists(next, LinkOption.NOFOLLOW_LINKS)) {
                        Files.createDirectory(next);
                        VolumeFiles.setMode(next, mode & 07777);
                    }
                    parent = next.toRealPath();
                    if (!parent.startsWith(volumePath.toRealPath())) {
                        throw new IOException(next + " leaves the volume");
                    }
                }
            }
        } catch (IOException e) {
            throw new CreateContainerConfigException("failed to create subPath directory for volumeMount \"" + volumeMount.getName()
                    + "\" of container \"" + container.getName() + "\"", e);
        }
        try {
            Path real = hostPath.toRealPath();
            if (!real.startsWith(volumePath.toRealPath())) {
                throw new IOException(real + " is outside of the volume");
            }
            return real;
        } catch (IOException e) {
            throw new CreateContainerConfigException("failed to prepare subPath for volumeMount \"" + volumeMount.getName()
                    + "\" of container \"" + container.getName() + "\"", e);
        }
    }

    /**
     * Bind-mounts a checked subPath at {@code pods/<uid>/volume-subpaths/<volume>/<container>/<index>} and makes sure the
     * mount shows the very file or directory that was checked, so that a symlink swapped in by the container between
     * the check and the runtime's mount cannot point the mount outside the volume (upstream's safe subpaths). A
     * restarted container reuses a mount that still shows the same object.
     */
    private Path pinSubPath(Container container, VolumeMount volumeMount, int index, Path checked) throws CreateContainerConfigException {
        Path target = podDirectory.resolve("volume-subpaths").resolve(volumeMount.getName()).resolve(container.getName())
                .resolve(String.valueOf(index));
        try {
            Object checkedKey = Files.readAttributes(checked, BasicFileAttributes.class).fileKey();
            boolean directory = Files.isDirectory(checked);
            Path absoluteTarget = target.toAbsolutePath().normalize();
            if (mounter.mountPointsUnder(absoluteTarget).contains(absoluteTarget)) {
                if (checkedKey.equals(Files.readAttributes(target, BasicFileAttributes.class).fileKey())) {
                    return target;
                }
                mounter.unmount(target);
            }
            Files.createDirectories(target.getParent());
            if (Files.exists(target, LinkOption.NOFOLLOW_LINKS) && Files.isDirectory(target, LinkOption.NOFOLLOW_LINKS) != directory) {
                VolumeFiles.deleteRecursively(target);
            }
            if (!Files.exists(target, LinkOption.NOFOLLOW_LINKS)) {
                if (directory) {
                    Files.createDirectory(target);
                } else {
                    Files.createFile(target);
                }
            }
            mounter.bindMount(checked, target);
            if (!checkedKey.equals(Files.readAttributes(target, BasicFileAttributes.class).fileKey())) {
                mounter.unmount(target);
                throw new IOException("the subPath changed while it was mounted");
            }
            return target;
        } catch (IOException e) {
            throw new CreateContainerConfigException("failed to prepare subPath for volumeMount \"" + volumeMount.getName()
                    + "\" of container \"" + container.getName() + "\"", e);
        }
    }

    private Path writeEtcHosts(List<String> podIps) throws CreateContainerConfigException {
        Path file = podDirectory.resolve("etc-hosts");
        try {
            String content;
            if (Boolean.TRUE.equals(pod.getSpec().getHostNetwork())) {
                content = EtcHosts.hostNetwork(Files.readString(nodeHostsFile, StandardCharsets.UTF_8), pod.getSpec().getHostAliases());
            } else {
                content = EtcHosts.managed(podIps, EtcHosts.hostname(pod), EtcHosts.domain(pod, clusterDomain), pod.getSpec().getHostAliases());
            }
            Files.writeString(file, content, StandardCharsets.UTF_8);
            VolumeFiles.setMode(file, 0644);
            return file;
        } catch (IOException e) {
            throw new CreateContainerConfigException("failed to write the hosts file of pod " + pod.getMetadata().getName() + ": "
                    + e.getMessage(), e);
        }
    }

    /** A fresh, empty, world-writable file per container instance, as upstream's termination-log file. */
    private Path createTerminationLog(Container container) throws CreateContainerConfigException {
        Path directory = podDirectory.resolve("containers").resolve(container.getName());
        try {
            Files.createDirectories(directory);
            while (true) {
                Path file = directory.resolve(String.format("%08x", ThreadLocalRandom.current().nextInt()));
                if (!Files.exists(file, LinkOption.NOFOLLOW_LINKS)) {
                    Files.createFile(file);
                    VolumeFiles.setMode(file, 0666);
                    return file;
                }
            }
        } catch (IOException e) {
            throw new CreateContainerConfigException("failed to create the termination-log file of container \"" + container.getName()
                    + "\": " + e.getMessage(), e);
        }
    }

    private static MountPropagation propagation(String propagation) {
        if (propagation == null) {
            return MountPropagation.PRIVATE;
        }
        return switch (propagation) {
            case "HostToContainer" -> MountPropagation.HOST_TO_CONTAINER;
            case "Bidirectional" -> MountPropagation.BIDIRECTIONAL;
            default -> MountPropagation.PRIVATE;
        };
    }

    private static <T> List<T> listOrEmpty(List<T> list) {
        return list == null ? List.of() : list;
    }
}
