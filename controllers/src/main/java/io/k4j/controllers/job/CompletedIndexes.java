package io.k4j.controllers.job;

import java.util.ArrayList;
import java.util.List;
import java.util.TreeSet;

/**
 * The completion indexes of an Indexed Job in the compressed interval form of {@code status.completedIndexes}
 * ({@code "1,3-5,7"}), as upstream's {@code orderedIntervals}. Not thread-safe; used within one sync.
 */
final class CompletedIndexes {
    private final TreeSet<Integer> indexes = new TreeSet<>();

    /** Parses {@code text}, keeping only indexes below {@code completions}; malformed parts are skipped as upstream does. */
    static CompletedIndexes parse(String text, int completions) {
        CompletedIndexes result = new CompletedIndexes();
        if (text == null || text.isEmpty()) {
            return result;
        }
        for (String part : text.split(",")) {
            try {
                int dash = part.indexOf('-');
                int first = Integer.parseInt(dash < 0 ? part : part.substring(0, dash));
                int last = dash < 0 ? first : Integer.parseInt(part.substring(dash + 1));
                for (int index = first; index <= last && index < completions; index++) {
                    result.indexes.add(index);
                }
            } catch (NumberFormatException e) {
                // Upstream ignores an interval it cannot parse rather than failing the whole job.
            }
        }
        return result;
    }

    void add(int index) {
        indexes.add(index);
    }

    boolean contains(int index) {
        return indexes.contains(index);
    }

    int size() {
        return indexes.size();
    }

    java.util.stream.IntStream stream() {
        return indexes.stream().mapToInt(Integer::intValue);
    }

    /** The compressed form; empty when no index completed. */
    String format() {
        List<String> intervals = new ArrayList<>();
        Integer start = null;
        Integer previous = null;
        for (int index : indexes) {
            if (start == null) {
                start = index;
            } else if (index != previous + 1) {
                intervals.add(interval(start, previous));
                start = index;
            }
            previous = index;
        }
        if (start != null) {
            intervals.add(interval(start, previous));
        }
        return String.join(",", intervals);
    }

    private static String interval(int first, int last) {
        return first == last ? Integer.toString(first) : first + "-" + last;
    }
}
