package io.k4j.controllerkit.informers;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.DeserializationContext;
import com.fasterxml.jackson.databind.deser.std.StdScalarDeserializer;
import com.fasterxml.jackson.databind.deser.std.StringDeserializer;
import java.io.IOException;
import java.util.concurrent.atomic.AtomicReferenceArray;

/**
 * Decodes short JSON strings to one shared {@link String} per value, as far as a small table remembers them. Every
 * pod repeats dozens of the same values ({@code TCP}, {@code IfNotPresent}, {@code ClusterFirst}, an image, a
 * toleration's key, its namespace...); decoded apart, each pod in an informer's cache held its own copies. A
 * direct-mapped table of {@value #SLOTS} slots, chosen by the characters' hash, holds the last string decoded there:
 * a value found there is returned without allocating, and a unique one (a name, a uid, a timestamp) costs one slot
 * write. Strings are immutable, so sharing them changes nothing a reader can see. Thread-safe.
 */
final class CanonicalStrings extends StdScalarDeserializer<String> {
    private static final int SLOTS = 8192;
    /** Longer values are rarely repeated and cost more to compare. */
    private static final int MAX_LENGTH = 64;

    private final AtomicReferenceArray<String> slots = new AtomicReferenceArray<>(SLOTS);

    CanonicalStrings() {
        super(String.class);
    }

    @Override
    public String deserialize(JsonParser parser, DeserializationContext context) throws IOException {
        if (parser.currentToken() != JsonToken.VALUE_STRING || parser.getTextLength() > MAX_LENGTH) {
            return StringDeserializer.instance.deserialize(parser, context);
        }
        char[] text = parser.getTextCharacters();
        int offset = parser.getTextOffset();
        int length = parser.getTextLength();
        int hash = 0;
        for (int i = 0; i < length; i++) {
            hash = 31 * hash + text[offset + i];
        }
        int slot = (hash ^ (hash >>> 13)) & (SLOTS - 1);
        String known = slots.get(slot);
        if (known != null && sameCharacters(known, text, offset, length)) {
            return known;
        }
        String value = new String(text, offset, length);
        slots.set(slot, value);
        return value;
    }

    private static boolean sameCharacters(String known, char[] text, int offset, int length) {
        if (known.length() != length) {
            return false;
        }
        for (int i = 0; i < length; i++) {
            if (known.charAt(i) != text[offset + i]) {
                return false;
            }
        }
        return true;
    }

    @Override
    public boolean isCachable() {
        return true;
    }
}
