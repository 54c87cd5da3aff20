package io.k4j.kubelet.volume;

import static java.util.Objects.requireNonNull;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.InstantSource;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.Set;
import java.util.concurrent.ThreadLocalRandom;
import java.util.stream.Stream;

/**
 * Writes a set of files into a volume directory so that a reader never sees a mix of old and new content, as
 * upstream's {@code AtomicWriter}: the files go into a fresh hidden directory {@code ..<timestamp>}, the symlink
 * {@code ..data} is swapped to it with one rename, and each top-level entry the user sees is a symlink through
 * {@code ..data}. Writing the same content again changes nothing on disk. Not thread-safe: callers serialise writes
 * to one directory.
 */
final class AtomicWriter {
    static final String DATA_DIRECTORY = "..data";
    private static final String NEW_DATA_DIRECTORY = "..data_tmp";
    private static final DateTimeFormatter TIMESTAMP = DateTimeFormatter.ofPattern("yyyy_MM_dd_HH_mm_ss.").withZone(ZoneOffset.UTC);

    private final Path target;
    private final InstantSource clock;

    AtomicWriter(Path target, InstantSource clock) {
        this.target = requireNonNull(target, "target is null");
        this.clock = requireNonNull(clock, "clock is null");
    }

    /**
     * Makes the directory hold exactly {@code payload} (relative paths to files).
     *
     * @param groupId when present, files and directories are given this group and made group-readable, as
     *     upstream's volume ownership for {@code fsGroup}
     * @return whether anything changed
     * @throws IllegalArgumentException for a path that is absolute, has {@code ..} elements or starts with {@code ..}
     */
    boolean write(Map<String, FileProjection> payload, OptionalInt groupId) throws IOException {
        Map<String, FileProjection> cleaned = validate(payload);
        Files.createDirectories(target);
        Path dataLink = target.resolve(DATA_DIRECTORY);
        Optional<Path> oldData = currentDataDirectory(dataLink);
        if (oldData.isPresent() && sameContent(oldData.get(), cleaned, groupId)) {
            return createUserVisibleLinks(cleaned) | removeStaleUserVisibleLinks(cleaned);
        }
        Path newData = createTimestampedDirectory();
        writePayload(newData, cleaned, groupId);
        Path newLink = target.resolve(NEW_DATA_DIRECTORY);
        Files.deleteIfExists(newLink);
        Files.createSymbolicLink(newLink, newData.getFileName());
        Files.move(newLink, dataLink, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        createUserVisibleLinks(cleaned);
        removeStaleUserVisibleLinks(cleaned);
        if (oldData.isPresent() && !oldData.get().equals(newData)) {
            VolumeFiles.deleteRecursively(oldData.get());
        }
        return true;
    }

    private static Map<String, FileProjection> validate(Map<String, FileProjection> payload) {
        Map<String, FileProjection> cleaned = new HashMap<>();
        for (Map.Entry<String, FileProjection> entry : payload.entrySet()) {
            String path = entry.getKey();
            if (path.isEmpty()) {
                throw new IllegalArgumentException("invalid path: must not be empty: " + path);
            }
            if (path.startsWith("/")) {
                throw new IllegalArgumentException("invalid path: must be relative path: " + path);
            }
            if (path.startsWith("..")) {
                throw new IllegalArgumentException("invalid path: must not start with '..': " + path);
            }
            for (String element : path.split("/")) {
                if (element.equals("..")) {
                    throw new IllegalArgumentException("invalid path: must not contain '..': " + path);
                }
            }
            String normalized = Path.of(path).normalize().toString();
            cleaned.put(normalized, entry.getValue());
        }
        return cleaned;
    }

    private Optional<Path> currentDataDirectory(Path dataLink) throws IOException {
        if (!Files.isSymbolicLink(dataLink)) {
            return Optional.empty();
        }
        Path directory = target.resolve(Files.readSymbolicLink(dataLink));
        return Files.isDirectory(directory, LinkOption.NOFOLLOW_LINKS) ? Optional.of(directory) : Optional.empty();
    }

    private static boolean sameContent(Path dataDirectory, Map<String, FileProjection> payload, OptionalInt groupId) throws IOException {
        Set<String> present = new HashSet<>();
        try (Stream<Path> files = Files.walk(dataDirectory)) {
            for (Path file : (Iterable<Path>) files::iterator) {
                if (Files.isRegularFile(file, LinkOption.NOFOLLOW_LINKS)) {
                    present.add(dataDirectory.relativize(file).toString());
                }
            }
        }
        if (!present.equals(payload.keySet())) {
            return false;
        }
        for (Map.Entry<String, FileProjection> entry : payload.entrySet()) {
            Path file = dataDirectory.resolve(entry.getKey());
            int expectedMode = groupId.isPresent() ? entry.getValue().mode() | 0440 : entry.getValue().mode();
            long owner = entry.getValue().ownerUid();
            if (owner >= 0 && ((Integer) Files.getAttribute(file, "unix:uid", LinkOption.NOFOLLOW_LINKS)) != owner) {
                return false;
            }
            if (VolumeFiles.mode(file) != expectedMode
                    || !java.util.Arrays.equals(Files.readAllBytes(file), entry.getValue().data())) {
                return false;
            }
        }
        return true;
    }

    private Path createTimestampedDirectory() throws IOException {
        String prefix = ".." + TIMESTAMP.format(clock.instant());
        while (true) {
            Path candidate = target.resolve(prefix + Integer.toUnsignedString(ThreadLocalRandom.current().nextInt()));
            try {
                Files.createDirectory(candidate);
                VolumeFiles.setMode(candidate, 0755);
                return candidate;
            } catch (FileAlreadyExistsException e) {
                // Another random suffix.
            }
        }
    }

    private static void writePayload(Path dataDirectory, Map<String, FileProjection> payload, OptionalInt groupId) throws IOException {
        for (Map.Entry<String, FileProjection> entry : payload.entrySet()) {
            Path file = dataDirectory.resolve(entry.getKey());
            Path parent = file.getParent();
            if (!parent.equals(dataDirectory)) {
                Files.createDirectories(parent);
                for (Path directory = parent; !directory.equals(dataDirectory); directory = directory.getParent()) {
                    VolumeFiles.setMode(directory, 0755);
                    if (groupId.isPresent()) {
                        VolumeFiles.setGroup(directory, groupId.getAsInt());
                    }
                }
            }
            Files.write(file, entry.getValue().data());
            if (entry.getValue().ownerUid() >= 0) {
                Files.setAttribute(file, "unix:uid", (int) entry.getValue().ownerUid(), LinkOption.NOFOLLOW_LINKS);
            }
            int mode = entry.getValue().mode();
            if (groupId.isPresent()) {
                VolumeFiles.setGroup(file, groupId.getAsInt());
                mode |= 0440;
            }
            VolumeFiles.setMode(file, mode);
        }
        if (groupId.isPresent()) {
            VolumeFiles.setGroup(dataDirectory, groupId.getAsInt());
        }
    }

    private boolean createUserVisibleLinks(Map<String, FileProjection> payload) throws IOException {
        boolean changed = false;
        for (String top : topLevelNames(payload.keySet())) {
            Path link = target.resolve(top);
            Path destination = Path.of(DATA_DIRECTORY, top);
            if (Files.isSymbolicLink(link) && Files.readSymbolicLink(link).equals(destination)) {
                continue;
            }
            if (Files.exists(link, LinkOption.NOFOLLOW_LINKS)) {
                VolumeFiles.deleteRecursively(link);
            }
            Files.createSymbolicLink(link, destination);
            changed = true;
        }
        return changed;
    }

    private boolean removeStaleUserVisibleLinks(Map<String, FileProjection> payload) throws IOException {
        Set<String> wanted = topLevelNames(payload.keySet());
        boolean changed = false;
        try (DirectoryStream<Path> entries = Files.newDirectoryStream(target)) {
            for (Path entry : entries) {
                String name = entry.getFileName().toString();
                if (name.startsWith("..") || wanted.contains(name)) {
                    continue;
                }
                if (Files.isSymbolicLink(entry)) {
                    Files.deleteIfExists(entry);
                    changed = true;
                }
            }
        } catch (NoSuchFileException e) {
            return changed;
        }
        // Timestamped directories left behind by an interrupted write.
        Path current = currentDataDirectory(target.resolve(DATA_DIRECTORY)).orElse(null);
        try (DirectoryStream<Path> entries = Files.newDirectoryStream(target, "..[0-9]*")) {
            for (Path entry : entries) {
                if (!entry.equals(current) && Files.isDirectory(entry, LinkOption.NOFOLLOW_LINKS)) {
                    VolumeFiles.deleteRecursively(entry);
                    changed = true;
                }
            }
        }
        return changed;
    }

    private static Set<String> topLevelNames(Set<String> paths) {
        Set<String> names = new HashSet<>();
        for (String path : paths) {
            int slash = path.indexOf('/');
            names.add(slash < 0 ? path : path.substring(0, slash));
        }
        return names;
    }

    static Set<PosixFilePermission> permissions(int mode) {
        StringBuilder text = new StringBuilder(9);
        String letters = "rwxrwxrwx";
        for (int bit = 0; bit < 9; bit++) {
            text.append((mode & (0400 >> bit)) != 0 ? letters.charAt(bit) : '-');
        }
        return PosixFilePermissions.fromString(text.toString());
    }
}
