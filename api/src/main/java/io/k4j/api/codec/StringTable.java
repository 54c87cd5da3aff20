package io.k4j.api.codec;

import java.util.concurrent.atomic.AtomicReferenceArray;

/**
 * One shared instance per short string value, as far as a small table remembers them, for what is kept of many
 * objects: every pod repeats dozens of the same values ({@code TCP}, {@code IfNotPresent}, {@code Pending}, its
 * namespace, an image, a label...), and each decoded copy would otherwise hold its own. A direct-mapped table, each
 * slot chosen by the characters' hash and holding the last string looked up there: a value found there is returned
 * (from characters, without allocating), and a unique one (a name, a uid, a timestamp) costs one slot write. Strings
 * are immutable, so sharing them changes nothing a reader can see. Thread-safe.
 */
public final class StringTable {
    /** Longer values are rarely repeated and cost more to compare. */
    public static final int MAX_LENGTH = 64;

    private final AtomicReferenceArray<String> slots;

    /** @param slots the table's size, a power of two */
    public StringTable(int slots) {
        if (slots <= 0 || Integer.bitCount(slots) != 1) {
            throw new IllegalArgumentException("slots must be a power of two, not " + slots);
        }
        this.slots = new AtomicReferenceArray<>(slots);
    }

    /** The table's instance equal to {@code value} (which becomes it when the slot held another); null stays null. */
    public String canonical(String value) {
        if (value == null || value.length() > MAX_LENGTH) {
            return value;
        }
        int slot = slot(value.hashCode());
        String known = slots.get(slot);
        if (value.equals(known)) {
            return known;
        }
        slots.set(slot, value);
        return value;
    }

    /** The table's instance with these characters, made from them when the slot held another; at most {@link #MAX_LENGTH}. */
    public String canonical(char[] text, int offset, int length) {
        if (length > MAX_LENGTH) {
            throw new IllegalArgumentException("longer than " + MAX_LENGTH + " characters: " + length);
        }
        int slot = slot(hash(text, offset, length));
        String known = slots.get(slot);
        if (known != null && sameCharacters(known, text, offset, length)) {
            return known;
        }
        String value = new String(text, offset, length);
        slots.set(slot, value);
        return value;
    }

    /**
     * {@link String#hashCode()} of the characters, four at a time: the plain loop waits on one multiplication per
     * character, this one on one per four.
     */
    static int hash(char[] text, int offset, int length) {
        int hash = 0;
        int i = offset;
        int end = offset + length;
        for (; i + 3 < end; i += 4) {
            hash = 923_521 * hash + 29_791 * text[i] + 961 * text[i + 1] + 31 * text[i + 2] + text[i + 3];
        }
        for (; i < end; i++) {
            hash = 31 * hash + text[i];
        }
        return hash;
    }

    /** The hash is String's, so that both lookups of a value find the same slot. */
    private int slot(int hash) {
        return (hash ^ (hash >>> 13)) & (slots.length() - 1);
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
}
