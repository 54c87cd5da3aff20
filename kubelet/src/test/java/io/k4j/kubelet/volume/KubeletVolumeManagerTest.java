package io.k4j.kubelet.volume;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.ContainerBuilder;
import io.fabric8.kubernetes.api.model.HostAlias;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.Volume;
import io.fabric8.kubernetes.api.model.VolumeBuilder;
import io.fabric8.kubernetes.api.model.VolumeMountBuilder;
import io.k4j.controllerkit.testing.MutableClock;
import io.k4j.kubelet.env.CreateContainerConfigException;
import io.k4j.kubelet.env.EnvironmentVariable;
import io.k4j.kubelet.podobjects.FakePodObjectSource;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class KubeletVolumeManagerTest {
    @TempDir
    Path root;

    @TempDir
    Path host;

    private final MutableClock clock = new MutableClock(Instant.parse("2026-01-01T00:00:00Z"));
    private final FakePodObjectSource objects = new FakePodObjectSource(clock);
    private final FakeMounter mounter = new FakeMounter();

    private KubeletVolumeManager manager(Mounter mounter) throws Exception {
        Path hostsFile = host.resolve("hosts");
        Files.writeString(hostsFile, "127.0.0.1 localhost\n192.168.1.5 node-a\n");
        return new KubeletVolumeManager(root, objects, mounter, clock,
                () -> Map.of("cpu", new Quantity("4"), "memory", new Quantity("8Gi")), "cluster.local", hostsFile);
    }

    private static Pod pod(List<Volume> volumes, Container... containers) {
        return new PodBuilder().withNewMetadata().withNamespace("ns").withName("web-1").withUid("uid-1")
                .withLabels(Map.of("app", "web")).endMetadata()
                .withNewSpec().withServiceAccountName("robot").withVolumes(volumes).withContainers(containers).endSpec()
                .build();
    }

    private static Container container() {
        return new ContainerBuilder().withName("c1").withImage("busybox")
                .withNewResources().withLimits(Map.of("cpu", new Quantity("500m"), "memory", new Quantity("1Gi"))).endResources()
                .build();
    }

    private Path volumeDirectory(String plugin, String name) {
        return root.resolve("pods/uid-1/volumes").resolve(plugin).resolve(name);
    }

    @Test
    void emptyDirsAreWorldWritableDirectoriesAndMemoryOnesTmpfsOfTheirSizeLimit() throws Exception {
        KubeletVolumeManager manager = manager(mounter);
        Pod pod = pod(List.of(
                new VolumeBuilder().withName("scratch").withNewEmptyDir().endEmptyDir().build(),
                new VolumeBuilder().withName("cache").withNewEmptyDir().withMedium("Memory").withSizeLimit(new Quantity("64Mi")).endEmptyDir()
                        .build(),
                new VolumeBuilder().withName("shm").withNewEmptyDir().withMedium("Memory").endEmptyDir().build()),
                container());

        PodVolumes volumes = manager.mount(pod);

        Path scratch = volumeDirectory("kubernetes.io~empty-dir", "scratch");
        assertThat(volumes.volumePaths()).containsEntry("scratch", scratch);
        assertThat(VolumeFiles.mode(scratch)).isEqualTo(0777);
        // Memory-backed: the sizeLimit when set, else the pod's memory limit (all containers have one).
        assertThat(mounter.mounts()).containsExactlyInAnyOrderEntriesOf(Map.of(
                volumeDirectory("kubernetes.io~empty-dir", "cache"), OptionalLong.of(64L * 1024 * 1024),
                volumeDirectory("kubernetes.io~empty-dir", "shm"), OptionalLong.of(1024L * 1024 * 1024)));

        manager.mount(pod);
        assertThat(mounter.mounts()).hasSize(2);
    }

    @Test
    void hostPathTypesAreCheckedAndCreatedAsUpstream() throws Exception {
        KubeletVolumeManager manager = manager(mounter);
        Path created = host.resolve("made/deep");
        Path file = host.resolve("file.txt");
        Pod pod = pod(List.of(
                new VolumeBuilder().withName("made").withNewHostPath(created.toString(), "DirectoryOrCreate").build(),
                new VolumeBuilder().withName("file").withNewHostPath(file.toString(), "FileOrCreate").build(),
                new VolumeBuilder().withName("any").withNewHostPath(host.resolve("whatever").toString(), "").build()),
                container());

        PodVolumes volumes = manager.mount(pod);

        assertThat(created).isDirectory();
        assertThat(file).isRegularFile();
        assertThat(volumes.volumePaths()).containsEntry("made", created).containsEntry("file", file);

        Pod missing = pod(List.of(new VolumeBuilder().withName("dir").withNewHostPath(host.resolve("absent").toString(), "Directory").build()),
                container());
        assertThatThrownBy(() -> manager.mount(missing)).isInstanceOf(VolumeMountException.class)
                .hasMessage("MountVolume.SetUp failed for volume \"dir\" : hostPath type check failed: " + host.resolve("absent")
                        + " is not a directory")
                .extracting(error -> ((VolumeMountException) error).reason()).isEqualTo("FailedMount");
        Pod notAFile = pod(List.of(new VolumeBuilder().withName("f").withNewHostPath(created.toString(), "File").build()), container());
        assertThatThrownBy(() -> manager.mount(notAFile)).hasMessageEndingWith(" : hostPath type check failed: " + created + " is not a file");
        Pod notASocket = pod(List.of(new VolumeBuilder().withName("s").withNewHostPath(file.toString(), "Socket").build()), container());
        assertThatThrownBy(() -> manager.mount(notASocket)).hasMessageEndingWith(file + " is not a socket file");
    }

    @Test
    void configMapVolumesWriteItemsWithModesAndFollowUpdates() throws Exception {
        KubeletVolumeManager manager = manager(mounter);
        objects.putConfigMap("ns", "settings", Map.of("app.properties", "mode=fast", "other", "x"));
        Pod pod = pod(List.of(
                new VolumeBuilder().withName("all").withNewConfigMap().withName("settings").withDefaultMode(0440).endConfigMap().build(),
                new VolumeBuilder().withName("some").withNewConfigMap().withName("settings")
                        .addNewItem().withKey("app.properties").withPath("conf/app.properties").withMode(0600).endItem().endConfigMap()
                        .build()),
                container());

        manager.mount(pod);

        Path all = volumeDirectory("kubernetes.io~configmap", "all");
        Path some = volumeDirectory("kubernetes.io~configmap", "some");
        assertThat(Files.readString(all.resolve("app.properties"))).isEqualTo("mode=fast");
        assertThat(VolumeFiles.mode(all.resolve("..data/other"))).isEqualTo(0440);
        assertThat(Files.readString(some.resolve("conf/app.properties"))).isEqualTo("mode=fast");
        assertThat(VolumeFiles.mode(some.resolve("..data/conf/app.properties"))).isEqualTo(0600);
        assertThat(some.resolve("other")).doesNotExist();
        assertThat(mounter.mounts()).isEmpty();

        objects.putConfigMap("ns", "settings", Map.of("app.properties", "mode=slow", "other", "x"));
        manager.refreshAll();

        assertThat(Files.readString(all.resolve("app.properties"))).isEqualTo("mode=slow");
        assertThat(Files.readString(some.resolve("conf/app.properties"))).isEqualTo("mode=slow");
    }

    @Test
    void aMissingConfigMapFailsTheMountWithUpstreamsEventUnlessOptional() throws Exception {
        KubeletVolumeManager manager = manager(mounter);
        Pod pod = pod(List.of(new VolumeBuilder().withName("scratch").withNewEmptyDir().endEmptyDir().build(),
                new VolumeBuilder().withName("cfg").withNewConfigMap().withName("x").endConfigMap().build(),
                new VolumeBuilder().withName("creds").withNewSecret().withSecretName("y").endSecret().build()), container());

        assertThatThrownBy(() -> manager.mount(pod)).isInstanceOf(VolumeMountException.class)
                .hasMessage("MountVolume.SetUp failed for volume \"cfg\" : configmap \"x\" not found")
                .extracting(error -> ((VolumeMountException) error).unmountedVolumes()).isEqualTo(List.of("cfg", "creds"));
        objects.putSecret("ns", "y", Map.of());

        objects.putConfigMap("ns", "x", Map.of("k", "v"));
        manager.mount(pod);
        assertThat(Files.readString(volumeDirectory("kubernetes.io~configmap", "cfg").resolve("k"))).isEqualTo("v");

        Pod optional = pod(List.of(new VolumeBuilder().withName("opt").withNewConfigMap().withName("absent").withOptional(true).endConfigMap()
                .build()), container());
        manager.mount(optional);
        assertThat(volumeDirectory("kubernetes.io~configmap", "opt").resolve("..data")).exists();
    }

    @Test
    void aMissingKeyInItemsFailsAsUpstream() throws Exception {
        KubeletVolumeManager manager = manager(mounter);
        objects.putConfigMap("ns", "settings", Map.of("a", "1"));
        Pod pod = pod(List.of(new VolumeBuilder().withName("cfg").withNewConfigMap().withName("settings")
                .addNewItem().withKey("b").withPath("b").endItem().endConfigMap().build()), container());

        assertThatThrownBy(() -> manager.mount(pod))
                .hasMessage("MountVolume.SetUp failed for volume \"cfg\" : configmap references non-existent config key: b");
    }

    @Test
    void secretVolumesAreMemoryBackedAndDecoded() throws Exception {
        KubeletVolumeManager manager = manager(mounter);
        objects.putSecret("ns", "credentials", Map.of("password", "s3cr3t"));
        Pod pod = pod(List.of(new VolumeBuilder().withName("creds").withNewSecret().withSecretName("credentials").endSecret().build()),
                container());

        manager.mount(pod);

        Path directory = volumeDirectory("kubernetes.io~secret", "creds");
        assertThat(mounter.mounts()).containsKey(directory);
        assertThat(Files.readString(directory.resolve("password"))).isEqualTo("s3cr3t");
        assertThat(VolumeFiles.mode(directory.resolve("..data/password"))).isEqualTo(0644);

        Pod missing = pod(List.of(new VolumeBuilder().withName("s").withNewSecret().withSecretName("nope").endSecret().build()), container());
        assertThatThrownBy(() -> manager.mount(missing)).hasMessage("MountVolume.SetUp failed for volume \"s\" : secret \"nope\" not found");
    }

    @Test
    void downwardApiVolumesWriteMetadataAndResourcesAndFollowLabelChanges() throws Exception {
        KubeletVolumeManager manager = manager(mounter);
        Volume volume = new VolumeBuilder().withName("info").withNewDownwardAPI()
                .addNewItem().withPath("labels").withNewFieldRef().withFieldPath("metadata.labels").endFieldRef().endItem()
                .addNewItem().withPath("name").withNewFieldRef().withFieldPath("metadata.name").endFieldRef().endItem()
                .addNewItem().withPath("cpu_limit").withNewResourceFieldRef().withContainerName("c1").withResource("limits.cpu")
                .withDivisor(new Quantity("1m")).endResourceFieldRef().endItem()
                .endDownwardAPI().build();
        Pod pod = pod(List.of(volume), container());

        manager.mount(pod);

        Path directory = volumeDirectory("kubernetes.io~downward-api", "info");
        assertThat(Files.readString(directory.resolve("labels"))).isEqualTo("app=\"web\"");
        assertThat(Files.readString(directory.resolve("name"))).isEqualTo("web-1");
        assertThat(Files.readString(directory.resolve("cpu_limit"))).isEqualTo("500");

        pod.getMetadata().setLabels(Map.of("app", "web", "version", "2"));
        manager.mount(pod);
        assertThat(Files.readString(directory.resolve("labels"))).isEqualTo("app=\"web\"\nversion=\"2\"");
    }

    @Test
    void theServiceAccountAccessVolumeHasATokenTheCaAndTheNamespaceAndTheTokenIsRenewedAtEightyPercent() throws Exception {
        KubeletVolumeManager manager = manager(mounter);
        objects.putConfigMap("ns", "kube-root-ca.crt", Map.of("ca.crt", "-----BEGIN CERTIFICATE-----"));
        Volume access = new VolumeBuilder().withName("kube-api-access-abcde").withNewProjected().withDefaultMode(0644)
                .addNewSource().withNewServiceAccountToken().withExpirationSeconds(3607L).withPath("token").endServiceAccountToken().endSource()
                .addNewSource().withNewConfigMap().withName("kube-root-ca.crt").addNewItem().withKey("ca.crt").withPath("ca.crt").endItem()
                .endConfigMap().endSource()
                .addNewSource().withNewDownwardAPI().addNewItem().withPath("namespace").withNewFieldRef().withApiVersion("v1")
                .withFieldPath("metadata.namespace").endFieldRef().endItem().endDownwardAPI().endSource()
                .endProjected().build();
        Pod pod = pod(List.of(access), container());

        manager.mount(pod);

        Path directory = volumeDirectory("kubernetes.io~projected", "kube-api-access-abcde");
        assertThat(mounter.mounts()).containsKey(directory);
        assertThat(Files.readString(directory.resolve("token"))).isEqualTo("token-1-robot");
        assertThat(Files.readString(directory.resolve("ca.crt"))).isEqualTo("-----BEGIN CERTIFICATE-----");
        assertThat(Files.readString(directory.resolve("namespace"))).isEqualTo("ns");
        assertThat(objects.tokenRequests()).singleElement().satisfies(request -> {
            assertThat(request.getSpec().getExpirationSeconds()).isEqualTo(3607L);
            assertThat(request.getSpec().getBoundObjectRef().getKind()).isEqualTo("Pod");
            assertThat(request.getSpec().getBoundObjectRef().getName()).isEqualTo("web-1");
            assertThat(request.getSpec().getBoundObjectRef().getUid()).isEqualTo("uid-1");
        });

        clock.advance(Duration.ofSeconds(2800));
        manager.refreshAll();
        assertThat(Files.readString(directory.resolve("token"))).isEqualTo("token-1-robot");

        clock.advance(Duration.ofSeconds(100));
        manager.refreshAll();
        assertThat(Files.readString(directory.resolve("token"))).isEqualTo("token-2-robot");
    }

    @Test
    void aFailedRenewalKeepsServingTheValidToken() throws Exception {
        KubeletVolumeManager manager = manager(mounter);
        Volume tokenVolume = new VolumeBuilder().withName("token").withNewProjected().addNewSource().withNewServiceAccountToken()
                .withAudience("vault").withExpirationSeconds(600L).withPath("token").endServiceAccountToken().endSource().endProjected().build();
        Pod pod = pod(List.of(tokenVolume), container());
        manager.mount(pod);
        objects.failTokenRequests(new java.io.IOException("serviceaccounts \"robot\" is forbidden"));

        clock.advance(Duration.ofSeconds(500));
        manager.mount(pod);
        assertThat(Files.readString(volumeDirectory("kubernetes.io~projected", "token").resolve("token"))).isEqualTo("token-1-robot");

        clock.advance(Duration.ofSeconds(200));
        assertThatThrownBy(() -> manager.mount(pod))
                .hasMessage("MountVolume.SetUp failed for volume \"token\" : serviceaccounts \"robot\" is forbidden");
        assertThat(objects.tokenRequests()).singleElement()
                .satisfies(request -> assertThat(request.getSpec().getAudiences()).containsExactly("vault"));
    }

    @Test
    void tokensOfAPodRunningAsOneUserAreThatUsersAndPrivate() throws Exception {
        assumeTrue("root".equals(System.getProperty("user.name")), "changing a file's owner needs root");
        KubeletVolumeManager manager = manager(mounter);
        Volume tokenVolume = new VolumeBuilder().withName("token").withNewProjected().withDefaultMode(0644).addNewSource()
                .withNewServiceAccountToken().withExpirationSeconds(3600L).withPath("token").endServiceAccountToken().endSource()
                .endProjected().build();
        Pod pod = pod(List.of(tokenVolume), container());
        pod.getSpec().setSecurityContext(new io.fabric8.kubernetes.api.model.PodSecurityContextBuilder().withRunAsUser(1000L).build());

        manager.mount(pod);

        Path token = volumeDirectory("kubernetes.io~projected", "token").resolve("..data/token");
        assertThat(Files.getAttribute(token, "unix:uid")).isEqualTo(1000);
        assertThat(VolumeFiles.mode(token)).isEqualTo(0600);
    }

    @Test
    void theFsUserIsTheOneUserAllContainersRunAs() {
        Pod pod = pod(List.of(), container(), new ContainerBuilder(container()).withName("c2").withNewSecurityContext().withRunAsUser(1000L)
                .endSecurityContext().build());
        assertThat(KubeletVolumeManager.fsUser(pod)).isEmpty();

        pod.getSpec().setSecurityContext(new io.fabric8.kubernetes.api.model.PodSecurityContextBuilder().withRunAsUser(1000L).build());
        assertThat(KubeletVolumeManager.fsUser(pod)).hasValue(1000L);

        pod.getSpec().getContainers().get(1).getSecurityContext().setRunAsUser(2000L);
        assertThat(KubeletVolumeManager.fsUser(pod)).isEmpty();
    }

    @Test
    void containerMountsHonourSubPathsReadOnlyVolumesEtcHostsAndTheTerminationLog() throws Exception {
        KubeletVolumeManager manager = manager(mounter);
        objects.putConfigMap("ns", "settings", Map.of("app.properties", "mode=fast"));
        Container container = new ContainerBuilder(container())
                .addToVolumeMounts(new VolumeMountBuilder().withName("scratch").withMountPath("/data").withMountPropagation("HostToContainer")
                        .build())
                .addToVolumeMounts(new VolumeMountBuilder().withName("scratch").withMountPath("/logs").withSubPath("logs/c1").build())
                .addToVolumeMounts(new VolumeMountBuilder().withName("scratch").withMountPath("/per-pod").withSubPathExpr("$(POD_NAME)")
                        .build())
                .addToVolumeMounts(new VolumeMountBuilder().withName("cfg").withMountPath("/etc/app/app.properties")
                        .withSubPath("app.properties").build())
                .addToVolumeMounts(new VolumeMountBuilder().withName("cfg").withMountPath("/etc/app-all").build())
                .withTerminationMessagePath("/dev/termination-log")
                .build();
        Pod pod = pod(List.of(new VolumeBuilder().withName("scratch").withNewEmptyDir().endEmptyDir().build(),
                new VolumeBuilder().withName("cfg").withNewConfigMap().withName("settings").endConfigMap().build()), container);
        pod.getSpec().setHostname("web");
        pod.getSpec().setSubdomain("backends");
        pod.getSpec().setHostAliases(List.of(new HostAlias(List.of("foo.local", "bar.local"), "127.0.0.2")));

        PodVolumes volumes = manager.mount(pod);
        List<ContainerMount> mounts = volumes.mountsFor(container, List.of(new EnvironmentVariable("POD_NAME", "web-1")),
                List.of("10.42.0.7"));

        Path scratch = volumeDirectory("kubernetes.io~empty-dir", "scratch");
        Path configMap = volumeDirectory("kubernetes.io~configmap", "cfg");
        assertThat(mounts).hasSize(7);
        assertThat(mounts.get(0)).isEqualTo(new ContainerMount("/data", scratch, false, MountPropagation.HOST_TO_CONTAINER));
        // SubPaths are pinned by bind mounts under volume-subpaths/<volume>/<container>/<index>.
        Path subPaths = root.resolve("pods/uid-1/volume-subpaths");
        assertThat(mounts.get(1)).isEqualTo(new ContainerMount("/logs", subPaths.resolve("scratch/c1/1"), false, MountPropagation.PRIVATE));
        assertThat(scratch.resolve("logs/c1")).isDirectory();
        assertThat(subPaths.resolve("scratch/c1/1").toRealPath()).isEqualTo(scratch.resolve("logs/c1").toRealPath());
        assertThat(mounts.get(2).hostPath().toRealPath()).isEqualTo(scratch.resolve("web-1").toRealPath());
        assertThat(mounts.get(3).hostPath()).isEqualTo(subPaths.resolve("cfg/c1/3"));
        assertThat(Files.readString(mounts.get(3).hostPath())).isEqualTo("mode=fast");
        assertThat(mounts.get(3).readOnly()).isTrue();
        assertThat(mounts.get(4)).isEqualTo(new ContainerMount("/etc/app-all", configMap, true, MountPropagation.PRIVATE));
        ContainerMount hosts = mounts.get(5);
        assertThat(hosts.containerPath()).isEqualTo("/etc/hosts");
        assertThat(Files.readString(hosts.hostPath())).isEqualTo("""
                # Kubernetes-managed hosts file.
                127.0.0.1\tlocalhost
                ::1\tlocalhost ip6-localhost ip6-loopback
                fe00::0\tip6-localnet
                fe00::0\tip6-mcastprefix
                fe00::1\tip6-allnodes
                fe00::2\tip6-allrouters
                10.42.0.7\tweb.backends.ns.svc.cluster.local\tweb

                # Entries added by HostAliases.
                127.0.0.2\tfoo.local\tbar.local
                """);
        ContainerMount terminationLog = mounts.get(6);
        assertThat(terminationLog.containerPath()).isEqualTo("/dev/termination-log");
        assertThat(terminationLog.hostPath().getParent()).isEqualTo(root.resolve("pods/uid-1/containers/c1"));
        assertThat(terminationLog.hostPath()).isEmptyFile();
        assertThat(VolumeFiles.mode(terminationLog.hostPath())).isEqualTo(0666);

        List<ContainerMount> again = volumes.mountsFor(container, List.of(new EnvironmentVariable("POD_NAME", "web-1")), List.of());
        assertThat(again).hasSize(6).noneMatch(mount -> mount.containerPath().equals("/etc/hosts"));
        assertThat(again.get(5).hostPath()).isNotEqualTo(terminationLog.hostPath());
    }

    @Test
    void aHostNetworkPodGetsTheNodesHostsFile() throws Exception {
        KubeletVolumeManager manager = manager(mounter);
        Pod pod = pod(List.of(), container());
        pod.getSpec().setHostNetwork(true);

        List<ContainerMount> mounts = manager.mount(pod).mountsFor(pod.getSpec().getContainers().get(0), List.of(), List.of("192.168.1.5"));

        assertThat(Files.readString(mounts.get(0).hostPath()))
                .isEqualTo("# Kubernetes-managed hosts file (host network).\n127.0.0.1 localhost\n192.168.1.5 node-a\n");
    }

    @Test
    void subPathsThatLeaveTheVolumeOrMissVariablesAreConfigErrors() throws Exception {
        KubeletVolumeManager manager = manager(mounter);
        Path outside = Files.createDirectory(host.resolve("outside"));
        Pod pod = pod(List.of(new VolumeBuilder().withName("scratch").withNewEmptyDir().endEmptyDir().build()), container());
        PodVolumes volumes = manager.mount(pod);
        Files.createSymbolicLink(volumeDirectory("kubernetes.io~empty-dir", "scratch").resolve("escape"), outside);

        assertThatThrownBy(() -> volumes.mountsFor(withMount(new VolumeMountBuilder().withName("scratch").withMountPath("/x")
                .withSubPath("../x").build()), List.of(), List.of()))
                .isInstanceOf(CreateContainerConfigException.class).hasMessageContaining("unable to provision SubPath `../x`");
        assertThatThrownBy(() -> volumes.mountsFor(withMount(new VolumeMountBuilder().withName("scratch").withMountPath("/x")
                .withSubPath("/etc").build()), List.of(), List.of()))
                .hasMessage("error SubPath `/etc` must not be an absolute path");
        assertThatThrownBy(() -> volumes.mountsFor(withMount(new VolumeMountBuilder().withName("scratch").withMountPath("/x")
                .withSubPath("escape").build()), List.of(), List.of()))
                .hasMessage("failed to prepare subPath for volumeMount \"scratch\" of container \"c1\"");
        assertThatThrownBy(() -> volumes.mountsFor(withMount(new VolumeMountBuilder().withName("scratch").withMountPath("/x")
                .withSubPathExpr("$(A)/$(B)").build()), List.of(new EnvironmentVariable("B", "")), List.of()))
                .hasMessage("missing value for A, B");
        assertThatThrownBy(() -> volumes.mountsFor(withMount(new VolumeMountBuilder().withName("nope").withMountPath("/x").build()),
                List.of(), List.of()))
                .hasMessage("cannot find volume \"nope\" to mount into container \"c1\"");
    }

    @Test
    void unmountRemovesTmpfsMountsAndThePodDirectory() throws Exception {
        KubeletVolumeManager manager = manager(mounter);
        objects.putSecret("ns", "credentials", Map.of("password", "s3cr3t"));
        Pod pod = pod(List.of(new VolumeBuilder().withName("creds").withNewSecret().withSecretName("credentials").endSecret().build(),
                new VolumeBuilder().withName("scratch").withNewEmptyDir().endEmptyDir().build()), container());
        manager.mount(pod);
        assertThat(manager.podsOnDisk()).containsExactly("uid-1");

        manager.unmount("uid-1");

        assertThat(mounter.unmounted()).containsExactly(volumeDirectory("kubernetes.io~secret", "creds"));
        assertThat(root.resolve("pods/uid-1")).doesNotExist();
        assertThat(manager.podsOnDisk()).isEmpty();
        manager.unmount("uid-1");
    }

    @Test
    void memoryBackedEmptyDirIsARealTmpfsWhenRunningAsRoot() throws Exception {
        assumeTrue("root".equals(System.getProperty("user.name")), "mounting tmpfs needs root");
        SystemMounter system = new SystemMounter();
        KubeletVolumeManager manager = manager(system);
        Pod pod = pod(List.of(new VolumeBuilder().withName("cache").withNewEmptyDir().withMedium("Memory")
                .withSizeLimit(new Quantity("1Mi")).endEmptyDir().build()), container());
        Path directory = volumeDirectory("kubernetes.io~empty-dir", "cache");
        try {
            manager.mount(pod);

            assertThat(system.mountPointsUnder(root)).containsExactly(directory);
            assertThat(Files.getFileStore(directory).type()).isEqualTo("tmpfs");
            assertThat(Files.getFileStore(directory).getTotalSpace()).isEqualTo(1024L * 1024);
        } finally {
            manager.unmount("uid-1");
        }
        assertThat(system.mountPointsUnder(root)).isEmpty();
        assertThat(root.resolve("pods/uid-1")).doesNotExist();
    }

    @Test
    void subPathsAreRealBindMountsWhenRunningAsRoot() throws Exception {
        assumeTrue("root".equals(System.getProperty("user.name")), "bind mounts need root");
        SystemMounter system = new SystemMounter();
        KubeletVolumeManager manager = manager(system);
        Container container = withMount(new VolumeMountBuilder().withName("scratch").withMountPath("/logs").withSubPath("logs").build());
        Pod pod = pod(List.of(new VolumeBuilder().withName("scratch").withNewEmptyDir().endEmptyDir().build()), container);
        try {
            PodVolumes volumes = manager.mount(pod);
            Path target = volumes.mountsFor(container, List.of(), List.of()).get(0).hostPath();
            Files.writeString(volumeDirectory("kubernetes.io~empty-dir", "scratch").resolve("logs/app.log"), "line");

            assertThat(system.mountPointsUnder(root)).containsExactly(target);
            assertThat(Files.readString(target.resolve("app.log"))).isEqualTo("line");
            // A restarted container reuses the mount.
            assertThat(volumes.mountsFor(container, List.of(), List.of()).get(0).hostPath()).isEqualTo(target);
            assertThat(system.mountPointsUnder(root)).containsExactly(target);
        } finally {
            manager.unmount("uid-1");
        }
        assertThat(system.mountPointsUnder(root)).isEmpty();
    }

    private static Container withMount(io.fabric8.kubernetes.api.model.VolumeMount mount) {
        return new ContainerBuilder(container()).addToVolumeMounts(mount).build();
    }
}
