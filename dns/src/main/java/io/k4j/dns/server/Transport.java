package io.k4j.dns.server;

/** How a query arrived, which decides how large its answer may be. */
public enum Transport {
    /** One datagram: at most 512 bytes, or the client's EDNS0 payload size; larger answers are truncated (TC). */
    UDP,
    /** Length-prefixed messages on a connection: up to 65535 bytes. */
    TCP
}
