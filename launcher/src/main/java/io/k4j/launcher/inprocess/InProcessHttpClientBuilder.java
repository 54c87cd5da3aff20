package io.k4j.launcher.inprocess;

import io.fabric8.kubernetes.client.http.StandardHttpClientBuilder;
import java.security.cert.X509Certificate;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import javax.net.ssl.KeyManager;
import javax.net.ssl.X509KeyManager;

/**
 * Builds {@link InProcessHttpClient}s. The client's identity is the certificate of the key managers fabric8 configures
 * from the client's {@code Config} (its client certificate data), as a TLS connection would present it; a client derived
 * from another (fabric8 derives one per watch, with other timeouts) shares its connection.
 */
public final class InProcessHttpClientBuilder extends StandardHttpClientBuilder<InProcessHttpClient, InProcessHttpClientFactory, InProcessHttpClientBuilder> {
    /** The key types fabric8 builds client key managers for. */
    private static final List<String> KEY_TYPES = List.of("EC", "RSA", "EdDSA", "Ed25519", "RSASSA-PSS", "DSA");

    InProcessHttpClientBuilder(InProcessHttpClientFactory factory) {
        super(factory);
    }

    @Override
    public InProcessHttpClient build() {
        if (client != null) {
            return new InProcessHttpClient(this, client.getClosed(), client.session());
        }
        return new InProcessHttpClient(this, new AtomicBoolean(),
                new InProcessHttpClient.Session(clientFactory.server().inProcessConnection(clientCertificates(keyManagers))));
    }

    @Override
    protected InProcessHttpClientBuilder newInstance(InProcessHttpClientFactory factory) {
        return new InProcessHttpClientBuilder(factory);
    }

    private static List<X509Certificate> clientCertificates(KeyManager[] keyManagers) {
        if (keyManagers == null) {
            return List.of();
        }
        for (KeyManager keyManager : keyManagers) {
            if (keyManager instanceof X509KeyManager x509) {
                for (String keyType : KEY_TYPES) {
                    String[] aliases = x509.getClientAliases(keyType, null);
                    if (aliases != null && aliases.length > 0) {
                        X509Certificate[] chain = x509.getCertificateChain(aliases[0]);
                        if (chain != null && chain.length > 0) {
                            return List.of(chain);
                        }
                    }
                }
            }
        }
        return List.of();
    }
}
