package io.k4j.apiserver.registry.generic;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.Random;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

class PersistentSortedMapTest {
    @Test
    void behavesAsATreeMapUnderRandomPutsAndRemoves() {
        Random random = new Random(42);
        PersistentSortedMap<Integer> map = PersistentSortedMap.empty();
        TreeMap<String, Integer> expected = new TreeMap<>();
        for (int step = 0; step < 20_000; step++) {
            String key = "/registry/pods/ns-" + random.nextInt(5) + "/pod-" + random.nextInt(2_000);
            if (random.nextInt(3) == 0) {
                map = map.remove(key);
                expected.remove(key);
            } else {
                map = map.put(key, step);
                expected.put(key, step);
            }
            if (step % 1_000 == 0) {
                map.checkInvariants();
            }
        }
        map.checkInvariants();

        assertThat(map.size()).isEqualTo(expected.size());
        assertThat(entries(map.iterator())).isEqualTo(expected.entrySet().stream().map(entry -> Map.entry(entry.getKey(), entry.getValue())).toList());
        for (int probe = 0; probe < 500; probe++) {
            String key = "/registry/pods/ns-" + random.nextInt(5) + "/pod-" + random.nextInt(2_000);
            assertThat(map.get(key)).isEqualTo(expected.get(key));
            assertThat(map.rank(key)).isEqualTo(expected.headMap(key, false).size());
        }
    }

    @Test
    void aChangeReportsTheValueItReplacedAsATreeMapDoes() {
        Random random = new Random(7);
        PersistentSortedMap<Integer> map = PersistentSortedMap.empty();
        TreeMap<String, Integer> expected = new TreeMap<>();
        for (int step = 0; step < 20_000; step++) {
            String key = "/registry/pods/ns-" + random.nextInt(5) + "/pod-" + random.nextInt(2_000);
            boolean remove = random.nextInt(3) == 0;
            PersistentSortedMap<Integer> before = map;
            PersistentSortedMap.Changed<Integer> changed = map.change(key, remove ? null : step);
            Integer previous = remove ? expected.remove(key) : expected.put(key, step);
            assertThat(changed.previous()).isEqualTo(previous);
            if (remove && previous == null) {
                assertThat(changed.map()).as("removing an absent key changes nothing").isSameAs(before);
            }
            map = changed.map();
            if (step % 1_000 == 0) {
                map.checkInvariants();
                assertThat(before.get(key)).as("the map before the change is kept").isEqualTo(previous);
            }
        }
        map.checkInvariants();

        assertThat(entries(map.iterator())).isEqualTo(expected.entrySet().stream().map(entry -> Map.entry(entry.getKey(), entry.getValue())).toList());
    }

    @Test
    void sortedInsertsAndRemovalsStayBalanced() {
        PersistentSortedMap<String> map = PersistentSortedMap.empty();
        for (int i = 0; i < 10_000; i++) {
            map = map.put(String.format("key-%05d", i), "v" + i);
        }
        map.checkInvariants();
        for (int i = 0; i < 10_000; i += 2) {
            map = map.remove(String.format("key-%05d", i));
        }
        map.checkInvariants();

        assertThat(map.size()).isEqualTo(5_000);
        assertThat(map.get("key-00001")).isEqualTo("v1");
        assertThat(map.get("key-00002")).isNull();
    }

    @Test
    void oldVersionsAreUnchangedByLaterWrites() {
        PersistentSortedMap<String> first = PersistentSortedMap.<String>empty().put("a", "1").put("b", "2").put("c", "3");
        PersistentSortedMap<String> second = first.put("b", "changed").remove("a").put("d", "4");

        assertThat(entries(first.iterator())).containsExactly(Map.entry("a", "1"), Map.entry("b", "2"), Map.entry("c", "3"));
        assertThat(entries(second.iterator())).containsExactly(Map.entry("b", "changed"), Map.entry("c", "3"), Map.entry("d", "4"));
        assertThat(second.remove("absent")).isSameAs(second);
    }

    @Test
    void iteratesFromAKeyAndCountsARange() {
        PersistentSortedMap<Integer> map = PersistentSortedMap.empty();
        NavigableMap<String, Integer> expected = new TreeMap<>();
        for (int i = 0; i < 300; i++) {
            String key = "/registry/pods/" + (i % 3 == 0 ? "default" : "kube-system") + "/pod-" + String.format("%03d", i);
            map = map.put(key, i);
            expected.put(key, i);
        }

        String from = "/registry/pods/default/pod-100\0";
        String end = "/registry/pods/default/" + Character.MAX_VALUE;
        List<Map.Entry<String, Integer>> page = new ArrayList<>();
        Iterator<Map.Entry<String, Integer>> iterator = map.iteratorFrom(from);
        while (iterator.hasNext() && page.size() < 10) {
            page.add(Map.entry(iterator.next().getKey(), 0));
        }

        assertThat(page).extracting(Map.Entry::getKey).containsExactlyElementsOf(expected.subMap(from, true, end, false).keySet().stream().limit(10).toList());
        assertThat(map.count(from, end)).isEqualTo(expected.subMap(from, true, end, false).size());
        assertThat(map.count("/registry/pods/", "/registry/pods/" + Character.MAX_VALUE)).isEqualTo(300);
        assertThat(map.count("z", "a")).isZero();
        assertThat(map.iteratorFrom("zzz").hasNext()).isFalse();
        assertThat(PersistentSortedMap.empty().iterator().hasNext()).isFalse();
    }

    private static <V> List<Map.Entry<String, V>> entries(Iterator<Map.Entry<String, V>> iterator) {
        List<Map.Entry<String, V>> entries = new ArrayList<>();
        while (iterator.hasNext()) {
            Map.Entry<String, V> entry = iterator.next();
            entries.add(Map.entry(entry.getKey(), entry.getValue()));
        }
        return entries;
    }
}
