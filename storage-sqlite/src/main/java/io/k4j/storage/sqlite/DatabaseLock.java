package io.k4j.storage.sqlite;

import io.k4j.storage.StorageException;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * Keeps a second store, in this or another process, from opening the same database: two writers would
 * hand out the same revisions. The operating system releases the lock when the process dies, so a crash
 * never leaves the database locked.
 *
 * <p>Thread-safe.
 */
final class DatabaseLock implements AutoCloseable {
    private final FileChannel channel;
    private final FileLock lock;

    private DatabaseLock(FileChannel channel, FileLock lock) {
        this.channel = channel;
        this.lock = lock;
    }

    static DatabaseLock acquire(Path databaseFile) {
        Path lockFile = databaseFile.resolveSibling(databaseFile.getFileName() + ".lock");
        FileChannel channel = null;
        try {
            channel = FileChannel.open(lockFile, StandardOpenOption.CREATE, StandardOpenOption.WRITE);
            FileLock lock = channel.tryLock();
            if (lock == null) {
                throw new StorageException.Unavailable(databaseFile + " is open in another process", null);
            }
            return new DatabaseLock(channel, lock);
        } catch (OverlappingFileLockException e) {
            closeQuietly(channel);
            throw new StorageException.Unavailable(databaseFile + " is already open in this process", e);
        } catch (IOException e) {
            closeQuietly(channel);
            throw new StorageException.Unavailable("cannot lock " + lockFile + ": " + e.getMessage(), e);
        } catch (StorageException e) {
            closeQuietly(channel);
            throw e;
        }
    }

    @Override
    public void close() {
        try {
            lock.release();
        } catch (IOException ignored) {
            // Closing the channel below releases the lock as well.
        }
        closeQuietly(channel);
    }

    private static void closeQuietly(FileChannel channel) {
        if (channel != null) {
            try {
                channel.close();
            } catch (IOException ignored) {
                // Nothing to recover: the lock goes with the channel.
            }
        }
    }
}
