package io.k4j.kubelet.prober;

/** A probe could not be run at all (not a failed check): upstream records "… probe errored" and ignores the attempt. */
final class ProbeException extends Exception {
    ProbeException(String message, Throwable cause) {
        super(message, cause);
    }
}
