package io.k4j.apiserver.pki;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import com.fasterxml.jackson.dataformat.yaml.YAMLGenerator;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Base64;

/**
 * Writes kubeconfig files in the standard {@code clientcmd} v1 layout with embedded, base64-encoded PEM data
 * ({@code certificate-authority-data}, {@code client-certificate-data}, {@code client-key-data}), which {@code kubectl}
 * and client libraries read unchanged. Files are written with mode 0600 because they hold a private key.
 * Stateless and thread-safe.
 */
public final class Kubeconfig {
    private static final ObjectMapper YAML = new ObjectMapper(YAMLFactory.builder()
            .disable(YAMLGenerator.Feature.WRITE_DOC_START_MARKER)
            .enable(YAMLGenerator.Feature.MINIMIZE_QUOTES)
            .build());

    private Kubeconfig() {}

    /**
     * Writes a kubeconfig with one cluster, one user and one context, which is also the current context.
     *
     * @param file where to write
     * @param clusterName the cluster entry's name
     * @param serverUrl e.g. {@code https://127.0.0.1:6443}
     * @param caPem the CA certificate(s) that sign the server's certificate
     * @param clientCertificatePem the client certificate
     * @param clientKeyPem the client's private key
     * @param user the user entry's name
     * @param context the context entry's name
     */
    public static void write(Path file, String clusterName, String serverUrl, String caPem, String clientCertificatePem, String clientKeyPem, String user, String context) {
        SecureFiles.write(file, render(clusterName, serverUrl, caPem, clientCertificatePem, clientKeyPem, user, context), SecureFiles.OWNER_ONLY);
    }

    /** The YAML {@link #write} stores. */
    public static String render(String clusterName, String serverUrl, String caPem, String clientCertificatePem, String clientKeyPem, String user, String context) {
        ObjectNode root = YAML.createObjectNode();
        root.put("apiVersion", "v1");
        root.put("kind", "Config");
        ObjectNode clusterEntry = root.putArray("clusters").addObject();
        ObjectNode cluster = clusterEntry.putObject("cluster");
        cluster.put("certificate-authority-data", base64(caPem));
        cluster.put("server", serverUrl);
        clusterEntry.put("name", clusterName);
        ObjectNode contextEntry = root.putArray("contexts").addObject();
        ObjectNode contextBody = contextEntry.putObject("context");
        contextBody.put("cluster", clusterName);
        contextBody.put("user", user);
        contextEntry.put("name", context);
        root.put("current-context", context);
        root.putObject("preferences");
        ObjectNode userEntry = root.putArray("users").addObject();
        userEntry.put("name", user);
        ObjectNode userBody = userEntry.putObject("user");
        userBody.put("client-certificate-data", base64(clientCertificatePem));
        userBody.put("client-key-data", base64(clientKeyPem));
        try {
            return YAML.writeValueAsString(root);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("cannot render kubeconfig", e);
        }
    }

    private static String base64(String pem) {
        return Base64.getEncoder().encodeToString(pem.getBytes(StandardCharsets.UTF_8));
    }
}
