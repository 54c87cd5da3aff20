package io.k4j.launcher.images;

import static java.util.Objects.requireNonNull;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * The root file system of one image layer, built entry by entry and written as a tar archive by {@link TarArchive}.
 * Every entry is owned by root; parent directories are added as needed. Entries are kept sorted by path, so the
 * same inputs give the same archive bytes and the same layer digest.
 *
 * <p>Not thread-safe: one builder fills it, then it is written.
 */
public final class ImageFilesystem {
    /** A file system entry; paths are relative to the image root, without a leading slash. */
    public sealed interface Entry {
        String path();

        int mode();
    }

    public record Directory(String path, int mode) implements Entry {
        public Directory {
            requireNonNull(path, "path is null");
        }
    }

    /** A regular file whose content comes from a file of the host or from bytes. */
    public record RegularFile(String path, int mode, Content content) implements Entry {
        public RegularFile {
            requireNonNull(path, "path is null");
            requireNonNull(content, "content is null");
        }
    }

    public record SymbolicLink(String path, String target) implements Entry {
        public SymbolicLink {
            requireNonNull(path, "path is null");
            requireNonNull(target, "target is null");
        }

        @Override
        public int mode() {
            return 0777;
        }
    }

    /** Where a regular file's bytes come from. */
    public sealed interface Content {
        record HostFile(Path file) implements Content {
            public HostFile {
                requireNonNull(file, "file is null");
            }
        }

        record Bytes(byte[] bytes) implements Content {
            public Bytes {
                bytes = requireNonNull(bytes, "bytes is null").clone();
            }

            @Override
            public byte[] bytes() {
                return bytes.clone();
            }
        }
    }

    private final Map<String, Entry> entries = new TreeMap<>();

    public ImageFilesystem directory(String path, int mode) {
        String normalized = normalize(path);
        addParents(normalized);
        entries.put(normalized, new Directory(normalized, mode));
        return this;
    }

    public ImageFilesystem file(String path, int mode, Path hostFile) {
        return put(new RegularFile(normalize(path), mode, new Content.HostFile(hostFile)));
    }

    public ImageFilesystem file(String path, int mode, String text) {
        return put(new RegularFile(normalize(path), mode, new Content.Bytes(text.getBytes(StandardCharsets.UTF_8))));
    }

    public ImageFilesystem symbolicLink(String path, String target) {
        return put(new SymbolicLink(normalize(path), target));
    }

    public Optional<Entry> entry(String path) {
        return Optional.ofNullable(entries.get(normalize(path)));
    }

    /** The entries in archive order (sorted by path, so parents come before their children). */
    public Collection<Entry> entries() {
        return List.copyOf(entries.values());
    }

    private ImageFilesystem put(Entry entry) {
        addParents(entry.path());
        entries.put(entry.path(), entry);
        return this;
    }

    private void addParents(String path) {
        int slash = path.lastIndexOf('/');
        if (slash <= 0) {
            return;
        }
        String parent = path.substring(0, slash);
        Entry existing = entries.get(parent);
        if (existing == null) {
            addParents(parent);
            entries.put(parent, new Directory(parent, 0755));
        } else if (!(existing instanceof Directory)) {
            throw new IllegalArgumentException("cannot add " + path + ": " + parent + " is not a directory in the image");
        }
    }

    private static String normalize(String path) {
        String normalized = requireNonNull(path, "path is null");
        while (normalized.startsWith("/")) {
            normalized = normalized.substring(1);
        }
        while (normalized.endsWith("/")) {
            normalized = normalized.substring(0, normalized.length() - 1);
        }
        if (normalized.isEmpty() || normalized.contains("//") || List.of(normalized.split("/")).contains("..")) {
            throw new IllegalArgumentException("not a path inside an image: " + path);
        }
        return normalized;
    }
}
