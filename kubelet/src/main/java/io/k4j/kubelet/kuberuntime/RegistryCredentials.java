package io.k4j.kubelet.kuberuntime;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.fabric8.kubernetes.api.model.Secret;
import io.k4j.kubelet.cri.v1.AuthConfig;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Iterator;
import java.util.List;
import java.util.Map;

/**
 * Registry credentials from a pod's imagePullSecrets ({@code kubernetes.io/dockerconfigjson} and the older
 * {@code kubernetes.io/dockercfg}), matched to an image's registry as upstream's credential provider does.
 * Stateless.
 */
public final class RegistryCredentials {
    private static final ObjectMapper JSON = new ObjectMapper();

    private RegistryCredentials() {}

    /** The credentials in {@code secrets} for the registry of {@code image}, in the secrets' order. */
    public static List<AuthConfig> forImage(String image, List<Secret> secrets) {
        String registry = registryOf(image);
        List<AuthConfig> matching = new ArrayList<>();
        for (Secret secret : secrets) {
            JsonNode auths = auths(secret);
            if (auths == null) {
                continue;
            }
            Iterator<Map.Entry<String, JsonNode>> fields = auths.fields();
            while (fields.hasNext()) {
                Map.Entry<String, JsonNode> entry = fields.next();
                if (registry.equals(normalizeRegistry(entry.getKey()))) {
                    matching.add(authConfig(registry, entry.getValue()));
                }
            }
        }
        return List.copyOf(matching);
    }

    /** The registry host of an image reference ({@code docker.io} when it names none). */
    public static String registryOf(String image) {
        int slash = image.indexOf('/');
        if (slash < 0) {
            return "docker.io";
        }
        String first = image.substring(0, slash);
        if (first.contains(".") || first.contains(":") || first.equals("localhost")) {
            return normalizeRegistry(first);
        }
        return "docker.io";
    }

    private static String normalizeRegistry(String key) {
        String registry = key;
        int scheme = registry.indexOf("://");
        if (scheme >= 0) {
            registry = registry.substring(scheme + 3);
        }
        int path = registry.indexOf('/');
        if (path >= 0) {
            registry = registry.substring(0, path);
        }
        if (registry.equals("index.docker.io") || registry.equals("registry-1.docker.io")) {
            return "docker.io";
        }
        return registry;
    }

    private static JsonNode auths(Secret secret) {
        Map<String, String> data = secret.getData() == null ? Map.of() : secret.getData();
        try {
            if (data.containsKey(".dockerconfigjson")) {
                return JSON.readTree(decode(data.get(".dockerconfigjson"))).get("auths");
            }
            if (data.containsKey(".dockercfg")) {
                return JSON.readTree(decode(data.get(".dockercfg")));
            }
        }
        catch (IOException | IllegalArgumentException e) {
            return null;
        }
        return null;
    }

    private static AuthConfig authConfig(String registry, JsonNode entry) {
        String username = text(entry, "username");
        String password = text(entry, "password");
        String auth = text(entry, "auth");
        if (username.isEmpty() && !auth.isEmpty()) {
            String decoded = decode(auth);
            int colon = decoded.indexOf(':');
            if (colon >= 0) {
                username = decoded.substring(0, colon);
                password = decoded.substring(colon + 1);
            }
        }
        return AuthConfig.newBuilder()
                .setUsername(username)
                .setPassword(password)
                .setServerAddress(registry)
                .setIdentityToken(text(entry, "identitytoken"))
                .setRegistryToken(text(entry, "registrytoken"))
                .build();
    }

    private static String text(JsonNode node, String field) {
        JsonNode value = node.get(field);
        return value == null || value.isNull() ? "" : value.asText();
    }

    private static String decode(String base64) {
        return new String(Base64.getDecoder().decode(base64.trim()), StandardCharsets.UTF_8);
    }
}
