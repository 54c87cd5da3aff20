package io.k4j.apiserver.pki;

import static java.util.Objects.requireNonNull;

import java.net.InetAddress;
import java.time.InstantSource;
import java.util.List;

/**
 * What the cluster PKI needs to know to create its certificates.
 *
 * @param hostName this machine's host name, put into the API server's certificate
 * @param nodeName the name of the local node, whose kubelet gets a {@code system:node:<nodeName>} client certificate
 * @param serviceIp the first IP of the service CIDR (the {@code kubernetes} service's cluster IP)
 * @param clusterDomain the cluster DNS domain, normally {@code cluster.local}
 * @param extraDnsNames more DNS names for the API server's certificate ({@code --tls-san})
 * @param extraIpAddresses more IP addresses for the API server's certificate
 * @param keyAlgorithm the type of the CA's, the API server's and the service-account keys created on first use
 *     (existing keys keep their type)
 * @param clientKeyAlgorithm the type of client certificate keys created on first use: RSA where clients read keys as
 *     RSA unless told otherwise (fabric8 does)
 * @param clock the time source for validity periods
 */
public record PkiOptions(
        String hostName,
        String nodeName,
        InetAddress serviceIp,
        String clusterDomain,
        List<String> extraDnsNames,
        List<InetAddress> extraIpAddresses,
        KeyAlgorithm keyAlgorithm,
        KeyAlgorithm clientKeyAlgorithm,
        InstantSource clock) {
    public PkiOptions {
        requireNonNull(hostName, "hostName is null");
        requireNonNull(nodeName, "nodeName is null");
        requireNonNull(serviceIp, "serviceIp is null");
        requireNonNull(clusterDomain, "clusterDomain is null");
        extraDnsNames = List.copyOf(requireNonNull(extraDnsNames, "extraDnsNames is null"));
        extraIpAddresses = List.copyOf(requireNonNull(extraIpAddresses, "extraIpAddresses is null"));
        requireNonNull(keyAlgorithm, "keyAlgorithm is null");
        requireNonNull(clientKeyAlgorithm, "clientKeyAlgorithm is null");
        requireNonNull(clock, "clock is null");
    }

    /** ECDSA keys, {@code cluster.local}, no extra names, the system clock. */
    public static PkiOptions of(String hostName, String nodeName, InetAddress serviceIp) {
        return new PkiOptions(hostName, nodeName, serviceIp, "cluster.local", List.of(), List.of(), KeyAlgorithm.ECDSA_P256, KeyAlgorithm.ECDSA_P256,
                InstantSource.system());
    }
}
