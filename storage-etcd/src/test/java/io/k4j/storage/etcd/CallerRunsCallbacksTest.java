package io.k4j.storage.etcd;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayInputStream;
import java.io.InputStream;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import org.junit.jupiter.api.Test;

import io.grpc.CallOptions;
import io.grpc.Channel;
import io.grpc.ClientCall;
import io.grpc.MethodDescriptor;

class CallerRunsCallbacksTest {
    @Test
    void requestsRunOnTheSubmittingThreadUntilShutDown() throws Exception {
        ExecutorService executor = CallerRunsCallbacks.requestExecutor();
        Thread caller = Thread.currentThread();
        AtomicReference<Thread> ranOn = new AtomicReference<>();

        Future<String> result = executor.submit(() -> {
            ranOn.set(Thread.currentThread());
            return "sent";
        });

        assertThat(result).isDone();
        assertThat(result.get()).isEqualTo("sent");
        assertThat(ranOn.get()).isSameAs(caller);

        executor.shutdown();
        assertThat(executor.isShutdown()).isTrue();
        assertThat(executor.awaitTermination(1, TimeUnit.MILLISECONDS)).isTrue();
        assertThatThrownBy(() -> executor.execute(() -> ranOn.set(null)))
                .isInstanceOf(RejectedExecutionException.class)
                .hasMessageContaining("closed");
        assertThat(ranOn.get()).isSameAs(caller);
    }

    @Test
    void repliesAreDeliveredOnTheThreadThatReadThem() {
        AtomicReference<CallOptions> sent = new AtomicReference<>();
        Channel network = new Channel() {
            @Override
            public <Q, R> ClientCall<Q, R> newCall(MethodDescriptor<Q, R> method, CallOptions options) {
                sent.set(options);
                return null;
            }

            @Override
            public String authority() {
                return "etcd";
            }
        };
        CallOptions original = CallOptions.DEFAULT.withWaitForReady();

        CallerRunsCallbacks.repliesOnNetworkThread().interceptCall(unaryMethod(), original, network);

        assertThat(sent.get().isWaitForReady()).as("the caller's other options are kept").isTrue();
        Thread networkThread = Thread.currentThread();
        AtomicReference<Thread> ranOn = new AtomicReference<>();
        sent.get().getExecutor().execute(() -> ranOn.set(Thread.currentThread()));
        assertThat(ranOn.get()).isSameAs(networkThread);
    }

    private static MethodDescriptor<String, String> unaryMethod() {
        MethodDescriptor.Marshaller<String> text = new MethodDescriptor.Marshaller<>() {
            @Override
            public InputStream stream(String value) {
                return new ByteArrayInputStream(value.getBytes(UTF_8));
            }

            @Override
            public String parse(InputStream stream) {
                return "";
            }
        };
        return MethodDescriptor.<String, String>newBuilder()
                .setType(MethodDescriptor.MethodType.UNARY)
                .setFullMethodName("etcdserverpb.KV/Txn")
                .setRequestMarshaller(text)
                .setResponseMarshaller(text)
                .build();
    }
}
