package io.k4j.controllerkit.patch;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.client.dsl.MixedOperation;
import io.fabric8.kubernetes.client.dsl.Resource;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import java.util.function.Supplier;

/**
 * A strategic-merge PATCH of a namespaced object known only by name, sent as the one request upstream's clients send.
 * fabric8 GETs the object first when a patch goes through {@code withName}; the components' RBAC roles (upstream's)
 * often allow patch but not get, so the patch goes through a stand-in item that carries only the name.
 */
public final class NamedPatch {
    private static final PatchContext STRATEGIC_MERGE = PatchContext.of(PatchType.STRATEGIC_MERGE);

    private NamedPatch() {}

    /** Patches {@code namespace/name} of {@code resources} with {@code patch}; {@code empty} makes the stand-in. */
    public static <T extends HasMetadata> T strategicMerge(MixedOperation<T, ?, ? extends Resource<T>> resources, Supplier<T> empty,
            String namespace, String name, String patch) {
        T standIn = empty.get();
        standIn.setMetadata(new ObjectMetaBuilder().withNamespace(namespace).withName(name).build());
        return resources.inNamespace(namespace).resource(standIn).patch(STRATEGIC_MERGE, patch);
    }
}
