package io.k4j.launcher;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps sqlite-jdbc's native library in the data directory. Left alone, sqlite-jdbc copies the library out of its jar
 * into the temporary directory on every start and compares the copy byte by byte with the original, which costs a
 * start a good part of a second of not yet compiled code; pointed at an existing copy it just loads it. The copy is
 * named after the sqlite-jdbc version, so an upgrade brings its own. Used once, before the SQLite store opens.
 */
final class SqliteNativeLibrary {
    private static final Logger LOG = LoggerFactory.getLogger("storage");
    private static final String PATH_PROPERTY = "org.sqlite.lib.path";
    private static final String NAME_PROPERTY = "org.sqlite.lib.name";

    private SqliteNativeLibrary() {}

    /**
     * Makes sqlite-jdbc load its library from {@code directory}, copying it there first when missing. Does nothing when
     * the library location is configured already, and leaves sqlite-jdbc to its own ways when the copy fails.
     */
    static void useCopyIn(Path directory) {
        if (System.getProperty(PATH_PROPERTY) != null) {
            return;
        }
        String libraryName = System.mapLibraryName("sqlitejdbc");
        String resource = "/org/sqlite/native/" + org.sqlite.util.OSInfo.getNativeLibFolderPathForCurrentOS() + "/" + libraryName;
        String copyName = "sqlite-jdbc-" + org.sqlite.SQLiteJDBCLoader.getVersion() + "-" + libraryName;
        Path copy = directory.resolve(copyName);
        try {
            if (!Files.isRegularFile(copy)) {
                try (InputStream library = org.sqlite.SQLiteJDBCLoader.class.getResourceAsStream(resource)) {
                    if (library == null) {
                        return;
                    }
                    Files.createDirectories(directory);
                    // Copied under a temporary name and renamed, so that a crash never leaves half a library behind.
                    Path partial = Files.createTempFile(directory, copyName, ".partial");
                    try {
                        Files.copy(library, partial, StandardCopyOption.REPLACE_EXISTING);
                        Files.move(partial, copy, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
                    } finally {
                        Files.deleteIfExists(partial);
                    }
                }
            }
        } catch (IOException e) {
            LOG.debug("cannot keep the SQLite native library in {}: {}", directory, e.getMessage());
            return;
        }
        System.setProperty(PATH_PROPERTY, directory.toString());
        System.setProperty(NAME_PROPERTY, copyName);
    }
}
