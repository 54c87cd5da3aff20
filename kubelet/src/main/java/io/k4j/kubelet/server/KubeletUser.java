package io.k4j.kubelet.server;

import static java.util.Objects.requireNonNull;

import java.util.List;
import java.util.Map;

/** An authenticated caller of the kubelet server, as the apiserver would see it. */
public record KubeletUser(String name, String uid, List<String> groups, Map<String, List<String>> extra) {
    public KubeletUser {
        requireNonNull(name, "name is null");
        requireNonNull(uid, "uid is null");
        groups = List.copyOf(groups);
        extra = Map.copyOf(extra);
    }
}
