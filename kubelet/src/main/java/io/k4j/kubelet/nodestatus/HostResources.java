package io.k4j.kubelet.nodestatus;

import java.io.IOException;
import java.nio.file.FileStore;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;

/**
 * What the host has, read from {@code /proc} and the file system the kubelet's root lives on: CPUs, memory,
 * ephemeral storage and how much of each is free. Stateless.
 */
public final class HostResources {
    private HostResources() {}

    public static int cpus() {
        return Runtime.getRuntime().availableProcessors();
    }

    /** {@code MemTotal} in bytes. */
    public static long memoryBytes() {
        return meminfo("MemTotal").orElse(0L);
    }

    /** {@code MemAvailable} in bytes. */
    public static long memoryAvailableBytes() {
        return meminfo("MemAvailable").orElse(memoryBytes());
    }

    /** The size of the file system holding {@code path}, in bytes. */
    public static long storageBytes(Path path) {
        try {
            return store(path).getTotalSpace();
        }
        catch (IOException e) {
            return 0;
        }
    }

    /** The free space of the file system holding {@code path}, in bytes. */
    public static long storageAvailableBytes(Path path) {
        try {
            return store(path).getUsableSpace();
        }
        catch (IOException e) {
            return 0;
        }
    }

    /** A file's first line, trimmed, if it can be read (machine-id, boot_id, osrelease). */
    public static String firstLine(Path file) {
        try {
            return Files.readAllLines(file).stream().findFirst().orElse("").trim();
        }
        catch (IOException e) {
            return "";
        }
    }

    /** {@code PRETTY_NAME} of {@code /etc/os-release}. */
    public static String osImage() {
        try {
            for (String line : Files.readAllLines(Path.of("/etc/os-release"))) {
                if (line.startsWith("PRETTY_NAME=")) {
                    return line.substring("PRETTY_NAME=".length()).replace("\"", "");
                }
            }
        }
        catch (IOException e) {
            return "Linux";
        }
        return "Linux";
    }

    private static FileStore store(Path path) throws IOException {
        Path existing = path.toAbsolutePath();
        while (existing != null && !Files.exists(existing)) {
            existing = existing.getParent();
        }
        return Files.getFileStore(existing == null ? Path.of("/") : existing);
    }

    private static Optional<Long> meminfo(String field) {
        try {
            for (String line : Files.readAllLines(Path.of("/proc/meminfo"))) {
                if (line.startsWith(field + ":")) {
                    String[] parts = line.substring(field.length() + 1).trim().split("\\s+");
                    return Optional.of(Long.parseLong(parts[0]) * 1024);
                }
            }
        }
        catch (IOException | NumberFormatException e) {
            return Optional.empty();
        }
        return Optional.empty();
    }
}
