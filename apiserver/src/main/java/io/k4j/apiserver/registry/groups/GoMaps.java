package io.k4j.apiserver.registry.groups;

import java.util.Map;
import java.util.TreeMap;

/** Renders string maps as upstream's field errors print them ({@code map[string]string{"a":"b"}}). Thread-safe. */
public final class GoMaps {
    private GoMaps() {}

    public static Validators.Literal render(Map<String, String> map) {
        if (map.isEmpty()) {
            return new Validators.Literal("map[string]string(nil)");
        }
        StringBuilder builder = new StringBuilder("map[string]string{");
        int index = 0;
        for (Map.Entry<String, String> entry : new TreeMap<>(map).entrySet()) {
            builder.append(index++ == 0 ? "" : ", ").append('"').append(entry.getKey()).append("\":\"").append(entry.getValue()).append('"');
        }
        return new Validators.Literal(builder.append('}').toString());
    }
}
