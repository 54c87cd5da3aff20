package io.k4j.storage.etcd;

import java.util.List;
import java.util.concurrent.AbstractExecutorService;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;

import io.grpc.CallOptions;
import io.grpc.Channel;
import io.grpc.ClientCall;
import io.grpc.ClientInterceptor;
import io.grpc.MethodDescriptor;

/**
 * Keeps jetcd's requests and replies on the threads that already carry them. By default jetcd hands every request
 * to a thread of its own pool before gRPC sends it, and gRPC hands every reply and watch message from its network
 * thread to another pool before jetcd sees it. On two cores those hand-offs cost more than the requests: with them
 * the server made 7.5 context switches per pod created on etcd (2 without), and a bare client of this store spent
 * 0.21–0.24 ms of CPU per create (0.09–0.12 ms without; see docs/benchmarks.md, session 28).
 *
 * <p>Running them in place is safe because nothing on these paths blocks: the store's callers wait on the request's
 * future from their own threads, and {@link EtcdWatch} only queues what it receives.
 */
final class CallerRunsCallbacks {
    private CallerRunsCallbacks() {}

    /** jetcd's executor: a request starts on the thread that makes it; a retry on jetcd's timer thread. */
    static ExecutorService requestExecutor() {
        return new CallerRuns();
    }

    /** Replies and watch messages are delivered on gRPC's network thread that read them. */
    static ClientInterceptor repliesOnNetworkThread() {
        return new ClientInterceptor() {
            @Override
            public <Q, R> ClientCall<Q, R> interceptCall(MethodDescriptor<Q, R> method, CallOptions options, Channel next) {
                return next.newCall(method, options.withExecutor(Runnable::run));
            }
        };
    }

    /** Runs each task at once on the submitting thread; shutting it down only stops new tasks. */
    private static final class CallerRuns extends AbstractExecutorService {
        private volatile boolean shutdown;

        @Override
        public void execute(Runnable task) {
            if (shutdown) {
                throw new RejectedExecutionException("the etcd client is closed");
            }
            task.run();
        }

        @Override
        public void shutdown() {
            shutdown = true;
        }

        @Override
        public List<Runnable> shutdownNow() {
            shutdown = true;
            return List.of();
        }

        @Override
        public boolean isShutdown() {
            return shutdown;
        }

        @Override
        public boolean isTerminated() {
            return shutdown;
        }

        @Override
        public boolean awaitTermination(long timeout, TimeUnit unit) {
            return shutdown;
        }
    }
}
