package io.k4j.api.protobuf;

/**
 * A protobuf body that cannot be decoded; the message is what upstream's protobuf serializer says. Package-private:
 * {@link KubernetesProtobuf} turns it into a 400 {@code StatusException}.
 */
final class MalformedProtobufException extends RuntimeException {
    MalformedProtobufException(String message) {
        super(message, null, false, false);
    }
}
