package io.k4j.kubelet.cri;

import io.grpc.Status;
import io.grpc.StatusRuntimeException;

import java.util.function.Supplier;

/** Translates gRPC failures into {@link CriException}. Stateless. */
final class GrpcCalls {
    private GrpcCalls() {}

    static <T> T call(Supplier<T> call) {
        try {
            return call.get();
        }
        catch (StatusRuntimeException e) {
            throw translate(e.getStatus(), e);
        }
    }

    static void run(Runnable call) {
        call(() -> {
            call.run();
            return null;
        });
    }

    static CriException translate(Status status, Throwable cause) {
        CriException.Code code = CriException.Code.valueOf(status.getCode().name());
        String description = status.getDescription();
        if (description == null) {
            description = status.getCause() != null ? String.valueOf(status.getCause().getMessage()) : "";
        }
        return new CriException(code, description, cause);
    }
}
