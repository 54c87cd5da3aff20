package io.k4j.kubelet.prober;

import java.util.ArrayList;
import java.util.List;

/** Keeps the listener calls as lines. Thread-safe. */
final class RecordingProbeListener implements ProbeListener {
    private final List<String> calls = new ArrayList<>();

    @Override
    public synchronized void restartContainer(String podUid, String containerName, String containerId, ProbeType type, String message) {
        calls.add("restart " + containerName + " " + containerId + " " + type + ": " + message);
    }

    @Override
    public synchronized void probeResultChanged(String podUid, String containerName, String containerId, ProbeType type) {
        calls.add("changed " + containerName + " " + containerId + " " + type);
    }

    synchronized List<String> calls() {
        return List.copyOf(calls);
    }

    synchronized void clear() {
        calls.clear();
    }
}
