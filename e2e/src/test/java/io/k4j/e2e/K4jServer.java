package io.k4j.e2e;

import static java.util.Objects.requireNonNull;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.channels.FileLock;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * A real {@code k4j server} in a child process, started exactly as {@code ./k4j server} starts it (the packaged
 * program in launcher/target), listening on a free loopback port with its own data directory. Its maximum heap is
 * 1g unless the system property {@code k4j.server.heap} says otherwise (the benchmarks' large clusters need more);
 * {@value #JVM_DEFAULT_HEAP} leaves the JVM its default, as {@code ./k4j server} does. The environment's
 * {@code K4J_JAVA_OPTS} are added to the JVM's options, as {@code ./k4j server} adds them.
 * {@link #start} runs the control plane only ({@code --disable-agent}); {@link #startWithNode} also runs the real
 * node (containerd, kubelet), which needs root. kube-proxy is off ({@code --disable-kube-proxy}) unless a test gives
 * it a network namespace of its own, or starts with {@link #startWithNodeAndHostKubeProxy} (the host's tables, under a
 * machine-wide lock). A real node owns machine-wide things, so {@link #startWithNode} takes a {@link RealNodeSlots}
 * slot and holds it until {@link #close}. Not thread-safe: one test class drives one server.
 */
public final class K4jServer implements AutoCloseable {
    /** The value of {@code k4j.server.heap} that sets no maximum heap: the JVM's default, a quarter of the memory. */
    public static final String JVM_DEFAULT_HEAP = "default";

    private final Path dataDirectory;
    private final List<String> extraArguments;
    private final int port;
    private final Optional<RealNodeSlots.Slot> realNodeSlot;
    private final Optional<FileLock> hostKubeProxyLock;
    /** The maximum heap of the next start, {@value #JVM_DEFAULT_HEAP} for the JVM's default. */
    private String heap;
    private Process process;
    private static final Duration CLIENT_REQUEST_TIMEOUT = Duration.ofMinutes(1);

    private Duration readyAfter = Duration.ZERO;

    private static final Path HOST_KUBE_PROXY_LOCK = Path.of("/run/lock/k4j-e2e-host-kube-proxy.lock");

    private K4jServer(Path dataDirectory, int port, String heap, List<String> extraArguments, Optional<RealNodeSlots.Slot> realNodeSlot,
            Optional<FileLock> hostKubeProxyLock) {
        this.dataDirectory = requireNonNull(dataDirectory, "dataDirectory is null");
        this.heap = requireNonNull(heap, "heap is null");
        this.port = port;
        this.extraArguments = List.copyOf(extraArguments);
        this.realNodeSlot = requireNonNull(realNodeSlot, "realNodeSlot is null");
        this.hostKubeProxyLock = requireNonNull(hostKubeProxyLock, "hostKubeProxyLock is null");
    }

    /** Starts a server without a real node on a new data directory and waits until it is ready. */
    public static K4jServer start(Path dataDirectory, String... extraArguments) {
        return startWithHeap(dataDirectory, defaultHeap(), extraArguments);
    }

    /** Starts a server without a real node, as {@link #start}, with at most {@code heap} of heap (e.g. {@code 256m}). */
    public static K4jServer startWithHeap(Path dataDirectory, String heap, String... extraArguments) {
        List<String> arguments = new ArrayList<>(List.of(extraArguments));
        arguments.add("--disable-agent");
        K4jServer server = new K4jServer(dataDirectory, freeLoopbackPort(), heap, arguments, Optional.empty(), Optional.empty());
        server.startProcess();
        return server;
    }

    private static String defaultHeap() {
        return System.getProperty("k4j.server.heap", "1g");
    }

    /** Skips the calling test unless this machine can run a real node: root, and containerd installed. */
    public static void assumeRealNodePossible() {
        assumeTrue("root".equals(System.getProperty("user.name")), "a real node needs root");
        assumeTrue(Files.isExecutable(Path.of("/usr/bin/containerd")), "containerd is not installed");
    }

    /** Starts a server with its real node (k4j's containerd and kubelet) and waits until the apiserver is ready. */
    public static K4jServer startWithNode(Path dataDirectory, String... extraArguments) {
        return startWithNode(dataDirectory, Optional.empty(), extraArguments);
    }

    /**
     * Starts a server with its real node and kube-proxy on the HOST's iptables, so that service IPs (and the cluster
     * DNS behind the kube-dns service) work for the node's pods. Two kube-proxies on one host's tables would overwrite
     * each other's KUBE-* chains, so this holds the machine-wide lock {@code /run/lock/k4j-e2e-host-kube-proxy.lock}
     * from before the start until {@link #close}, which removes every KUBE-* chain and jump from the host's tables
     * after the server stopped (stale chains of a crashed run go before the start).
     */
    public static K4jServer startWithNodeAndHostKubeProxy(Path dataDirectory, String... extraArguments) {
        FileLock hostLock = RealNodeSlots.lock(HOST_KUBE_PROXY_LOCK);
        try {
            removeHostKubeChains();
        } catch (RuntimeException e) {
            RealNodeSlots.release(hostLock);
            throw e;
        }
        return startWithNode(dataDirectory, Optional.of(hostLock), extraArguments);
    }

    private static K4jServer startWithNode(Path dataDirectory, Optional<FileLock> hostKubeProxyLock, String... extraArguments) {
        RealNodeSlots.Slot slot;
        try {
            slot = RealNodeSlots.take();
        } catch (RuntimeException e) {
            hostKubeProxyLock.ifPresent(RealNodeSlots::release);
            throw e;
        }
        List<String> arguments = new ArrayList<>(slot.nodeArguments());
        arguments.addAll(List.of("--cluster-cidr", slot.clusterCidr()));
        arguments.addAll(List.of(extraArguments));
        K4jServer server = new K4jServer(dataDirectory, freeLoopbackPort(), defaultHeap(), arguments, Optional.of(slot), hostKubeProxyLock);
        try {
            server.startProcess();
        } catch (RuntimeException e) {
            server.close();
            throw e;
        }
        return server;
    }

    private static void removeHostKubeChains() {
        try {
            HostKubeChains.remove();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while removing the host's KUBE-* chains", e);
        }
    }

    /** The CNI bridge this server's real node attaches pods to. */
    public String cniBridge() {
        return realNodeSlot.map(RealNodeSlots.Slot::cniBridge).orElseThrow(() -> new IllegalStateException("no real node"));
    }

    /** The cluster CIDR this server's nodes take their podCIDRs from. */
    public String clusterCidr() {
        return realNodeSlot.map(RealNodeSlots.Slot::clusterCidr).orElse("10.42.0.0/16");
    }

    public Path kubeconfig() {
        return dataDirectory.resolve("admin.kubeconfig");
    }

    /**
     * A fabric8 client of the admin kubeconfig. Its requests wait up to a minute: on a loaded machine a request can
     * outlast fabric8's default 10 s, and fabric8 retries a timed-out request, so a create that succeeded the first
     * time would fail as AlreadyExists.
     */
    public KubernetesClient client() {
        try {
            Config config = Config.fromKubeconfig(Files.readString(kubeconfig()));
            config.setRequestTimeout((int) CLIENT_REQUEST_TIMEOUT.toMillis());
            return new KubernetesClientBuilder().withConfig(config).build();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    public Path dataDirectory() {
        return dataDirectory;
    }

    public int port() {
        return port;
    }

    /**
     * How long the last start took from launching the process to the admin kubeconfig's appearance, which the server
     * writes as its last step before {@code /readyz} passes (the start waits for a successful {@code /readyz} too).
     */
    public Duration readyAfter() {
        return readyAfter;
    }

    public long pid() {
        return process.pid();
    }

    /** The server process's resident set size in bytes, from /proc. */
    public long residentSetBytes() {
        try {
            for (String line : Files.readAllLines(Path.of("/proc", Long.toString(process.pid()), "status"))) {
                if (line.startsWith("VmRSS:")) {
                    return Long.parseLong(line.replaceAll("[^0-9]", "")) * 1024;
                }
            }
            throw new IllegalStateException("no VmRSS for process " + process.pid());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Waits (up to 5 minutes: the node's first start builds and pushes its images) until a node reports Ready. */
    public void awaitNodeReady() {
        Kubectl kubectl = kubectl();
        await("node Ready").atMost(Duration.ofMinutes(5)).pollInterval(Duration.ofSeconds(1)).until(() -> kubectl.run("get",
                "nodes", "-o", "jsonpath={.items[*].status.conditions[?(@.type=='Ready')].status}").stdout().contains("True"));
    }

    public Kubectl kubectl() {
        return new Kubectl(kubeconfig());
    }

    /** Kills the process with SIGKILL (no shutdown hooks), as a crash would. */
    public void kill() {
        process.destroyForcibly();
        waitForExit();
    }

    /** Starts the process again, as {@link #restart()}, with at most {@code heap} of heap from now on. */
    public void restart(String heap) {
        this.heap = requireNonNull(heap, "heap is null");
        restart();
    }

    /** Waits up to {@code timeout} for the process to exit by itself; its exit status. */
    public int awaitExit(Duration timeout) throws InterruptedException {
        if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
            throw new AssertionError("k4j server still runs after " + timeout + "; the end of its log:\n" + logTail(40));
        }
        return process.exitValue();
    }

    /** Starts the process again on the same data directory and port and waits until it is ready. */
    public void restart() {
        if (process.isAlive()) {
            process.destroy();
            waitForExit();
        }
        startProcess();
    }

    private void startProcess() {
        Path launcherDirectory = LauncherCommand.directory();
        String java = LauncherCommand.java();
        List<String> command = LauncherCommand.jvm(launcherDirectory, heap.equals(JVM_DEFAULT_HEAP) ? null : heap);
        // The start-up archive ./k4j uses, so that start-up is measured as users see it.
        StartupArchive archive = StartupArchive.forThisJdk(launcherDirectory);
        if (classArchive(archive, launcherDirectory, java)) {
            command.addAll(archive.useOptions());
        }
        // The JVM options a user gives ./k4j server, for a benchmark or a test run that tries some.
        String javaOptions = System.getenv().getOrDefault("K4J_JAVA_OPTS", "").strip();
        if (!javaOptions.isEmpty()) {
            command.addAll(List.of(javaOptions.split("\\s+")));
        }
        command.addAll(LauncherCommand.main(launcherDirectory, "server"));
        command.addAll(List.of("--data-dir", dataDirectory.toString(),
                "--bind-address", "127.0.0.1",
                "--secure-port", Integer.toString(port),
                "--write-kubeconfig", dataDirectory.resolve("user.kubeconfig").toString()));
        // Servers of parallel tests must not fight over the cluster DNS's default port: a free one unless a test picks one.
        if (extraArguments.stream().noneMatch(argument -> argument.startsWith("--cluster-dns-bind"))) {
            command.addAll(List.of("--cluster-dns-bind", "127.0.0.1:0"));
        }
        // Tests program the host's iptables only under the host kube-proxy lock; otherwise kube-proxy runs only inside a
        // network namespace a test made itself, or not at all.
        if (hostKubeProxyLock.isEmpty()
                && extraArguments.stream().noneMatch(argument -> argument.startsWith("--kube-proxy-network-namespace"))) {
            command.add("--disable-kube-proxy");
        }
        command.addAll(extraArguments);
        long launched = System.nanoTime();
        try {
            Files.createDirectories(dataDirectory);
            process = new ProcessBuilder(command)
                    .redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.appendTo(dataDirectory.resolve("server.log").toFile()))
                    .start();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        // Generous: on a loaded 2-core machine a first start (keys, class loading) can take many times its idle time.
        // The server writes the admin kubeconfig as the last step before it turns /readyz ready, so the start is
        // timed to the kubeconfig's appearance (polled often and cheaply), and /readyz is then asked straight over
        // HTTPS: a kubectl process per poll, or this JVM's first TLS client, would add their own start-up to the time.
        long[] kubeconfigSeen = new long[1];
        KubeconfigHttpClient[] readyz = new KubeconfigHttpClient[1];
        await("k4j server on port " + port + " ready")
                .atMost(Duration.ofSeconds(180))
                .pollDelay(Duration.ZERO)
                .pollInterval(Duration.ofMillis(10))
                .until(() -> {
                    if (!process.isAlive()) {
                        throw new IllegalStateException("k4j server exited with " + process.exitValue() + "; the end of "
                                + dataDirectory.resolve("server.log") + " (a temporary directory may be gone after the test):\n" + logTail(40));
                    }
                    if (readyz[0] == null && Files.exists(kubeconfig())) {
                        kubeconfigSeen[0] = System.nanoTime();
                        readyz[0] = KubeconfigHttpClient.of(kubeconfig());
                    }
                    return readyz[0] != null && answersReadyz(readyz[0]);
                });
        readyAfter = Duration.ofNanos(kubeconfigSeen[0] - launched);
    }

    /**
     * The archive of the classes a start loads, as ./k4j makes and uses it: an ahead-of-time cache on JDK 25 and later,
     * a dynamic class-data sharing archive before.
     */
    private record StartupArchive(Path file, String recordOption, List<String> moreRecordOptions, String useOption) {
        static StartupArchive forThisJdk(Path launcherDirectory) {
            // Without the training start's method profiles, as ./k4j makes it (see its class_archive).
            return Runtime.version().feature() >= 25
                    ? new StartupArchive(launcherDirectory.resolve("k4j.aot"), "-XX:AOTCacheOutput",
                            List.of("-XX:+UnlockDiagnosticVMOptions", "-XX:-AOTRecordTraining"), "-XX:AOTCache")
                    : new StartupArchive(launcherDirectory.resolve("k4j.jsa"), "-XX:ArchiveClassesAtExit", List.of(), "-XX:SharedArchiveFile");
        }

        List<String> recordOptions(Path partial) {
            List<String> options = new ArrayList<>();
            options.add(recordOption + "=" + partial);
            options.addAll(moreRecordOptions);
            return options;
        }

        List<String> useOptions() {
            return List.of(useOption + "=" + file, "-Xlog:cds=off", "-Xlog:cds+dynamic=off", "-Xlog:aot=off");
        }
    }

    /**
     * Makes the start-up archive as ./k4j does (one training start that exits by itself) unless one newer than the
     * launcher jar exists; false when there is none to use. A file lock makes the test JVMs that start together train
     * once: the others wait and use its archive.
     */
    private static synchronized boolean classArchive(StartupArchive archive, Path launcherDirectory, String javaCommand) {
        if (!Files.isWritable(launcherDirectory)) {
            return freshOrTrained(archive, launcherDirectory, javaCommand);
        }
        FileLock lock = RealNodeSlots.lock(launcherDirectory.resolve("k4j-archive.lock"));
        try {
            return freshOrTrained(archive, launcherDirectory, javaCommand);
        } finally {
            RealNodeSlots.release(lock);
        }
    }

    private static boolean freshOrTrained(StartupArchive archive, Path launcherDirectory, String javaCommand) {
        Path jar = launcherDirectory.resolve("k4j-launcher.jar");
        try {
            if (Files.exists(archive.file()) && Files.getLastModifiedTime(archive.file()).compareTo(Files.getLastModifiedTime(jar)) > 0) {
                return true;
            }
            if (!Files.isWritable(launcherDirectory)) {
                return false;
            }
            Path training = Files.createTempDirectory("k4j-cds-training");
            Path partial = Path.of(archive.file() + ".partial-" + ProcessHandle.current().pid());
            List<String> command = new ArrayList<>(List.of(javaCommand, "--enable-native-access=ALL-UNNAMED"));
            command.addAll(archive.recordOptions(partial));
            command.addAll(List.of("-Xlog:cds=off", "-Xlog:cds+dynamic=off", "-Xlog:aot=off"));
            command.addAll(LauncherCommand.main(launcherDirectory, "server"));
            command.addAll(List.of("--data-dir", training.toString(), "--bind-address", "127.0.0.1", "--secure-port", "0",
                    "--write-kubeconfig", training.resolve("kubeconfig").toString(), "--exit-when-ready"));
            Process process = new ProcessBuilder(command)
                    .redirectErrorStream(true)
                    .redirectOutput(training.resolve("server.log").toFile())
                    .start();
            boolean exited = process.waitFor(5, TimeUnit.MINUTES);
            if (!exited) {
                process.destroyForcibly();
            }
            if (exited && process.exitValue() == 0 && Files.exists(partial)) {
                Files.move(partial, archive.file(), StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
            } else {
                Files.deleteIfExists(partial);
            }
            try (Stream<Path> files = Files.walk(training)) {
                files.sorted(Comparator.reverseOrder()).forEach(file -> file.toFile().delete());
            }
            return Files.exists(archive.file());
        } catch (IOException e) {
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    private static boolean answersReadyz(KubeconfigHttpClient readyz) {
        HttpRequest request = HttpRequest.newBuilder(readyz.server().resolve("/readyz")).timeout(Duration.ofSeconds(10)).GET().build();
        try {
            return readyz.client().send(request, HttpResponse.BodyHandlers.discarding()).statusCode() == 200;
        } catch (IOException e) {
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    /** The last {@code lines} lines of the server's log, for a failure message that outlives the data directory. */
    public String logTail(int lines) {
        try {
            List<String> all = Files.readAllLines(dataDirectory.resolve("server.log"));
            return String.join("\n", all.subList(Math.max(0, all.size() - lines), all.size()));
        } catch (IOException | UncheckedIOException e) {
            return "(server.log unreadable: " + e.getMessage() + ")";
        }
    }

    private void waitForExit() {
        try {
            process.waitFor();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while stopping the server", e);
        }
    }

    @Override
    public void close() {
        try {
            stopProcess();
        } finally {
            releaseMachineLocks();
        }
    }

    /**
     * Closes a server with a real node and removes what the node leaves on the machine while this server still holds
     * its slot: processes it started in sessions of their own (registry, containerd, shims) that outlive a server that
     * did not stop cleanly, the kubelet's mounts, the data directory and the slot's bridge when no pod is left on it.
     * The server's log is kept as {@code keepLogAs} for a failure's post-mortem.
     */
    public void closeAndRemoveNode(Path keepLogAs) throws IOException, InterruptedException {
        try {
            stopProcess();
            stopLeftoverProcesses();
            Path log = dataDirectory.resolve("server.log");
            if (Files.exists(log)) {
                Files.createDirectories(keepLogAs.toAbsolutePath().getParent());
                Files.copy(log, keepLogAs, StandardCopyOption.REPLACE_EXISTING);
            }
            unmountUnder(dataDirectory);
            new ProcessBuilder("rm", "-rf", dataDirectory.toString()).start().waitFor();
            realNodeSlot.ifPresent(RealNodeSlots.Slot::removeIdleBridge);
        } finally {
            releaseMachineLocks();
        }
    }

    /** Stops what still runs from this data directory, and waits (forcing after 30 s) until it has gone. */
    private void stopLeftoverProcesses() throws InterruptedException {
        String directory = dataDirectory.toString();
        List<ProcessHandle> leftovers = ProcessHandle.allProcesses()
                .filter(other -> other.info().commandLine().orElse("").contains(directory))
                .toList();
        leftovers.forEach(ProcessHandle::destroy);
        for (ProcessHandle leftover : leftovers) {
            try {
                leftover.onExit().get(30, TimeUnit.SECONDS);
            } catch (java.util.concurrent.TimeoutException | java.util.concurrent.ExecutionException e) {
                leftover.destroyForcibly();
            }
        }
    }

    /** Unmounts what the kubelet mounted under {@code directory} (secret tmpfs, …) so that it can be removed. */
    private static void unmountUnder(Path directory) throws IOException, InterruptedException {
        List<String> mounts = Files.readAllLines(Path.of("/proc/self/mounts")).stream()
                .map(line -> line.split(" ")[1])
                .filter(mountPoint -> mountPoint.startsWith(directory + "/"))
                .sorted(Comparator.comparingInt(String::length).reversed())
                .toList();
        for (String mountPoint : mounts) {
            new ProcessBuilder("umount", "-l", mountPoint).start().waitFor();
        }
    }

    private void stopProcess() {
        if (process != null && process.isAlive()) {
            process.destroy();
            waitForExit();
        }
    }

    private void releaseMachineLocks() {
        try {
            if (hostKubeProxyLock.isPresent()) {
                removeHostKubeChains();
            }
        } finally {
            hostKubeProxyLock.ifPresent(RealNodeSlots::release);
            realNodeSlot.ifPresent(RealNodeSlots.Slot::close);
        }
    }

    private static int freeLoopbackPort() {
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return socket.getLocalPort();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
