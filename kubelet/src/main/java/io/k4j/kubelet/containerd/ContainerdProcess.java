package io.k4j.kubelet.containerd;

import static java.util.Objects.requireNonNull;

import io.k4j.kubelet.cri.CriConnection;
import io.k4j.kubelet.cri.CriException;
import io.k4j.kubelet.cri.CriTimeouts;
import io.k4j.kubelet.cri.RuntimeService;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.function.Consumer;

/**
 * k4j's own containerd, supervised. {@link #start} writes {@code config.toml}, starts containerd in a session of its
 * own (so that neither a terminal's signals nor the death of the JVM reach it, and containers keep running), and
 * returns once CRI answers a Version call. When containerd dies it is restarted with an exponential backoff (1 s
 * doubling to 30 s, back to 1 s after a minute of uptime); {@link #isReady()} is false meanwhile. A containerd that
 * a previous, killed k4j left running on the same directory is adopted instead of started twice. {@link #close()}
 * stops containerd; the containers' shims are separate processes and survive it.
 *
 * <p>Thread-safe.
 */
public final class ContainerdProcess implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(ContainerdProcess.class);
    private static final Duration INITIAL_BACKOFF = Duration.ofSeconds(1);
    private static final Duration MAX_BACKOFF = Duration.ofSeconds(30);
    private static final Duration HEALTHY_UPTIME = Duration.ofMinutes(1);
    private static final Duration STOP_GRACE = Duration.ofSeconds(10);
    private static final Path SETSID = Path.of("/usr/bin/setsid");

    private final ContainerdConfig config;
    private final Duration startTimeout;
    private final List<Consumer<Boolean>> readinessListeners = new CopyOnWriteArrayList<>();
    private final Object lock = new Object();
    private ProcessHandle process;
    private Instant startedAt;
    private volatile boolean ready;
    private volatile boolean closed;
    private Thread supervisor;

    private ContainerdProcess(ContainerdConfig config, Duration startTimeout) {
        this.config = config;
        this.startTimeout = startTimeout;
    }

    /**
     * Starts (or adopts) containerd and waits until it answers CRI calls.
     *
     * @throws IOException when containerd is missing, cannot be started or does not answer within
     *         {@code startTimeout}; the message says why (with the end of containerd's log)
     */
    public static ContainerdProcess start(ContainerdConfig config, Duration startTimeout) throws IOException {
        requireNonNull(config, "config is null");
        requireNonNull(startTimeout, "startTimeout is null");
        if (!Files.isExecutable(config.containerdBinary())) {
            throw new IOException("containerd is not installed (" + config.containerdBinary() + " is missing): "
                    + "install the Debian packages containerd and runc, or pass --container-runtime-endpoint");
        }
        ContainerdProcess containerd = new ContainerdProcess(config, startTimeout);
        containerd.startOrAdopt();
        return containerd;
    }

    /** The CRI endpoint ({@code unix:///…/containerd.sock}). */
    public String endpoint() {
        return config.endpoint();
    }

    public ContainerdConfig config() {
        return config;
    }

    /** Whether containerd runs and answered CRI since it was last (re)started. */
    public boolean isReady() {
        return ready;
    }

    /** containerd's process id, while it runs. */
    public Optional<Long> pid() {
        synchronized (lock) {
            return process != null && process.isAlive() ? Optional.of(process.pid()) : Optional.empty();
        }
    }

    /** Called with {@code false} when containerd died and with {@code true} when it answers again. */
    public void onReadinessChange(Consumer<Boolean> listener) {
        readinessListeners.add(requireNonNull(listener, "listener is null"));
    }

    private void startOrAdopt() throws IOException {
        Files.createDirectories(config.directory());
        Files.createDirectories(config.cniConfDirectory());
        Files.writeString(config.configFile(), config.toml(), StandardCharsets.UTF_8);
        Optional<ProcessHandle> running = runningContainerd();
        ProcessHandle handle;
        if (running.isPresent()) {
            handle = running.get();
            log.info("Adopting containerd (pid {}) left running on {}", handle.pid(), config.directory());
        }
        else {
            handle = launch();
        }
        synchronized (lock) {
            process = handle;
            startedAt = Instant.now();
        }
        try {
            awaitCri(handle);
        }
        catch (IOException | RuntimeException e) {
            if (running.isEmpty()) {
                stop(handle);
            }
            throw e;
        }
        setReady(true);
        supervisor = Thread.ofPlatform().daemon().name("containerd-supervisor").start(this::supervise);
    }

    /** The containerd a previous k4j started on this directory, if it still runs. */
    private Optional<ProcessHandle> runningContainerd() throws IOException {
        if (!Files.exists(config.pidFile())) {
            return Optional.empty();
        }
        long pid;
        try {
            pid = Long.parseLong(Files.readString(config.pidFile()).trim());
        }
        catch (NumberFormatException e) {
            return Optional.empty();
        }
        return ProcessHandle.of(pid)
                .filter(ProcessHandle::isAlive)
                .filter(handle -> handle.info().commandLine()
                        .map(commandLine -> commandLine.contains(config.configFile().toString()))
                        .orElse(false));
    }

    private ProcessHandle launch() throws IOException {
        Files.deleteIfExists(config.socket());
        List<String> command = new ArrayList<>();
        if (Files.isExecutable(SETSID)) {
            // A session of its own: Ctrl-C on k4j's terminal and k4j's death leave containerd (and pods) alone.
            command.add(SETSID.toString());
        }
        command.add(config.containerdBinary().toString());
        command.add("--config");
        command.add(config.configFile().toString());
        Process started = new ProcessBuilder(command)
                .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")))
                .redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(config.logFile().toFile()))
                .start();
        Files.writeString(config.pidFile(), Long.toString(started.pid()));
        log.info("Started containerd (pid {}) on {}", started.pid(), config.socket());
        return started.toHandle();
    }

    /** Waits until containerd answers a CRI Version call; fails early when it exits. */
    private void awaitCri(ProcessHandle handle) throws IOException {
        Instant deadline = Instant.now().plus(startTimeout);
        CriException lastError = null;
        try (CriConnection connection = CriConnection.open(config.socket(),
                new CriTimeouts(Duration.ofSeconds(2), Duration.ofSeconds(2)))) {
            while (Instant.now().isBefore(deadline)) {
                if (!handle.isAlive()) {
                    throw new IOException("containerd exited while starting; its log ends with:\n" + logTail());
                }
                if (Files.exists(config.socket())) {
                    try {
                        connection.runtimeService().version(RuntimeService.API_VERSION);
                        return;
                    }
                    catch (CriException e) {
                        lastError = e;
                    }
                }
                try {
                    // Polling a socket that another process creates: there is nothing to wait on.
                    Thread.sleep(50);
                }
                catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new IOException("interrupted while waiting for containerd", e);
                }
            }
        }
        throw new IOException("containerd did not answer CRI within " + startTimeout
                + (lastError != null ? " (" + lastError.getMessage() + ")" : "") + "; its log ends with:\n"
                + logTail());
    }

    private void supervise() {
        Duration backoff = INITIAL_BACKOFF;
        while (!closed) {
            ProcessHandle current;
            synchronized (lock) {
                current = process;
            }
            try {
                current.onExit().get();
            }
            catch (InterruptedException e) {
                return;
            }
            catch (ExecutionException e) {
                log.warn("Waiting for containerd failed", e);
            }
            if (closed) {
                return;
            }
            setReady(false);
            Instant started;
            synchronized (lock) {
                started = startedAt;
            }
            if (Duration.between(started, Instant.now()).compareTo(HEALTHY_UPTIME) > 0) {
                backoff = INITIAL_BACKOFF;
            }
            while (!closed) {
                log.warn("containerd (pid {}) exited; restarting it in {} s", current.pid(), backoff.toSeconds());
                try {
                    Thread.sleep(backoff.toMillis());
                }
                catch (InterruptedException e) {
                    return;
                }
                backoff = backoff.multipliedBy(2).compareTo(MAX_BACKOFF) > 0 ? MAX_BACKOFF : backoff.multipliedBy(2);
                try {
                    ProcessHandle restarted;
                    synchronized (lock) {
                        if (closed) {
                            return;
                        }
                        restarted = launch();
                        process = restarted;
                        startedAt = Instant.now();
                    }
                    awaitCri(restarted);
                    setReady(true);
                    log.info("containerd (pid {}) is back", restarted.pid());
                    break;
                }
                catch (IOException e) {
                    log.warn("Restarting containerd failed: {}", e.getMessage());
                    synchronized (lock) {
                        current = process;
                    }
                    stop(current);
                }
            }
        }
    }

    private void setReady(boolean value) {
        if (ready == value) {
            return;
        }
        ready = value;
        for (Consumer<Boolean> listener : readinessListeners) {
            try {
                listener.accept(value);
            }
            catch (RuntimeException e) {
                log.warn("A containerd readiness listener failed", e);
            }
        }
    }

    private String logTail() {
        try {
            List<String> lines = Files.readAllLines(config.logFile(), StandardCharsets.UTF_8);
            return String.join("\n", lines.subList(Math.max(0, lines.size() - 20), lines.size()));
        }
        catch (IOException e) {
            return "(no log: " + e.getMessage() + ")";
        }
    }

    private static void stop(ProcessHandle handle) {
        if (!handle.isAlive()) {
            return;
        }
        handle.destroy();
        try {
            handle.onExit().get(STOP_GRACE.toMillis(), java.util.concurrent.TimeUnit.MILLISECONDS);
        }
        catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        catch (ExecutionException | java.util.concurrent.TimeoutException e) {
            handle.destroyForcibly();
        }
    }

    /**
     * Stops supervising and leaves containerd running, as a killed k4j would; the next {@link #start} on the same
     * directory adopts it. For tests of adoption.
     */
    void detach() {
        closed = true;
        if (supervisor != null) {
            supervisor.interrupt();
        }
    }

    /** Stops containerd (SIGTERM, then SIGKILL after 10 s). Running containers keep running in their shims. */
    @Override
    public void close() {
        closed = true;
        if (supervisor != null) {
            supervisor.interrupt();
            try {
                supervisor.join(STOP_GRACE.toMillis());
            }
            catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        ProcessHandle current;
        synchronized (lock) {
            current = process;
        }
        if (current != null) {
            stop(current);
        }
        ready = false;
        try {
            Files.deleteIfExists(config.pidFile());
        }
        catch (IOException e) {
            log.warn("Could not remove {}", config.pidFile(), e);
        }
    }
}
