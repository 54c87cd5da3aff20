package io.k4j.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.stream.Stream;

/**
 * CPU used by a process on this machine so far, whole and split by the JVM's own threads, from {@code /proc}: a run
 * measured on a server that is still compiling its hot paths, or collecting a growing heap, spends part of its CPU on
 * that, and the reports say how much.
 */
record ProcessCpu(Duration total, Duration compiler, Duration collector) {
    /** Linux's clock ticks per second for {@code /proc} times (USER_HZ, 100 on every common kernel). */
    private static final long TICKS_PER_SECOND = 100;

    /** User plus system CPU of process {@code pid} so far. */
    static Duration total(long pid) {
        return ProcessHandle.of(pid).flatMap(process -> process.info().totalCpuDuration())
                .orElseThrow(() -> new IllegalStateException("no CPU time for process " + pid));
    }

    /** The CPU process {@code pid} uses over the next {@code window}, with its JIT and collector's parts. */
    static Window during(long pid, Duration window) throws InterruptedException {
        ProcessCpu before = of(pid);
        long start = System.nanoTime();
        Thread.sleep(window.toMillis()); // the measurement window, not synchronisation
        return new Window(of(pid).minus(before), Duration.ofNanos(System.nanoTime() - start));
    }

    /** What a process used over one stretch of wall time. */
    record Window(ProcessCpu used, Duration wallTime) {
        double millisPerSecond() {
            return used.total().toNanos() / 1e6 / (wallTime.toNanos() / 1e9);
        }

        @Override
        public String toString() {
            return String.format(java.util.Locale.ROOT, "%.0f ms per second, JIT %.0f %%", millisPerSecond(), 100 * used.compilerShare());
        }
    }

    /**
     * The process's CPU so far, with the part its JIT compiler threads ({@code C1/C2 CompilerThread}) and its garbage
     * collector's threads (G1's or any other collector's {@code GC Thread}, concurrent and refinement threads, and the
     * VM thread that runs the collector's pauses) used.
     * Threads that ended are counted in the total only.
     */
    static ProcessCpu of(long pid) {
        long compilerTicks = 0;
        long collectorTicks = 0;
        try (Stream<Path> tasks = Files.list(Path.of("/proc", Long.toString(pid), "task"))) {
            for (Path task : (Iterable<Path>) tasks::iterator) {
                String name;
                String stat;
                try {
                    name = Files.readString(task.resolve("comm")).strip();
                    stat = Files.readString(task.resolve("stat"));
                } catch (IOException e) {
                    continue; // the thread ended meanwhile
                }
                if (name.startsWith("C1 Compiler") || name.startsWith("C2 Compiler")) {
                    compilerTicks += ticks(stat);
                } else if (name.startsWith("GC Thread") || name.startsWith("G1 ") || name.startsWith("ZWorker") || name.startsWith("VM Thread")) {
                    collectorTicks += ticks(stat);
                }
            }
        } catch (IOException e) {
            throw new IllegalStateException("cannot read the threads of process " + pid, e);
        }
        return new ProcessCpu(total(pid), ticksToDuration(compilerTicks), ticksToDuration(collectorTicks));
    }

    ProcessCpu minus(ProcessCpu earlier) {
        return new ProcessCpu(total.minus(earlier.total), compiler.minus(earlier.compiler), collector.minus(earlier.collector));
    }

    ProcessCpu plus(ProcessCpu other) {
        return new ProcessCpu(total.plus(other.total), compiler.plus(other.compiler), collector.plus(other.collector));
    }

    /** The compiler threads' part of the total, 0 to 1. */
    double compilerShare() {
        return share(compiler);
    }

    /** "JIT 12 %, GC 20 %" of the total. */
    String shares() {
        return shares(", ");
    }

    /** The shares as in {@link #shares()}, separated by {@code separator} (" / " in a table cell). */
    String shares(String separator) {
        return String.format(java.util.Locale.ROOT, "JIT %.0f %%%sGC %.0f %%", 100 * compilerShare(), separator, 100 * share(collector));
    }

    private double share(Duration part) {
        return (double) part.toNanos() / Math.max(1, total.toNanos());
    }

    /** utime + stime: fields 14 and 15, counted after the command name, which may hold spaces and parentheses. */
    private static long ticks(String stat) {
        String[] fields = statFields(stat);
        return Long.parseLong(fields[11]) + Long.parseLong(fields[12]);
    }

    /**
     * The fields of a {@code /proc/<pid>/stat} (or a thread's) after the command name, which may hold spaces and
     * parentheses: state is [0], utime [11], stime [12], cutime [13], cstime [14].
     */
    static String[] statFields(String stat) {
        return stat.substring(stat.lastIndexOf(')') + 2).split(" ");
    }

    static Duration ticksToDuration(long ticks) {
        return Duration.ofMillis(ticks * 1000 / TICKS_PER_SECOND);
    }
}
