package io.k4j.kubelet.simulated;

import static java.util.Objects.requireNonNull;

import java.util.BitSet;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Pod IPs of simulated nodes. A node with a {@code spec.podCIDR} (from node IPAM) hands out addresses of it, from
 * {@code .2} on (the {@code .1} is the bridge gateway, as with CNI's bridge plugin); a node without one gets its own
 * /24 cut from the top of the cluster CIDR, far from where node IPAM starts cutting at the bottom. When the cluster
 * CIDR has fewer /24s than nodes without a podCIDR, slices are shared (addresses may then repeat across nodes; a
 * warning says so once): simulated pods must start even when the cluster CIDR is too small. Thread-safe.
 */
final class PodIpAllocator {
    private static final Logger LOG = LoggerFactory.getLogger(PodIpAllocator.class);
    private static final int SLICE_PREFIX_LENGTH_IPV4 = 24;
    private static final int SLICE_PREFIX_LENGTH_IPV6 = 64;
    /** The gateway address after the network address is never given to a pod. */
    private static final int GATEWAY_ADDRESSES = 1;

    private final CidrPool.Cidr clusterCidr;
    private final int slicePrefixLength;
    private final long sliceCount;
    private final Map<String, NodePool> poolsByNode = new HashMap<>();
    private final BitSet usedSlices = new BitSet();
    private boolean warnedAboutSharing;

    private record NodePool(String cidr, CidrPool pool, long slice) {}

    PodIpAllocator(String clusterCidr) {
        this.clusterCidr = CidrPool.parse(requireNonNull(clusterCidr, "clusterCidr is null"));
        int wanted = this.clusterCidr.addressBytes() == 4 ? SLICE_PREFIX_LENGTH_IPV4 : SLICE_PREFIX_LENGTH_IPV6;
        this.slicePrefixLength = Math.max(wanted, this.clusterCidr.prefixLength());
        if (this.clusterCidr.addressBytes() * 8 - slicePrefixLength < 2) {
            throw new IllegalArgumentException("cluster CIDR " + clusterCidr + " is too small for pod addresses");
        }
        int sliceBits = slicePrefixLength - this.clusterCidr.prefixLength();
        this.sliceCount = sliceBits >= 31 ? Integer.MAX_VALUE : 1L << sliceBits;
    }

    /**
     * The pod's IP on this node, allocating one when it has none.
     *
     * @param podCidr the node's {@code spec.podCIDR}, empty when node IPAM gave it none (yet)
     */
    synchronized String allocate(String nodeName, Optional<String> podCidr, String podUid) {
        return pool(nodeName, podCidr).allocate(podUid);
    }

    /** Records the IP a pod already shows (e.g. after a restart of the simulator), so it is not handed out twice. */
    synchronized void reserve(String nodeName, Optional<String> podCidr, String podUid, String podIp) {
        if (!pool(nodeName, podCidr).reserve(podUid, podIp)) {
            LOG.debug("pod {} on {} keeps {} which is outside or taken in the node's pod range", podUid, nodeName, podIp);
        }
    }

    /** Frees a pod's IP. */
    synchronized void release(String nodeName, String podUid) {
        NodePool nodePool = poolsByNode.get(nodeName);
        if (nodePool != null) {
            nodePool.pool().release(podUid);
        }
    }

    /** Forgets a node that is no longer simulated, freeing its slice of the cluster CIDR. */
    synchronized void forgetNode(String nodeName) {
        NodePool removed = poolsByNode.remove(nodeName);
        if (removed != null && removed.slice() >= 0 && removed.slice() < Integer.MAX_VALUE) {
            if (poolsByNode.values().stream().noneMatch(other -> other.slice() == removed.slice())) {
                usedSlices.clear((int) removed.slice());
            }
        }
    }

    private CidrPool pool(String nodeName, Optional<String> podCidr) {
        requireNonNull(nodeName, "nodeName is null");
        requireNonNull(podCidr, "podCidr is null");
        NodePool existing = poolsByNode.get(nodeName);
        if (podCidr.isPresent()) {
            if (existing != null && existing.cidr().equals(podCidr.get())) {
                return existing.pool();
            }
            // Node IPAM assigned (or changed) the podCIDR: new pods take addresses from it; the slice is given back.
            if (existing != null) {
                forgetNode(nodeName);
            }
            NodePool created = new NodePool(podCidr.get(), CidrPool.of(podCidr.get(), GATEWAY_ADDRESSES), -1);
            poolsByNode.put(nodeName, created);
            return created.pool();
        }
        if (existing != null) {
            return existing.pool();
        }
        long slice = nextSlice();
        CidrPool.Cidr cidr = clusterCidr.subnetFromTop(slice, slicePrefixLength);
        NodePool created = new NodePool(cidr.toString(), new CidrPool(cidr, GATEWAY_ADDRESSES), slice);
        poolsByNode.put(nodeName, created);
        return created.pool();
    }

    private long nextSlice() {
        int free = usedSlices.nextClearBit(0);
        if (free < sliceCount) {
            usedSlices.set(free);
            return free;
        }
        if (!warnedAboutSharing) {
            warnedAboutSharing = true;
            LOG.warn("the cluster CIDR {} has only {} /{} ranges for simulated nodes without a podCIDR; nodes now share ranges and pod IPs may repeat"
                    + " (use a larger --cluster-cidr)", clusterCidr, sliceCount, slicePrefixLength);
        }
        return poolsByNode.size() % sliceCount;
    }
}
