package io.k4j.e2e;

import static java.util.Objects.requireNonNull;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Machine-wide slots for real nodes in tests. A real node owns machine-wide things (the kubelet's port, a CNI bridge and
 * its pod CIDR), so each node a test runs ({@code k4j server} with its node, or {@code k4j agent}) takes one of
 * {@value #SLOTS} slots, each with a port, bridge and cluster CIDR of its own (slot 0 is the defaults: 10250, cni0,
 * 10.42.0.0/16), and holds the slot's file lock until it closes the slot: real nodes of several test runs on one machine
 * run side by side, and wait when all slots are taken. The kernel drops a lock when its JVM exits, however it exits.
 * Thread-safe (stateless).
 */
final class RealNodeSlots {
    private static final int SLOTS = 3;
    private static final Duration LOCK_TIMEOUT = Duration.ofMinutes(40);

    private RealNodeSlots() {}

    /** A held slot: the lock, and the machine-wide things it owns. Closing it lets the next node have them. */
    record Slot(FileLock lock, int kubeletPort, String cniBridge, String clusterCidr) implements AutoCloseable {
        Slot {
            requireNonNull(lock, "lock is null");
            requireNonNull(cniBridge, "cniBridge is null");
            requireNonNull(clusterCidr, "clusterCidr is null");
        }

        static Slot of(int slot, FileLock lock) {
            return new Slot(lock, 10250 + 10 * slot, slot == 0 ? "cni0" : "k4je2e" + slot, "10." + (42 + 2 * slot) + ".0.0/16");
        }

        /** The node flags of {@code k4j server} and {@code k4j agent} that put the node in this slot. */
        List<String> nodeArguments() {
            return List.of("--kubelet-port", Integer.toString(kubeletPort), "--cni-bridge", cniBridge);
        }

        /**
         * Deletes the slot's bridge whatever is still attached: holding the slot, nothing of ours uses it, and pods a
         * crashed or killed earlier run left on it keep IPs the new node's fresh IPAM hands out again (two hosts with one
         * address on one bridge make the new pod unreachable). Their sandboxes lose their link, not their addresses.
         */
        Slot withFreshBridge() {
            try {
                new ProcessBuilder("ip", "link", "delete", cniBridge).redirectErrorStream(true)
                        .redirectOutput(ProcessBuilder.Redirect.DISCARD).start().waitFor();
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            return this;
        }

        /** Deletes the slot's bridge when no pod is attached to it any more. */
        void removeIdleBridge() {
            try {
                Process attached = new ProcessBuilder("ip", "-o", "link", "show", "master", cniBridge).start();
                String ports = new String(attached.getInputStream().readAllBytes()).trim();
                if (attached.waitFor() == 0 && ports.isEmpty()) {
                    new ProcessBuilder("ip", "link", "delete", cniBridge).start().waitFor();
                }
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }

        @Override
        public void close() {
            release(lock);
        }
    }

    /** Takes the first free slot, or waits for one. */
    static Slot take() {
        try {
            List<FileChannel> channels = new ArrayList<>();
            for (int slot = 0; slot < SLOTS; slot++) {
                Path file = Path.of("/run/lock/k4j-e2e-real-node-" + slot + ".lock");
                Files.createDirectories(file.getParent());
                FileChannel channel = FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.WRITE);
                FileLock lock = channel.tryLock();
                if (lock != null) {
                    channels.forEach(RealNodeSlots::closeQuietly);
                    return Slot.of(slot, lock).withFreshBridge();
                }
                channels.add(channel);
            }
            int slot = (int) (ProcessHandle.current().pid() % SLOTS);
            System.err.println("k4j e2e: other test runs on this machine hold all " + SLOTS + " real-node slots; waiting for slot " + slot);
            FileChannel channel = channels.remove(slot);
            channels.forEach(RealNodeSlots::closeQuietly);
            try {
                return Slot.of(slot, waitForLock(channel, "real-node slot " + slot)).withFreshBridge();
            } catch (RuntimeException e) {
                channel.close();
                throw e;
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Lets a machine-wide lock go. */
    static void release(FileLock lock) {
        try {
            lock.channel().close();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Waits for a machine-wide lock of another kind than the slots (the kernel drops it when its JVM exits). */
    static FileLock lock(Path file) {
        try {
            Files.createDirectories(file.getParent());
            FileChannel channel = FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.WRITE);
            try {
                return waitForLock(channel, file.toString());
            } catch (RuntimeException e) {
                channel.close();
                throw e;
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** A blocking lock wait on its own thread, so that a holder that never lets go fails the test in bounded time. */
    private static FileLock waitForLock(FileChannel channel, String what) {
        CompletableFuture<FileLock> waiting = CompletableFuture.supplyAsync(() -> {
            try {
                return channel.lock();
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        });
        try {
            return waiting.get(LOCK_TIMEOUT.toMinutes(), TimeUnit.MINUTES);
        } catch (TimeoutException | ExecutionException e) {
            throw new IllegalStateException("could not take " + what + " within " + LOCK_TIMEOUT, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while waiting for " + what, e);
        }
    }

    private static void closeQuietly(FileChannel channel) {
        try {
            channel.close();
        } catch (IOException e) {
            // only a lock file we did not get; nothing to undo
        }
    }
}
