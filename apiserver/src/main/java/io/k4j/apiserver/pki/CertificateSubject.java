package io.k4j.apiserver.pki;

import static java.util.Objects.requireNonNull;

import java.util.List;

/**
 * The subject of a certificate as the cluster uses it: the common name is the user, each organization a group.
 * Immutable.
 */
public record CertificateSubject(String commonName, List<String> organizations) {
    public CertificateSubject {
        requireNonNull(commonName, "commonName is null");
        organizations = List.copyOf(organizations);
    }

    public static CertificateSubject of(String commonName) {
        return new CertificateSubject(commonName, List.of());
    }
}
