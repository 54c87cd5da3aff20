package io.k4j.launcher;

import static java.util.Objects.requireNonNull;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.k4j.controllerkit.leaderelection.LeaderElection;

/**
 * A component that works only while this server holds its Lease in kube-system, as upstream's controller manager and
 * scheduler do, so that several servers of one cluster never act twice. Subclasses say what to do on gaining and
 * losing the lease. Thread-safe.
 */
abstract class LeaderElectedComponent implements Component {
    private final String leaseName;
    private final String identity;
    private LeaderElection election;
    private boolean leading;
    private boolean closed;

    /**
     * @param identity this candidate's identity; the host name, so that a restarted server takes its own lease back
     *     at once instead of waiting for it to expire
     */
    LeaderElectedComponent(String leaseName, String identity) {
        this.leaseName = requireNonNull(leaseName, "leaseName is null");
        this.identity = requireNonNull(identity, "identity is null");
    }

    /** Builds what the component needs before it campaigns; returns the client the election uses. */
    abstract KubernetesClient prepare();

    /** Starts the work; called with this component's lock held, at most once per period of leadership. */
    abstract void startLeading();

    /** Stops the work; called with this component's lock held after {@link #startLeading}. */
    abstract void stopLeading();

    /** Releases what {@link #prepare} built; called once on close. */
    void release() {}

    @Override
    public final synchronized void start() {
        election = LeaderElection.start(prepare(), leaseName, identity, this::startedLeading, this::stoppedLeading);
    }

    private synchronized void startedLeading() {
        if (closed || leading) {
            return;
        }
        leading = true;
        startLeading();
    }

    private synchronized void stoppedLeading() {
        if (leading) {
            leading = false;
            stopLeading();
        }
    }

    /**
     * Gives up the lease without holding this component's lock: cancelling the election runs the stopped-leading
     * callback on the elector's thread, which needs the lock, while the elector holds its own.
     */
    @Override
    public final void close() {
        LeaderElection running;
        synchronized (this) {
            closed = true;
            running = election;
            election = null;
        }
        if (running != null) {
            running.close();
        }
        synchronized (this) {
            stoppedLeading();
            release();
        }
    }
}
