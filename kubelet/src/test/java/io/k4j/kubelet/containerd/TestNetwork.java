package io.k4j.kubelet.containerd;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

/**
 * A minimal CNI network for tests on a real containerd: a bridge of its own with host-local addresses from a private
 * /24, state kept in the test's directory. {@link #remove} deletes the bridge afterwards. Stateless.
 */
public final class TestNetwork {
    private TestNetwork() {}

    /** Writes the conflist into {@code confDirectory}. */
    public static void write(Path confDirectory, Path stateDirectory, String bridge, String subnet) throws IOException {
        Files.createDirectories(confDirectory);
        String conflist = """
                {
                  "cniVersion": "1.0.0",
                  "name": "%s",
                  "plugins": [
                    {
                      "type": "bridge",
                      "bridge": "%s",
                      "isGateway": true,
                      "ipMasq": false,
                      "ipam": {
                        "type": "host-local",
                        "ranges": [[{"subnet": "%s"}]],
                        "dataDir": "%s"
                      }
                    },
                    {"type": "portmap", "capabilities": {"portMappings": true}}
                  ]
                }
                """.formatted(bridge, bridge, subnet, stateDirectory.resolve("ipam"));
        Files.writeString(confDirectory.resolve("10-test.conflist"), conflist);
    }

    /** Deletes the bridge (the pods' veths are gone with their sandboxes). */
    public static void remove(String bridge) throws IOException, InterruptedException {
        Process process = new ProcessBuilder("ip", "link", "delete", bridge).redirectErrorStream(true).start();
        process.getInputStream().readAllBytes();
        process.waitFor(10, TimeUnit.SECONDS);
    }
}
