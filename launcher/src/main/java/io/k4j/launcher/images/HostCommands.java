package io.k4j.launcher.images;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * Runs short host commands (dpkg-query, apt-get download, gcc, ldd …) and returns their output; a failure becomes an
 * {@link IOException} carrying the command and what it printed.
 *
 * <p>Stateless and thread-safe.
 */
public final class HostCommands {
    private HostCommands() {}

    /** Runs the command and returns its standard output; fails with its output when the exit status is not 0. */
    public static String run(List<String> command, Path workingDirectory) throws IOException {
        Path output = Files.createTempFile("k4j-command", ".out");
        try {
            ProcessBuilder builder = new ProcessBuilder(command).redirectOutput(output.toFile());
            Path errors = Files.createTempFile("k4j-command", ".err");
            try {
                builder.redirectError(errors.toFile());
                if (workingDirectory != null) {
                    builder.directory(workingDirectory.toFile());
                }
                builder.environment().put("LC_ALL", "C");
                Process process = builder.start();
                process.getOutputStream().close();
                boolean exited;
                try {
                    exited = process.waitFor(10, TimeUnit.MINUTES);
                } catch (InterruptedException e) {
                    process.destroyForcibly();
                    Thread.currentThread().interrupt();
                    throw new IOException("interrupted while running " + String.join(" ", command), e);
                }
                if (!exited) {
                    process.destroyForcibly();
                    throw new IOException(String.join(" ", command) + " did not finish within 10 minutes");
                }
                String standardOutput = Files.readString(output, StandardCharsets.UTF_8);
                if (process.exitValue() != 0) {
                    String standardError = Files.readString(errors, StandardCharsets.UTF_8).strip();
                    throw new IOException(String.join(" ", command) + " failed (exit status " + process.exitValue() + ")"
                            + (standardError.isEmpty() ? "" : ": " + standardError));
                }
                return standardOutput;
            } finally {
                Files.deleteIfExists(errors);
            }
        } finally {
            Files.deleteIfExists(output);
        }
    }

    public static String run(String... command) throws IOException {
        return run(List.of(command), null);
    }

    /** The absolute path of an executable on PATH, if any. */
    public static Optional<Path> find(String executable) {
        String path = System.getenv().getOrDefault("PATH", "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin");
        for (String directory : (path + ":/usr/sbin:/sbin").split(":")) {
            if (directory.isEmpty()) {
                continue;
            }
            Path candidate = Path.of(directory, executable);
            if (Files.isRegularFile(candidate) && Files.isExecutable(candidate)) {
                return Optional.of(candidate);
            }
        }
        return Optional.empty();
    }

    /** The installed version of a Debian package, if it is installed. */
    public static Optional<String> installedVersion(String debianPackage) {
        return Optional.ofNullable(installedVersions(List.of(debianPackage)).get(debianPackage));
    }

    /** The installed versions of those of the Debian packages that are installed, asked in one dpkg-query. */
    public static Map<String, String> installedVersions(Collection<String> debianPackages) {
        Map<String, String> versions = new TreeMap<>();
        if (debianPackages.isEmpty() || find("dpkg-query").isEmpty()) {
            return versions;
        }
        List<String> command = new ArrayList<>(List.of("dpkg-query", "-W", "-f=${Package} ${db:Status-Status} ${Version}\\n"));
        command.addAll(debianPackages);
        try {
            Process process = new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.DISCARD).start();
            process.getOutputStream().close();
            // dpkg-query exits 1 when some package is unknown, yet prints the others: read the output either way.
            String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            process.waitFor(1, TimeUnit.MINUTES);
            for (String line : output.split("\n")) {
                String[] fields = line.strip().split(" ", 3);
                if (fields.length == 3 && fields[1].equals("installed")) {
                    versions.put(fields[0].replaceFirst(":.*", ""), fields[2]);
                }
            }
        } catch (IOException e) {
            return versions;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        return versions;
    }
}
