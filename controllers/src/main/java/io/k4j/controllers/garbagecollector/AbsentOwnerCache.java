package io.k4j.controllers.garbagecollector;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Remembers owners the API said are gone (by uid and namespace), so the dependents of a deleted owner cost one GET
 * rather than one each, as upstream's {@code ReferenceCache}. Least recently used entries fall out. Thread-safe.
 */
final class AbsentOwnerCache {
    private final Map<String, Boolean> entries;

    AbsentOwnerCache(int capacity) {
        this.entries = new LinkedHashMap<>(16, 0.75f, true) {
            @Override
            protected boolean removeEldestEntry(Map.Entry<String, Boolean> eldest) {
                return size() > capacity;
            }
        };
    }

    synchronized void add(String namespace, String uid) {
        entries.put(namespace + "/" + uid, Boolean.TRUE);
    }

    synchronized boolean contains(String namespace, String uid) {
        return entries.containsKey(namespace + "/" + uid);
    }
}
