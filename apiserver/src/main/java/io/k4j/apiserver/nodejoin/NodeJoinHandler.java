package io.k4j.apiserver.nodejoin;

import static java.util.Objects.requireNonNull;

import io.k4j.api.errors.StatusException;
import io.k4j.api.errors.StatusReason;
import io.k4j.api.validation.NameValidation;
import io.k4j.apiserver.PreAuthenticationHandler;
import io.k4j.apiserver.endpoints.HttpExchange;
import io.k4j.apiserver.endpoints.Responses;
import io.k4j.apiserver.pki.CertificateAndKey;
import io.k4j.apiserver.pki.ClusterPki;
import java.io.IOException;
import java.net.InetAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The node join endpoint, k3s-style ({@code /v1-k3s/client-kubelet.crt} and friends in one call): {@code POST}
 * {@value #PATH} with the join token as bearer and a {@link NodeCredentialsRequest} body answers with
 * {@link NodeCredentials} for the node. Served before the apiserver's authentication, because a joining node has no
 * identity yet; the token is its credential. A missing or wrong token is a 401 Status and nothing is issued. The
 * identities issued are the same as the server's own node has ({@code system:node:<name>} in {@code system:nodes}), so
 * the Node authorizer and NodeRestriction limit the joined node exactly as they limit the server's.
 *
 * <p>Thread-safe.
 */
public final class NodeJoinHandler implements PreAuthenticationHandler {
    public static final String PREFIX = "/v1-k4j/";
    public static final String PATH = PREFIX + "node-credentials";
    private static final Logger LOG = LoggerFactory.getLogger(NodeJoinHandler.class);
    private static final int MAX_NAMES = 64;

    private final NodeJoinToken token;
    private final ClusterPki pki;
    private final String clusterCidr;

    public NodeJoinHandler(NodeJoinToken token, ClusterPki pki, String clusterCidr) {
        this.token = requireNonNull(token, "token is null");
        this.pki = requireNonNull(pki, "pki is null");
        this.clusterCidr = requireNonNull(clusterCidr, "clusterCidr is null");
    }

    @Override
    public String pathPrefix() {
        return PREFIX;
    }

    @Override
    public void handle(HttpExchange exchange) throws IOException {
        if (!exchange.path().equals(PATH)) {
            throw Responses.notFound();
        }
        // The token is checked before anything else, so that without it nothing about the request is revealed.
        String authorization = exchange.header("authorization");
        String scheme = "bearer ";
        if (authorization == null || authorization.length() <= scheme.length()
                || !authorization.substring(0, scheme.length()).toLowerCase(Locale.ROOT).equals(scheme)
                || !token.accepts(authorization.substring(scheme.length()).strip())) {
            throw StatusException.unauthorized();
        }
        if (!exchange.method().equals("POST")) {
            throw new StatusException(StatusReason.METHOD_NOT_ALLOWED, "the node join only accepts POST");
        }
        NodeCredentialsRequest request;
        try {
            request = NodeCredentialsRequest.fromJson(exchange.body());
        } catch (IllegalArgumentException e) {
            throw StatusException.badRequest(e.getMessage());
        }
        List<String> nameErrors = NameValidation.isDns1123Subdomain(request.nodeName());
        if (!nameErrors.isEmpty()) {
            throw StatusException.badRequest("invalid node name \"" + request.nodeName() + "\": " + String.join(", ", nameErrors));
        }
        if (request.hostNames().size() > MAX_NAMES || request.addresses().size() > MAX_NAMES) {
            throw StatusException.badRequest("at most " + MAX_NAMES + " host names and " + MAX_NAMES + " addresses");
        }
        for (String hostName : request.hostNames()) {
            List<String> errors = NameValidation.isDns1123Subdomain(hostName);
            if (!errors.isEmpty()) {
                throw StatusException.badRequest("invalid host name \"" + hostName + "\": " + String.join(", ", errors));
            }
        }
        List<InetAddress> addresses = new ArrayList<>();
        for (String address : request.addresses()) {
            if (!NameValidation.isValidIp("addresses", address).isEmpty()) {
                throw StatusException.badRequest("invalid address \"" + address + "\": must be an IP address");
            }
            // A literal: no name lookup happens.
            addresses.add(InetAddress.getByName(address));
        }
        CertificateAndKey client = pki.issueClientCertificate(ClusterPki.NODE_USER_PREFIX + request.nodeName(), List.of(ClusterPki.NODES_GROUP),
                ClusterPki.LEAF_VALIDITY);
        CertificateAndKey serving = pki.issueKubeletServingCertificate(request.nodeName(), request.hostNames(), addresses);
        CertificateAndKey kubeProxy = pki.issueClientCertificate(ClusterPki.KUBE_PROXY_USER, List.of(), ClusterPki.LEAF_VALIDITY);
        NodeCredentials credentials = new NodeCredentials(pki.caCertificatePem(), client.certificatePem(), client.privateKeyPem(),
                serving.certificatePem(), serving.privateKeyPem(), kubeProxy.certificatePem(), kubeProxy.privateKeyPem(), clusterCidr);
        LOG.info("issued node credentials for {}{} (serving names {}, addresses {})", ClusterPki.NODE_USER_PREFIX, request.nodeName(),
                request.hostNames(), request.addresses());
        exchange.addHeader("Cache-Control", "no-store");
        exchange.respond(200, "application/json", credentials.toJson());
    }
}
