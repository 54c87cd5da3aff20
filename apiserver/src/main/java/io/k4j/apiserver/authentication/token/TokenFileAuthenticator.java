package io.k4j.apiserver.authentication.token;

import static java.util.Objects.requireNonNull;

import io.k4j.apiserver.authentication.UserInfo;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Static bearer tokens from a {@code --token-auth-file} in upstream's CSV format:
 * {@code token,user,uid,"group1,group2"} (at least three columns; the groups column is optional). Empty lines are
 * skipped; a later line with the same token replaces an earlier one, as upstream does. Immutable and thread-safe.
 */
public final class TokenFileAuthenticator implements TokenAuthenticator {
    private final Map<String, UserInfo> users;

    public TokenFileAuthenticator(Map<String, UserInfo> users) {
        this.users = Map.copyOf(requireNonNull(users, "users is null"));
    }

    public static TokenFileAuthenticator load(Path file) {
        try {
            return parse(file.toString(), Files.readString(file, StandardCharsets.UTF_8));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read token file " + file, e);
        }
    }

    /**
     * @param source the file name for error messages
     * @throws IllegalArgumentException for a line with fewer than three columns or broken quoting
     */
    public static TokenFileAuthenticator parse(String source, String content) {
        Map<String, UserInfo> users = new LinkedHashMap<>();
        int lineNumber = 0;
        for (String line : content.split("\r?\n")) {
            lineNumber++;
            if (line.isBlank()) {
                continue;
            }
            List<String> record = parseCsvLine(line, source, lineNumber);
            if (record.size() < 3) {
                throw new IllegalArgumentException("token file '" + source + "' must have at least 3 columns (token, user name, user uid), found " + record.size());
            }
            String token = record.get(0);
            if (token.isEmpty()) {
                continue;
            }
            List<String> groups = new ArrayList<>();
            if (record.size() >= 4 && !record.get(3).isEmpty()) {
                for (String group : record.get(3).split(",")) {
                    String trimmed = group.trim();
                    if (!trimmed.isEmpty()) {
                        groups.add(trimmed);
                    }
                }
            }
            if (!groups.contains(UserInfo.AUTHENTICATED_GROUP)) {
                groups.add(UserInfo.AUTHENTICATED_GROUP);
            }
            users.put(token, new UserInfo(record.get(1), record.get(2), groups, Map.of()));
        }
        return new TokenFileAuthenticator(users);
    }

    @Override
    public Optional<TokenAuthentication> authenticateToken(String token, List<String> audiences) {
        // Compare in constant time so the response time does not reveal how much of a guessed token matched.
        byte[] presented = token.getBytes(StandardCharsets.UTF_8);
        UserInfo found = null;
        for (Map.Entry<String, UserInfo> entry : users.entrySet()) {
            if (MessageDigest.isEqual(entry.getKey().getBytes(StandardCharsets.UTF_8), presented)) {
                found = entry.getValue();
            }
        }
        return Optional.ofNullable(found).map(user -> new TokenAuthentication(user, audiences));
    }

    /** One CSV record as Go's {@code encoding/csv} reads it with leading spaces trimmed. */
    private static List<String> parseCsvLine(String line, String source, int lineNumber) {
        List<String> fields = new ArrayList<>();
        StringBuilder field = new StringBuilder();
        int i = 0;
        while (true) {
            while (i < line.length() && field.isEmpty() && (line.charAt(i) == ' ' || line.charAt(i) == '\t')) {
                i++;
            }
            if (i < line.length() && line.charAt(i) == '"') {
                i++;
                boolean closed = false;
                while (i < line.length()) {
                    char c = line.charAt(i);
                    if (c == '"') {
                        if (i + 1 < line.length() && line.charAt(i + 1) == '"') {
                            field.append('"');
                            i += 2;
                            continue;
                        }
                        closed = true;
                        i++;
                        break;
                    }
                    field.append(c);
                    i++;
                }
                if (!closed || (i < line.length() && line.charAt(i) != ',')) {
                    throw new IllegalArgumentException("token file '" + source + "' line " + lineNumber + ": bad quoting");
                }
            } else {
                while (i < line.length() && line.charAt(i) != ',') {
                    field.append(line.charAt(i));
                    i++;
                }
            }
            fields.add(field.toString());
            field.setLength(0);
            if (i >= line.length()) {
                return fields;
            }
            i++; // the comma
        }
    }
}
