package io.k4j.controllerkit.events;

import static java.util.Objects.requireNonNull;

import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.EventBuilder;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.ObjectReference;
import io.fabric8.kubernetes.api.model.ObjectReferenceBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.k4j.controllerkit.patch.NamedPatch;
import io.k4j.controllerkit.requests.RawApi;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.time.format.DateTimeFormatter;
import java.time.temporal.ChronoUnit;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.Semaphore;
import java.util.concurrent.ThreadFactory;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Writes core/v1 Events through the API from the background, so recording never slows a control loop. An event
 * identical to a recent one (same object, type, reason, message and source) bumps that Event's {@code count} and
 * {@code lastTimestamp} instead of creating another, as upstream's event correlator does; what does not fit the
 * bounded queue is dropped with a debug line (events are best effort).
 *
 * <p>Each event is written on a virtual thread of its own, with at most a given number of writes in flight. One (the
 * default) writes the events one after the other in the order they were recorded, as upstream's core/v1 broadcaster
 * of the controllers and the kubelet does; more write as the events.k8s.io broadcaster of upstream's scheduler, which
 * starts a goroutine per event: under load one write at a time falls behind a scheduler that binds hundreds of pods a
 * second. Thread-safe.
 */
public final class ApiEventRecorder implements EventRecorder, AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger("events");
    private static final int QUEUE_CAPACITY = 10_000;
    private static final int REMEMBERED_EVENTS = 4096;
    /** Upstream aggregates repeats seen within this window into one Event. */
    private static final Duration AGGREGATION_WINDOW = Duration.ofMinutes(10);

    private final KubernetesClient client;
    private final RawApi api;
    private final String component;
    private final String host;
    private final InstantSource clock;
    private final BlockingQueue<Pending> queue = new ArrayBlockingQueue<>(QUEUE_CAPACITY);
    private final Map<EventKey, Recorded> recent = new LinkedHashMap<>(256, 0.75f, true) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<EventKey, Recorded> eldest) {
            return size() > REMEMBERED_EVENTS;
        }
    };
    /** Taken before a write starts and given back when it ends, so one slot keeps the writes in order. */
    private final Semaphore writeSlots;
    private final ThreadFactory writeThreads;
    private final Thread writer;
    private volatile boolean closed;
    /** Guarded by {@link #recent}, as is the map. */
    private long lastNameNanos;

    /**
     * @param component the source component, e.g. {@code replicaset-controller} or {@code default-scheduler}
     * @param host the source host, empty for control-plane components as upstream leaves it
     */
    public ApiEventRecorder(KubernetesClient client, String component, String host, InstantSource clock) {
        this(client, component, host, clock, 1);
    }

    /**
     * @param writesInFlight how many events are written at once; 1 writes them one after the other, in order
     */
    public ApiEventRecorder(KubernetesClient client, String component, String host, InstantSource clock, int writesInFlight) {
        if (writesInFlight < 1) {
            throw new IllegalArgumentException("writesInFlight must be positive: " + writesInFlight);
        }
        this.writeSlots = new Semaphore(writesInFlight);
        this.client = requireNonNull(client, "client is null");
        this.api = new RawApi(client);
        this.component = requireNonNull(component, "component is null");
        this.writeThreads = Thread.ofVirtual().name("events-" + component + "-write").factory();
        this.host = requireNonNull(host, "host is null");
        this.clock = requireNonNull(clock, "clock is null");
        this.writer = Thread.ofPlatform().daemon().name("events-" + component).start(this::writeLoop);
    }

    @Override
    public void event(HasMetadata object, String type, String reason, String message) {
        event(object, null, type, reason, message);
    }

    @Override
    public void event(HasMetadata object, String fieldPath, String type, String reason, String message) {
        requireNonNull(object, "object is null");
        if (closed) {
            return;
        }
        if (!queue.offer(new Pending(reference(object, fieldPath), type, reason, message, clock.instant()))) {
            LOG.debug("{}: event queue full, dropping {} {} for {}", component, type, reason, object.getMetadata().getName());
        }
    }

    private static ObjectReference reference(HasMetadata object, String fieldPath) {
        return new ObjectReferenceBuilder()
                .withFieldPath(fieldPath == null || fieldPath.isEmpty() ? null : fieldPath)
                .withApiVersion(object.getApiVersion())
                .withKind(object.getKind())
                .withNamespace(object.getMetadata().getNamespace())
                .withName(object.getMetadata().getName())
                .withUid(object.getMetadata().getUid())
                .withResourceVersion(object.getMetadata().getResourceVersion())
                .build();
    }

    private void writeLoop() {
        while (!closed) {
            try {
                Pending pending = queue.take();
                writeSlots.acquire();
                writeThreads.newThread(() -> {
                    try {
                        writeLogged(pending);
                    } finally {
                        writeSlots.release();
                    }
                }).start();
            } catch (InterruptedException e) {
                return;
            }
        }
    }

    private void writeLogged(Pending pending) {
        try {
            write(pending);
        } catch (KubernetesClientException e) {
            LOG.debug("{}: could not write event {} for {}/{}: {}", component, pending.reason(),
                    pending.involved().getNamespace(), pending.involved().getName(), e.getMessage());
        } catch (RuntimeException e) {
            LOG.warn("{}: could not write event {}: {}", component, pending.reason(), e.toString());
        }
    }

    private void write(Pending pending) {
        ObjectReference involved = pending.involved();
        // Events about cluster-scoped objects (nodes, persistent volumes) live in "default", as upstream puts them.
        String namespace = involved.getNamespace() == null || involved.getNamespace().isEmpty() ? "default" : involved.getNamespace();
        EventKey key = new EventKey(namespace, involved.getKind(), involved.getName(), involved.getUid(),
                involved.getFieldPath(), pending.type(), pending.reason(), pending.message());
        String timestamp = DateTimeFormatter.ISO_INSTANT.format(pending.at().truncatedTo(ChronoUnit.SECONDS));
        // The new state is taken before the write, so that a repeat written meanwhile counts on from it.
        Recorded repeated;
        synchronized (recent) {
            Recorded previous = recent.get(key);
            repeated = previous != null && Duration.between(previous.lastSeen(), pending.at()).compareTo(AGGREGATION_WINDOW) < 0
                    ? new Recorded(previous.name(), previous.count() + 1, pending.at()) : null;
            if (repeated != null) {
                recent.put(key, repeated);
            }
        }
        if (repeated != null) {
            try {
                // One PATCH, as upstream's recorder sends: the components' roles allow create, patch and update on
                // events but not get, so a read-modify-write was refused and every repeat became a new Event.
                NamedPatch.strategicMerge(client.v1().events(), Event::new, namespace, repeated.name(),
                        "{\"count\":" + repeated.count() + ",\"lastTimestamp\":\"" + timestamp + "\"}");
                return;
            } catch (KubernetesClientException e) {
                // The event expired or was deleted: record a fresh one below.
                forget(key, repeated);
            }
        }
        Recorded created;
        synchronized (recent) {
            created = new Recorded(involved.getName() + "." + Long.toHexString(uniqueNanos(pending.at())), 1, pending.at());
            recent.put(key, created);
        }
        Event event = new EventBuilder()
                .withNewMetadata().withName(created.name()).withNamespace(namespace).endMetadata()
                .withInvolvedObject(involved)
                .withType(pending.type())
                .withReason(pending.reason())
                .withMessage(pending.message())
                .withNewSource().withComponent(component).withHost(host.isEmpty() ? null : host).endSource()
                .withFirstTimestamp(timestamp)
                .withLastTimestamp(timestamp)
                .withCount(1)
                .withReportingComponent(component)
                .withReportingInstance(host.isEmpty() ? component : component + "-" + host)
                .build();
        try {
            create(namespace, event);
        } catch (RuntimeException e) {
            forget(key, created);
            throw e;
        }
    }

    /**
     * POSTs the Event and checks the answer's code only: the typed client would decode the created Event, which nobody
     * reads, and the scheduler records one per pod it binds.
     */
    private void create(String namespace, Event event) {
        try {
            api.write("POST", "/api/v1/namespaces/" + URLEncoder.encode(namespace, StandardCharsets.UTF_8) + "/events", "application/json",
                    client.getKubernetesSerialization().asJson(event));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new KubernetesClientException("interrupted while creating an event", e);
        }
    }

    /** Forgets an event that was not written, unless a later one took its place meanwhile. */
    private void forget(EventKey key, Recorded recorded) {
        synchronized (recent) {
            recent.remove(key, recorded);
        }
    }

    /** Upstream names events {@code <object>.<hex unix nanos>}; two events in the same nanosecond still differ. */
    private long uniqueNanos(Instant at) {
        long nanos = at.getEpochSecond() * 1_000_000_000L + at.getNano();
        lastNameNanos = Math.max(lastNameNanos + 1, nanos);
        return lastNameNanos;
    }

    @Override
    public void close() {
        closed = true;
        writer.interrupt();
    }

    private record Pending(ObjectReference involved, String type, String reason, String message, Instant at) {
        Pending {
            requireNonNull(involved, "involved is null");
            requireNonNull(type, "type is null");
            requireNonNull(reason, "reason is null");
            requireNonNull(message, "message is null");
            requireNonNull(at, "at is null");
        }
    }

    private record EventKey(String namespace, String kind, String name, String uid, String fieldPath, String type, String reason,
            String message) {}

    private record Recorded(String name, int count, Instant lastSeen) {}
}
