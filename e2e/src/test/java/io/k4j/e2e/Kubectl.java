package io.k4j.e2e;

import static java.util.Objects.requireNonNull;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/** Runs the real {@code kubectl} binary against a kubeconfig. Thread-safe. */
public final class Kubectl {
    private static final long TIMEOUT_SECONDS = 60;

    private final Path kubeconfig;

    public Kubectl(Path kubeconfig) {
        this.kubeconfig = requireNonNull(kubeconfig, "kubeconfig is null");
    }

    /** The outcome of one kubectl run. */
    public record Result(int exitCode, String stdout, String stderr) {
        /** Fails with kubectl's own words when it did not exit 0. */
        public Result assertSuccess() {
            if (exitCode != 0) {
                throw new AssertionError("kubectl failed with exit code " + exitCode + ": " + stderr + stdout);
            }
            return this;
        }
    }

    public Result run(String... arguments) {
        return run(null, Map.of(), arguments);
    }

    /** Runs kubectl with {@code stdin} fed to it (may be null) and extra environment variables. */
    public Result run(String stdin, Map<String, String> environment, String... arguments) {
        List<String> command = new ArrayList<>();
        command.add("kubectl");
        command.add("--kubeconfig=" + kubeconfig);
        command.addAll(List.of(arguments));
        try {
            Path stdout = Files.createTempFile("kubectl", ".out");
            Path stderr = Files.createTempFile("kubectl", ".err");
            try {
                ProcessBuilder builder = new ProcessBuilder(command)
                        .redirectOutput(stdout.toFile())
                        .redirectError(stderr.toFile());
                builder.environment().putAll(environment);
                Process process = builder.start();
                try (var input = process.getOutputStream()) {
                    if (stdin != null) {
                        input.write(stdin.getBytes(StandardCharsets.UTF_8));
                    }
                }
                if (!process.waitFor(TIMEOUT_SECONDS, TimeUnit.SECONDS)) {
                    process.destroyForcibly();
                    throw new AssertionError("kubectl " + String.join(" ", arguments) + " did not finish in " + TIMEOUT_SECONDS + " s");
                }
                return new Result(process.exitValue(), Files.readString(stdout), Files.readString(stderr));
            } finally {
                Files.deleteIfExists(stdout);
                Files.deleteIfExists(stderr);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError("interrupted", e);
        }
    }
}
