package io.k4j.api.codec;

import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** A URL's query string as an HTTP server reads it: {@code +} and percent escapes decoded, repeated names kept in order. */
public final class QueryStrings {
    private QueryStrings() {}

    /**
     * The parameters of {@code rawQuery} (the query as sent, still encoded; null or empty for none), in their order; a
     * name without {@code =} has the empty value. Unmodifiable.
     */
    public static Map<String, List<String>> decode(String rawQuery) {
        Map<String, List<String>> parameters = new LinkedHashMap<>();
        if (rawQuery != null && !rawQuery.isEmpty()) {
            for (String pair : rawQuery.split("&")) {
                if (pair.isEmpty()) {
                    continue;
                }
                int equals = pair.indexOf('=');
                String name = URLDecoder.decode(equals < 0 ? pair : pair.substring(0, equals), StandardCharsets.UTF_8);
                String value = equals < 0 ? "" : URLDecoder.decode(pair.substring(equals + 1), StandardCharsets.UTF_8);
                parameters.computeIfAbsent(name, key -> new ArrayList<>(1)).add(value);
            }
        }
        parameters.replaceAll((name, values) -> List.copyOf(values));
        return Collections.unmodifiableMap(parameters);
    }
}
