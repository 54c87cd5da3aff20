package io.k4j.kubelet.volume;

/** Why one volume could not be set up, in upstream's words; the manager adds the volume's name. */
final class SetUpFailure extends Exception {
    SetUpFailure(String message) {
        super(message, null, false, false);
    }

    SetUpFailure(String message, Throwable cause) {
        super(message, cause, false, false);
    }
}
