package io.k4j.kubelet.dns;

import static java.util.Objects.requireNonNull;

import java.util.ArrayList;
import java.util.List;

/**
 * The node's resolver configuration as the kubelet reads its {@code --resolv-conf} file: the {@code nameserver} lines,
 * the last {@code search} line (without {@code .} and without trailing dots), and every {@code options} entry.
 * Immutable.
 */
public record HostResolvConf(List<String> nameservers, List<String> searches, List<String> options) {
    public HostResolvConf {
        nameservers = List.copyOf(requireNonNull(nameservers, "nameservers is null"));
        searches = List.copyOf(requireNonNull(searches, "searches is null"));
        options = List.copyOf(requireNonNull(options, "options is null"));
    }

    /** Parses resolv.conf {@code content}; comments start with {@code #} or {@code ;}. */
    public static HostResolvConf parse(String content) {
        List<String> nameservers = new ArrayList<>();
        List<String> searches = new ArrayList<>();
        List<String> options = new ArrayList<>();
        for (String rawLine : content.split("\n")) {
            String line = rawLine;
            int comment = firstIndexOf(line, '#', ';');
            if (comment >= 0) {
                line = line.substring(0, comment);
            }
            String[] fields = line.strip().split("\\s+");
            if (fields.length < 2) {
                continue;
            }
            switch (fields[0]) {
                case "nameserver" -> nameservers.add(fields[1]);
                case "search" -> {
                    // As the resolver: the last search line wins.
                    searches.clear();
                    for (int i = 1; i < fields.length; i++) {
                        if (!fields[i].equals(".")) {
                            searches.add(fields[i].endsWith(".") ? fields[i].substring(0, fields[i].length() - 1) : fields[i]);
                        }
                    }
                }
                case "options" -> {
                    for (int i = 1; i < fields.length; i++) {
                        options.add(fields[i]);
                    }
                }
                default -> {
                    // domain, sortlist and others are not passed to pods, as upstream.
                }
            }
        }
        return new HostResolvConf(nameservers, searches, options);
    }

    private static int firstIndexOf(String line, char first, char second) {
        int a = line.indexOf(first);
        int b = line.indexOf(second);
        return a < 0 ? b : b < 0 ? a : Math.min(a, b);
    }
}
