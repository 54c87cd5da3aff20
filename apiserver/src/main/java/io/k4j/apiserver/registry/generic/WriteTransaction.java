package io.k4j.apiserver.registry.generic;

/**
 * What a {@link WriteHooks} begin call reserved: committed once the write is stored, reverted when it is not.
 * At most one of the two is called, at most once.
 */
public interface WriteTransaction {
    /** Nothing reserved. */
    WriteTransaction NONE = new WriteTransaction() {
        @Override
        public void commit() {}

        @Override
        public void revert() {}
    };

    /** The write is stored: make the reservation final and release what the write gave up. */
    void commit();

    /** The write was not stored: release what was reserved for it. */
    void revert();
}
