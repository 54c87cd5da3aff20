package io.k4j.controllerkit.pods;

import static java.util.Objects.requireNonNull;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.OwnerReference;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.k4j.api.selection.LabelSelector;
import java.net.HttpURLConnection;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.BooleanSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Decides which objects a controller owns, as upstream's {@code ControllerRefManager.Claim*}: it keeps those it
 * controls and its selector matches, adopts orphans that match (patching in its controller reference), and releases
 * those it controls that no longer match. A controller being deleted adopts and releases nothing. Thread-safe.
 *
 * @param <T> pods, replica sets or controller revisions
 */
public final class ControllerRefManager<T extends HasMetadata> {
    private static final Logger LOG = LoggerFactory.getLogger("controller");

    /** Writes a strategic merge patch to one owned object. */
    @FunctionalInterface
    public interface Patcher {
        void patch(String namespace, String name, String strategicMergePatch);
    }

    private final HasMetadata controller;
    private final OwnerReference controllerRef;
    private final LabelSelector selector;
    private final BooleanSupplier canAdopt;
    private final Patcher patcher;
    private Boolean canAdoptResult;

    /**
     * @param canAdopt re-reads the controller from the API and says whether it may still adopt (same UID, not being
     *     deleted); asked at most once per claim, and only when there is an orphan to adopt
     */
    public ControllerRefManager(HasMetadata controller, OwnerReference controllerRef, LabelSelector selector, BooleanSupplier canAdopt, Patcher patcher) {
        this.controller = requireNonNull(controller, "controller is null");
        this.controllerRef = requireNonNull(controllerRef, "controllerRef is null");
        this.selector = requireNonNull(selector, "selector is null");
        this.canAdopt = requireNonNull(canAdopt, "canAdopt is null");
        this.patcher = requireNonNull(patcher, "patcher is null");
    }

    /**
     * The objects the controller owns after adopting matching orphans and releasing what no longer matches.
     *
     * @throws KubernetesClientException when an adoption or release fails for a reason other than the object being gone
     */
    public synchronized List<T> claim(List<T> objects) {
        List<T> claimed = new ArrayList<>();
        for (T object : objects) {
            if (claimOne(object)) {
                claimed.add(object);
            }
        }
        return claimed;
    }

    private boolean claimOne(T object) {
        Optional<OwnerReference> owner = OwnerReferences.controllerOf(object);
        boolean matches = selector.matches(labels(object));
        boolean controllerDeleting = controller.getMetadata().getDeletionTimestamp() != null;
        if (owner.isPresent()) {
            if (!owner.get().getUid().equals(controllerRef.getUid())) {
                return false;
            }
            if (matches) {
                return true;
            }
            if (controllerDeleting) {
                return false;
            }
            release(object);
            return false;
        }
        if (controllerDeleting || !matches || object.getMetadata().getDeletionTimestamp() != null) {
            return false;
        }
        if (canAdoptResult == null) {
            canAdoptResult = canAdopt.getAsBoolean();
        }
        if (!canAdoptResult) {
            return false;
        }
        return adopt(object);
    }

    private boolean adopt(T object) {
        String patch = "{\"metadata\":{\"ownerReferences\":[{\"apiVersion\":\"" + controllerRef.getApiVersion() + "\",\"kind\":\"" + controllerRef.getKind()
                + "\",\"name\":\"" + controllerRef.getName() + "\",\"uid\":\"" + controllerRef.getUid()
                + "\",\"controller\":true,\"blockOwnerDeletion\":true}],\"uid\":\"" + object.getMetadata().getUid() + "\"}}";
        try {
            patcher.patch(object.getMetadata().getNamespace(), object.getMetadata().getName(), patch);
            LOG.debug("{} {} adopted {} {}", controllerRef.getKind(), controllerRef.getName(), object.getKind(), object.getMetadata().getName());
            return true;
        } catch (KubernetesClientException e) {
            if (gone(e)) {
                return false;
            }
            throw e;
        }
    }

    private void release(T object) {
        String patch = "{\"metadata\":{\"ownerReferences\":[{\"$patch\":\"delete\",\"uid\":\"" + controllerRef.getUid() + "\"}],\"uid\":\""
                + object.getMetadata().getUid() + "\"}}";
        try {
            patcher.patch(object.getMetadata().getNamespace(), object.getMetadata().getName(), patch);
            LOG.debug("{} {} released {} {}", controllerRef.getKind(), controllerRef.getName(), object.getKind(), object.getMetadata().getName());
        } catch (KubernetesClientException e) {
            // Gone or already changed by someone else: either way it is no longer ours to release.
            if (!gone(e)) {
                throw e;
            }
        }
    }

    private static boolean gone(KubernetesClientException e) {
        return e.getCode() == HttpURLConnection.HTTP_NOT_FOUND || e.getCode() == 422 || e.getCode() == HttpURLConnection.HTTP_CONFLICT;
    }

    private static Map<String, String> labels(HasMetadata object) {
        Map<String, String> labels = object.getMetadata().getLabels();
        return labels == null ? Map.of() : labels;
    }
}
