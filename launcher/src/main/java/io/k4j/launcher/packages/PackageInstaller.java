package io.k4j.launcher.packages;

import static java.util.Objects.requireNonNull;

import io.k4j.launcher.images.HostCommands;
import io.k4j.launcher.images.Progress;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Makes sure the Debian packages a node runs on are installed: when one is missing and k4j runs as root on Debian
 * (apt-get present), {@code apt-get install -y} installs it, its output reported line by line; otherwise one
 * {@link MissingPackagesException} names every missing package and the command that installs them.
 *
 * <p>Thread-safe; concurrent installs are serialized by apt's own lock.
 */
public final class PackageInstaller {
    /** A package and a file it installs, the proof that it is there even where dpkg is not the package manager. */
    public record RequiredPackage(String debianPackage, Path installedFile, String purpose) {
        public RequiredPackage {
            requireNonNull(debianPackage, "debianPackage is null");
            requireNonNull(installedFile, "installedFile is null");
            requireNonNull(purpose, "purpose is null");
        }
    }

    /** What a node needs: the container runtime, CNI plugins, iptables, the image sources and the local registry. */
    public static final List<RequiredPackage> NODE_PACKAGES = List.of(
            new RequiredPackage("containerd", Path.of("/usr/bin/containerd"), "the container runtime"),
            new RequiredPackage("runc", Path.of("/usr/sbin/runc"), "the OCI runtime containerd runs containers with"),
            new RequiredPackage("containernetworking-plugins", Path.of("/usr/lib/cni/bridge"), "the pod network (bridge, host-local, portmap)"),
            new RequiredPackage("iptables", Path.of("/usr/sbin/iptables"), "masquerading and host ports"),
            new RequiredPackage("busybox-static", Path.of("/bin/busybox"), "the busybox image"),
            new RequiredPackage("docker-registry", Path.of("/usr/bin/docker-registry"), "the local image registry"));

    /** Thrown when packages are missing and cannot be installed here. */
    public static final class MissingPackagesException extends Exception {
        private final List<String> packages;

        MissingPackagesException(List<String> packages, String message) {
            super(message);
            this.packages = List.copyOf(packages);
        }

        public List<String> packages() {
            return packages;
        }
    }

    private PackageInstaller() {}

    /** The packages of {@code required} that are not installed. */
    public static List<RequiredPackage> missing(List<RequiredPackage> required) {
        boolean dpkg = HostCommands.find("dpkg-query").isPresent();
        java.util.Map<String, String> versions = HostCommands.installedVersions(required.stream().map(RequiredPackage::debianPackage).toList());
        List<RequiredPackage> missing = new ArrayList<>();
        for (RequiredPackage candidate : required) {
            boolean installed = dpkg ? versions.containsKey(candidate.debianPackage()) : Files.exists(candidate.installedFile());
            if (!installed) {
                missing.add(candidate);
            }
        }
        return List.copyOf(missing);
    }

    /** Installs what is missing of {@code required} (as root on Debian) or fails naming it. */
    public static void ensureInstalled(List<RequiredPackage> required, Progress progress) throws MissingPackagesException {
        boolean root = "root".equals(System.getProperty("user.name"));
        ensureInstalled(required, progress, root && HostCommands.find("apt-get").isPresent(), root);
    }

    static void ensureInstalled(List<RequiredPackage> required, Progress progress, boolean mayInstall, boolean root)
            throws MissingPackagesException {
        List<RequiredPackage> missing = missing(required);
        if (missing.isEmpty()) {
            return;
        }
        List<String> names = missing.stream().map(RequiredPackage::debianPackage).toList();
        String needs = String.join(", ", missing.stream().map(p -> p.debianPackage() + " (" + p.purpose() + ")").toList());
        if (!mayInstall) {
            throw new MissingPackagesException(names, "the node needs the Debian packages " + needs + "; install them"
                    + (root ? "" : " as root") + ": apt-get install " + String.join(" ", names));
        }
        progress.report("packages: installing " + needs);
        try {
            if (!aptGet(names, progress)) {
                // Package lists missing or stale on a fresh machine: update them once and retry.
                progress.report("packages: apt-get install failed; running apt-get update and retrying");
                runStreaming(List.of("apt-get", "update"), progress);
                if (!aptGet(names, progress)) {
                    throw new MissingPackagesException(names, "apt-get install " + String.join(" ", names) + " failed (see its output above)");
                }
            }
        } catch (IOException e) {
            throw new MissingPackagesException(names, "cannot install " + String.join(" ", names) + ": " + e.getMessage());
        }
        List<RequiredPackage> stillMissing = missing(missing);
        if (!stillMissing.isEmpty()) {
            List<String> left = stillMissing.stream().map(RequiredPackage::debianPackage).toList();
            throw new MissingPackagesException(left, "apt-get did not install " + String.join(" ", left));
        }
        progress.report("packages: installed " + String.join(" ", names));
    }

    private static boolean aptGet(List<String> names, Progress progress) throws IOException {
        List<String> command = new ArrayList<>(List.of("apt-get", "install", "-y", "--no-install-recommends"));
        command.addAll(names);
        return runStreaming(command, progress) == 0;
    }

    private static int runStreaming(List<String> command, Progress progress) throws IOException {
        ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true);
        builder.environment().put("DEBIAN_FRONTEND", "noninteractive");
        Process process = builder.start();
        process.getOutputStream().close();
        try (BufferedReader output = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
            String line;
            while ((line = output.readLine()) != null) {
                if (!line.isBlank()) {
                    progress.report("packages: " + line.strip());
                }
            }
        }
        try {
            if (!process.waitFor(30, TimeUnit.MINUTES)) {
                process.destroyForcibly();
                throw new IOException(String.join(" ", command) + " did not finish within 30 minutes");
            }
            return process.exitValue();
        } catch (InterruptedException e) {
            process.destroyForcibly();
            Thread.currentThread().interrupt();
            throw new IOException("interrupted while running " + String.join(" ", command), e);
        }
    }
}
