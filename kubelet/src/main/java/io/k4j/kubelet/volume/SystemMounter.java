package io.k4j.kubelet.volume;

import io.k4j.kubelet.host.HostCommand;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.OptionalLong;

/**
 * The host's {@code mount}/{@code umount} commands and {@code /proc/self/mountinfo}; needs root (the kubelet runs as
 * root). Thread-safe.
 */
public final class SystemMounter implements Mounter {
    private static final Path MOUNT_INFO = Path.of("/proc/self/mountinfo");
    private static final Duration COMMAND_TIMEOUT = Duration.ofSeconds(30);

    @Override
    public void mountTmpfs(Path directory, OptionalLong sizeBytes) throws IOException {
        List<String> command = new ArrayList<>(List.of("mount", "-t", "tmpfs"));
        if (sizeBytes.isPresent()) {
            command.add("-o");
            command.add("size=" + sizeBytes.getAsLong());
        }
        command.add("tmpfs");
        command.add(directory.toString());
        run(command);
    }

    @Override
    public void bindMount(Path source, Path target) throws IOException {
        run(List.of("mount", "--bind", source.toString(), target.toString()));
    }

    @Override
    public void unmount(Path directory) throws IOException {
        run(List.of("umount", directory.toString()));
    }

    @Override
    public List<Path> mountPointsUnder(Path directory) throws IOException {
        Path root = directory.toAbsolutePath().normalize();
        List<Path> mountPoints = new ArrayList<>();
        for (String line : Files.readAllLines(MOUNT_INFO, StandardCharsets.UTF_8)) {
            String[] fields = line.split(" ");
            if (fields.length < 5) {
                continue;
            }
            Path mountPoint = Path.of(unescape(fields[4]));
            if (mountPoint.startsWith(root)) {
                mountPoints.add(mountPoint);
            }
        }
        mountPoints.sort(Comparator.comparingInt(Path::getNameCount).reversed());
        return List.copyOf(mountPoints);
    }

    /**
     * As upstream's {@code IsLikelyNotMountPoint}: a directory on another device than its parent is a mount point. The
     * kubelet asks this of its own tmpfs mounts on every pod sync, and reading the whole mount table instead grows with
     * every container's mounts on the node. A bind mount from the parent's own file system is not seen.
     */
    @Override
    public boolean isMountPoint(Path directory) throws IOException {
        Path absolute = directory.toAbsolutePath().normalize();
        Path parent = absolute.getParent();
        if (parent == null) {
            return true;
        }
        return !Files.getAttribute(absolute, "unix:dev", LinkOption.NOFOLLOW_LINKS)
                .equals(Files.getAttribute(parent, "unix:dev", LinkOption.NOFOLLOW_LINKS));
    }

    /** mountinfo writes space, tab, newline and backslash as three octal digits after a backslash. */
    static String unescape(String field) {
        StringBuilder text = new StringBuilder(field.length());
        for (int index = 0; index < field.length(); index++) {
            char character = field.charAt(index);
            if (character == '\\' && isOctal(field, index + 1)) {
                text.append((char) Integer.parseInt(field.substring(index + 1, index + 4), 8));
                index += 3;
            } else {
                text.append(character);
            }
        }
        return text.toString();
    }

    private static boolean isOctal(String field, int start) {
        if (start + 3 > field.length()) {
            return false;
        }
        for (int index = start; index < start + 3; index++) {
            char digit = field.charAt(index);
            if (digit < '0' || digit > '7') {
                return false;
            }
        }
        return true;
    }

    private static void run(List<String> command) throws IOException {
        HostCommand.Result result = HostCommand.run(command, COMMAND_TIMEOUT);
        if (result.exitCode() != 0) {
            throw result.failure(command);
        }
    }
}
