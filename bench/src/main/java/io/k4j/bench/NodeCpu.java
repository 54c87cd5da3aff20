package io.k4j.bench;

import static io.k4j.bench.ProcessCpu.ticksToDuration;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Where a real node's CPU went over a window, from {@code /proc}: the whole machine's busy time (all cores), and the
 * parts of the k4j server, of containerd, of the containerd shims and of the bench's own child processes. Each part is
 * a process's own CPU plus that of its children it reaped: containerd's children are the CNI plugins it runs for each
 * sandbox (and the shims' start-up commands), a shim's children are the {@code runc} runs for its containers, and the
 * bench's children are its {@code ctr} clients. On a machine whose cores are all busy, a batch's time follows this sum.
 *
 * @param machine user, system, interrupt and steal time over all cores
 */
record NodeCpu(Duration machine, Duration server, Duration containerd, Duration shims, Duration benchChildren) {
    /** The counters at one moment; a process that is gone at the end of a window loses its part of the window. */
    record Snapshot(long machineTicks, Map<Long, Long> serverTicks, Map<Long, Long> containerdTicks, Map<Long, Long> shimTicks, long benchChildTicks) {}

    /** The counters now, for the server {@code serverPid} and the containerd (and its shims) that runs under {@code nodeDirectory}. */
    static Snapshot snapshot(long serverPid, Path nodeDirectory) {
        NodeProcesses runtime = NodeProcesses.of(nodeDirectory);
        return new Snapshot(machineBusyTicks(), ticksByProcess(List.of(serverPid)), ticksByProcess(runtime.containerd()),
                ticksByProcess(runtime.shims()), childTicks(ProcessHandle.current().pid()));
    }

    private static Map<Long, Long> ticksByProcess(List<Long> pids) {
        Map<Long, Long> ticks = new HashMap<>();
        pids.forEach(pid -> ticks.put(pid, ticksWithChildren(pid)));
        return ticks;
    }

    /** The CPU used between two snapshots. */
    static NodeCpu between(Snapshot start, Snapshot end) {
        return new NodeCpu(ticksToDuration(end.machineTicks() - start.machineTicks()),
                ticksToDuration(grown(start.serverTicks(), end.serverTicks())),
                ticksToDuration(grown(start.containerdTicks(), end.containerdTicks())),
                ticksToDuration(grown(start.shimTicks(), end.shimTicks())),
                ticksToDuration(end.benchChildTicks() - start.benchChildTicks()));
    }

    /** "12.3 s: k4j server 3.1 s, containerd with its CNI plugins 4.0 s, shims with runc 5.2 s, ctr clients 0.0 s". */
    String describe() {
        return String.format(Locale.ROOT, "%.1f s: k4j server %.1f s, containerd with its CNI plugins %.1f s, shims with runc %.1f s, ctr clients %.1f s",
                seconds(machine), seconds(server), seconds(containerd), seconds(shims), seconds(benchChildren));
    }

    /** containerd's and the shims' CPU: the container runtime's work, without its clients. */
    Duration runtime() {
        return containerd.plus(shims);
    }

    static double seconds(Duration duration) {
        return duration.toMillis() / 1e3;
    }

    /** What each process present at the end used since the start (all of it for a process that started meanwhile). */
    private static long grown(Map<Long, Long> start, Map<Long, Long> end) {
        long sum = 0;
        for (Map.Entry<Long, Long> process : end.entrySet()) {
            sum += process.getValue() - start.getOrDefault(process.getKey(), 0L);
        }
        return sum;
    }

    private static long machineBusyTicks() {
        try {
            String[] fields = Files.readAllLines(Path.of("/proc/stat")).get(0).trim().split("\\s+");
            long busy = 0;
            // cpu user nice system idle iowait irq softirq steal ...: all but idle (4) and iowait (5), up to steal.
            for (int i = 1; i <= 8 && i < fields.length; i++) {
                if (i != 4 && i != 5) {
                    busy += Long.parseLong(fields[i]);
                }
            }
            return busy;
        } catch (IOException e) {
            throw new IllegalStateException("cannot read /proc/stat", e);
        }
    }

    /** utime + stime + cutime + cstime: the process's CPU and that of the children it reaped; 0 for a process that is gone. */
    private static long ticksWithChildren(long pid) {
        String[] fields = statFields(pid);
        return fields.length == 0 ? 0
                : Long.parseLong(fields[11]) + Long.parseLong(fields[12]) + Long.parseLong(fields[13]) + Long.parseLong(fields[14]);
    }

    /** cutime + cstime: the CPU of the children the process reaped; 0 for a process that is gone. */
    private static long childTicks(long pid) {
        String[] fields = statFields(pid);
        return fields.length == 0 ? 0 : Long.parseLong(fields[13]) + Long.parseLong(fields[14]);
    }

    /** The fields of /proc/PID/stat after the command name (see {@link ProcessCpu#statFields}); none for a process that is gone. */
    private static String[] statFields(long pid) {
        try {
            return ProcessCpu.statFields(Files.readString(Path.of("/proc", Long.toString(pid), "stat")));
        } catch (IOException e) {
            return new String[0];
        }
    }
}
