package io.k4j.controllerkit.manager;

import static java.util.Objects.requireNonNull;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;

/**
 * Upstream's {@code --controllers} list: {@code *} turns on every controller that is on by default, {@code foo} turns
 * {@code foo} on, {@code -foo} turns it off; the first entry naming a controller wins. Immutable.
 */
public record ControllerSelection(List<String> entries) {
    public ControllerSelection {
        entries = List.copyOf(requireNonNull(entries, "entries is null"));
    }

    public static ControllerSelection all() {
        return new ControllerSelection(List.of("*"));
    }

    public boolean isEnabled(String name, boolean enabledByDefault) {
        boolean star = false;
        for (String entry : entries) {
            if (entry.equals(name)) {
                return true;
            }
            if (entry.equals("-" + name)) {
                return false;
            }
            if (entry.equals("*")) {
                star = true;
            }
        }
        return star && enabledByDefault;
    }

    /**
     * Rejects entries that name no known controller, with upstream's message, so a typo fails start-up instead of
     * silently turning nothing off.
     */
    public void validate(Collection<String> knownNames) {
        List<String> unknown = new ArrayList<>();
        for (String entry : entries) {
            String name = entry.startsWith("-") ? entry.substring(1) : entry;
            if (!entry.equals("*") && !knownNames.contains(name)) {
                unknown.add(entry);
            }
        }
        if (!unknown.isEmpty()) {
            throw new IllegalArgumentException("--controllers: " + String.join(", ", unknown) + " is not in the list of known controllers: "
                    + String.join(", ", knownNames.stream().sorted().toList()));
        }
    }
}
