package io.k4j.kubelet.cni;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.charset.StandardCharsets;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Arrays;
import java.util.Optional;

/**
 * The node's pod network as a CNI network configuration list, in the shape k3s and kubeadm's bridge setups use:
 * a {@code bridge} plugin on {@code cni0} that is the pods' gateway and lets a pod reach itself through a service
 * ({@code hairpinMode}); {@code host-local} IPAM handing out addresses
 * of the node's podCIDR with a default route; and {@code portmap} for {@code hostPort}s (with SNAT so that a
 * pod can reach a hostPort on its own node). Loopback is set up by containerd itself. Traffic leaving the pod CIDR is
 * masqueraded by one rule for the whole node ({@link PodEgressMasquerade}), as kubenet and flannel do, unless
 * {@code bridgeMasquerade} asks the bridge plugin to add a chain of rules per pod ({@code ipMasq}): that costs
 * several {@code iptables} runs, each under the host's xtables lock, in every pod's sandbox set-up and tear-down.
 *
 * <p>The conflist is written when the node's {@code spec.podCIDR} becomes known; {@link #write} replaces the file
 * atomically, because containerd reloads the directory when it changes and must never see a half-written file.
 *
 * @param networkName the network's name (also host-local's state subdirectory)
 * @param bridgeName the Linux bridge the pods' veths join
 * @param podCidr the node's pod CIDR, e.g. {@code 10.42.0.0/24}
 * @param ipamDataDirectory where host-local keeps its allocations; empty for the plugin's default
 *     ({@code /var/lib/cni/networks})
 * @param bridgeMasquerade whether the bridge plugin masquerades each pod's traffic itself (when the node's rule
 *     could not be installed)
 *
 * <p>Immutable and thread-safe.
 */
public record CniConfig(String networkName, String bridgeName, String podCidr, Optional<Path> ipamDataDirectory,
        boolean bridgeMasquerade) {
    /** Where Debian's {@code containernetworking-plugins} installs the plugin binaries (containerd's {@code bin_dir}). */
    public static final Path DEBIAN_PLUGIN_DIRECTORY = Path.of("/usr/lib/cni");
    /** containerd reads the lexically first file of its conf dir; the prefix keeps ours first. */
    public static final String FILE_NAME = "10-k4j.conflist";
    public static final String CNI_VERSION = "1.0.0";
    public static final String DEFAULT_NETWORK_NAME = "k4j";
    public static final String DEFAULT_BRIDGE_NAME = "cni0";

    private static final ObjectMapper JSON = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);

    public CniConfig {
        requireNonNull(networkName, "networkName is null");
        requireNonNull(bridgeName, "bridgeName is null");
        requireNonNull(podCidr, "podCidr is null");
        requireNonNull(ipamDataDirectory, "ipamDataDirectory is null");
        if (!networkName.matches("[A-Za-z0-9][A-Za-z0-9_.-]*")) {
            throw new IllegalArgumentException("not a CNI network name: " + networkName);
        }
        if (bridgeName.isEmpty() || bridgeName.length() > 15 || bridgeName.contains("/") || bridgeName.contains(" ")) {
            throw new IllegalArgumentException("not a Linux interface name: " + bridgeName);
        }
        validateCidr(podCidr);
    }

    /** The standard network for a node's podCIDR: {@code k4j} on {@code cni0}, host-local state under {@code ipamDataDirectory}. */
    public static CniConfig forPodCidr(String podCidr, Path ipamDataDirectory) {
        return forPodCidr(podCidr, DEFAULT_BRIDGE_NAME, ipamDataDirectory);
    }

    /** The standard network for a node's podCIDR on the given bridge. */
    public static CniConfig forPodCidr(String podCidr, String bridgeName, Path ipamDataDirectory) {
        return new CniConfig(DEFAULT_NETWORK_NAME, bridgeName, podCidr, Optional.of(ipamDataDirectory), false);
    }

    /** This network with the bridge plugin masquerading each pod's traffic ({@code ipMasq}). */
    public CniConfig withBridgeMasquerade() {
        return new CniConfig(networkName, bridgeName, podCidr, ipamDataDirectory, true);
    }

    /** The conflist as JSON text. */
    public String toJson() {
        ObjectNode conflist = JSON.createObjectNode();
        conflist.put("cniVersion", CNI_VERSION);
        conflist.put("name", networkName);
        ObjectNode bridge = conflist.putArray("plugins").addObject();
        bridge.put("type", "bridge");
        bridge.put("bridge", bridgeName);
        bridge.put("isGateway", true);
        bridge.put("ipMasq", bridgeMasquerade);
        bridge.put("hairpinMode", true);
        ObjectNode ipam = bridge.putObject("ipam");
        ipam.put("type", "host-local");
        ipam.putArray("ranges").addArray().addObject().put("subnet", podCidr);
        ipam.putArray("routes").addObject().put("dst", podCidr.contains(":") ? "::/0" : "0.0.0.0/0");
        ipamDataDirectory.ifPresent(directory -> ipam.put("dataDir", directory.toAbsolutePath().toString()));
        ObjectNode portmap = conflist.withArray("plugins").addObject();
        portmap.put("type", "portmap");
        portmap.putObject("capabilities").put("portMappings", true);
        portmap.put("snat", true);
        try {
            return JSON.writeValueAsString(conflist) + "\n";
        } catch (IOException e) {
            throw new IllegalStateException("cannot render the CNI configuration", e);
        }
    }

    /**
     * Writes the conflist into {@code confDirectory} (containerd's CNI {@code conf_dir}) atomically, unless the file
     * already has this content; returns the file.
     */
    public Path write(Path confDirectory) throws IOException {
        Files.createDirectories(confDirectory);
        Path target = confDirectory.resolve(FILE_NAME);
        byte[] content = toJson().getBytes(StandardCharsets.UTF_8);
        if (Files.isRegularFile(target) && Arrays.equals(Files.readAllBytes(target), content)) {
            return target;
        }
        Path temporary = Files.createTempFile(confDirectory, "." + FILE_NAME, ".partial");
        try {
            Files.write(temporary, content);
            try {
                Files.move(temporary, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
            } catch (AtomicMoveNotSupportedException e) {
                Files.move(temporary, target, StandardCopyOption.REPLACE_EXISTING);
            }
        } finally {
            Files.deleteIfExists(temporary);
        }
        return target;
    }

    private static void validateCidr(String cidr) {
        int slash = cidr.indexOf('/');
        if (slash <= 0) {
            throw new IllegalArgumentException("not a CIDR: " + cidr);
        }
        String address = cidr.substring(0, slash);
        if (!address.matches("[0-9a-fA-F.:]+")) {
            throw new IllegalArgumentException("not a CIDR: " + cidr);
        }
        try {
            int bits = InetAddress.getByName(address).getAddress().length * 8;
            int prefix = Integer.parseInt(cidr.substring(slash + 1));
            if (prefix < 0 || prefix > bits) {
                throw new IllegalArgumentException("not a CIDR: " + cidr);
            }
        } catch (UnknownHostException | NumberFormatException e) {
            throw new IllegalArgumentException("not a CIDR: " + cidr, e);
        }
    }
}
