package io.k4j.kubelet.kuberuntime;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.client.utils.Serialization;

import java.nio.charset.StandardCharsets;
import java.util.zip.CRC32;

/**
 * The hash of a container's spec that the kubelet stores on the container it creates, so that a changed spec
 * (only the image can change on a running pod) restarts the container, as upstream's {@code HashContainer}.
 * Stateless.
 */
public final class ContainerHashes {
    private ContainerHashes() {}

    public static String hash(Container container) {
        CRC32 crc = new CRC32();
        crc.update(Serialization.asJson(container).getBytes(StandardCharsets.UTF_8));
        return Long.toHexString(crc.getValue());
    }
}
