package io.k4j.storage.etcd;

import java.net.URI;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Parses the k4j datastore endpoint for etcd, {@code etcd://host:port[,host:port...]}, into the client URLs jetcd
 * dials. The etcd form is what {@code --datastore-endpoint} takes; plain {@code http://host:port} URLs (etcd's own
 * form, also comma separated) are accepted too.
 *
 * <p>Stateless and thread-safe.
 */
final class EtcdEndpoints {
    private static final String ETCD_SCHEME = "etcd://";
    private static final String HTTP_SCHEME = "http://";
    private static final String HTTPS_SCHEME = "https://";

    private EtcdEndpoints() {}

    static List<URI> parse(String endpoint) {
        if (endpoint == null || endpoint.isBlank()) {
            throw new IllegalArgumentException("etcd endpoint is empty; expected etcd://host:port[,host:port...]");
        }
        String trimmed = endpoint.trim();
        String lower = trimmed.toLowerCase(Locale.ROOT);
        if (lower.startsWith(ETCD_SCHEME)) {
            List<URI> urls = new ArrayList<>();
            for (String member : trimmed.substring(ETCD_SCHEME.length()).split(",", -1)) {
                urls.add(hostPort(member.trim(), endpoint));
            }
            return List.copyOf(urls);
        }
        if (lower.startsWith(HTTP_SCHEME)) {
            List<URI> urls = new ArrayList<>();
            for (String member : trimmed.split(",", -1)) {
                String url = member.trim();
                if (!url.toLowerCase(Locale.ROOT).startsWith(HTTP_SCHEME)) {
                    throw new IllegalArgumentException("etcd endpoint " + endpoint + " mixes URL forms: " + url);
                }
                String authority = url.substring(HTTP_SCHEME.length());
                if (authority.endsWith("/")) {
                    authority = authority.substring(0, authority.length() - 1);
                }
                urls.add(hostPort(authority, endpoint));
            }
            return List.copyOf(urls);
        }
        if (lower.startsWith(HTTPS_SCHEME)) {
            throw new IllegalArgumentException("etcd endpoint " + endpoint + " uses TLS, which the etcd backend does not support yet");
        }
        throw new IllegalArgumentException("etcd endpoint " + endpoint + " has no etcd:// or http:// scheme");
    }

    private static URI hostPort(String authority, String endpoint) {
        if (authority.isEmpty() || authority.contains("/") || authority.contains("@")) {
            throw new IllegalArgumentException("etcd endpoint " + endpoint + " has an invalid member '" + authority
                    + "'; expected host:port");
        }
        URI url = URI.create(HTTP_SCHEME + authority);
        if (url.getHost() == null || url.getPort() < 0) {
            throw new IllegalArgumentException("etcd endpoint " + endpoint + " has an invalid member '" + authority
                    + "'; expected host:port");
        }
        return url;
    }
}
