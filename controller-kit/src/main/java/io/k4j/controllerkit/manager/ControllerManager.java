package io.k4j.controllerkit.manager;

import static java.util.Objects.requireNonNull;

import io.k4j.controllerkit.informers.InformerFactory;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Starts the selected controllers by name, as kube-controller-manager does: build each (they register their
 * informers), start the shared informers, wait until every cache has synced, then start each controller's workers.
 * Thread-safe.
 */
public final class ControllerManager implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger("controller-manager");
    private static final Duration SYNC_LOG_INTERVAL = Duration.ofSeconds(10);

    private final ControllerContext context;
    private final List<ControllerDescriptor> descriptors;
    private final ControllerSelection selection;
    private final Map<String, Controller> running = new LinkedHashMap<>();
    private Thread starter;
    private volatile boolean closed;

    public ControllerManager(ControllerContext context, List<ControllerDescriptor> descriptors, ControllerSelection selection) {
        this.context = requireNonNull(context, "context is null");
        this.descriptors = List.copyOf(requireNonNull(descriptors, "descriptors is null"));
        this.selection = requireNonNull(selection, "selection is null");
        List<String> names = this.descriptors.stream().map(ControllerDescriptor::name).toList();
        if (names.stream().distinct().count() != names.size()) {
            throw new IllegalArgumentException("controller names must be unique: " + names);
        }
        selection.validate(names);
    }

    /** The names that {@link #start} runs, in start order. */
    public List<String> enabledControllers() {
        return descriptors.stream()
                .filter(descriptor -> selection.isEnabled(descriptor.name(), descriptor.enabledByDefault()))
                .map(ControllerDescriptor::name)
                .toList();
    }

    /** Builds the enabled controllers and starts them once their caches have synced; returns at once. */
    public synchronized void start() {
        List<Map.Entry<ControllerDescriptor, Controller>> built = new ArrayList<>();
        for (ControllerDescriptor descriptor : descriptors) {
            if (selection.isEnabled(descriptor.name(), descriptor.enabledByDefault())) {
                Controller controller = descriptor.factory().apply(context);
                running.put(descriptor.name(), controller);
                built.add(Map.entry(descriptor, controller));
            } else {
                LOG.info("controller {} is disabled", descriptor.name());
            }
        }
        InformerFactory informers = context.informers();
        informers.start();
        starter = Thread.ofPlatform().daemon().name("controller-manager-start").start(() -> {
            try {
                while (!informers.waitForCacheSync(SYNC_LOG_INTERVAL)) {
                    if (closed) {
                        return;
                    }
                    LOG.info("waiting for informer caches to sync");
                }
                for (Map.Entry<ControllerDescriptor, Controller> entry : built) {
                    synchronized (this) {
                        if (closed) {
                            return;
                        }
                        entry.getValue().start(entry.getKey().workers());
                    }
                    LOG.info("started {} controller", entry.getKey().name());
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
    }

    /** The running controller of that name, for tests and wiring. */
    public synchronized Controller controller(String name) {
        return running.get(name);
    }

    @Override
    public void close() {
        List<Controller> toClose;
        synchronized (this) {
            closed = true;
            toClose = new ArrayList<>(running.values());
            running.clear();
        }
        if (starter != null) {
            starter.interrupt();
        }
        for (Controller controller : toClose.reversed()) {
            controller.close();
        }
        context.informers().close();
    }
}
