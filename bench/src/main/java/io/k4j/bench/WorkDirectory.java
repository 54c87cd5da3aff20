package io.k4j.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Stream;

/**
 * Removes a benchmark's temporary directory once the benchmark is done: its servers' databases take hundreds of
 * megabytes a run, and left behind they filled the disk until the real node reported DiskPressure. Anything still
 * mounted below it (a real node's container mounts or volumes) keeps the whole directory where it is, since removing
 * files through a mount would reach outside it.
 */
final class WorkDirectory {
    private WorkDirectory() {}

    /** Removes {@code directory} with its contents, or says on stderr why it stays. */
    static void remove(Path directory) {
        Path absolute = directory.toAbsolutePath().normalize();
        try {
            List<String> mounts = mountPointsBelow(absolute);
            if (!mounts.isEmpty()) {
                System.err.println("bench: leaving " + absolute + " in place: " + mounts.size() + " mount(s) below it, first " + mounts.getFirst());
                return;
            }
            // Deepest first; a symbolic link is deleted itself, never followed.
            try (Stream<Path> paths = Files.walk(absolute)) {
                for (Path path : paths.sorted(Comparator.reverseOrder()).toList()) {
                    Files.delete(path);
                }
            }
        } catch (IOException e) {
            System.err.println("bench: could not remove " + absolute + " (" + e + "); remove it by hand");
        }
    }

    /** Mount points at or below {@code directory}, from the kernel's list of this process's mounts. */
    private static List<String> mountPointsBelow(Path directory) throws IOException {
        Path mountInfo = Path.of("/proc/self/mountinfo");
        if (!Files.exists(mountInfo)) {
            return List.of();
        }
        String prefix = directory.toString();
        // The fifth field is the mount point, with spaces and other special characters written as octal escapes.
        return Files.readAllLines(mountInfo).stream()
                .map(line -> line.split(" "))
                .filter(fields -> fields.length > 4)
                .map(fields -> fields[4])
                .filter(mountPoint -> mountPoint.equals(prefix) || mountPoint.startsWith(prefix + "/"))
                .toList();
    }
}
