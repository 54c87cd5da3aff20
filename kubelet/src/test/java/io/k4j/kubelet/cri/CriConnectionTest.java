package io.k4j.kubelet.cri;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.grpc.Server;
import io.grpc.Status;
import io.grpc.netty.NettyServerBuilder;
import io.grpc.stub.StreamObserver;
import io.k4j.kubelet.cri.v1.ContainerStatusRequest;
import io.k4j.kubelet.cri.v1.ContainerStatusResponse;
import io.k4j.kubelet.cri.v1.ImageServiceGrpc;
import io.k4j.kubelet.cri.v1.ImageSpec;
import io.k4j.kubelet.cri.v1.ImageStatusRequest;
import io.k4j.kubelet.cri.v1.ImageStatusResponse;
import io.k4j.kubelet.cri.v1.RuntimeServiceGrpc;
import io.k4j.kubelet.cri.v1.StopContainerRequest;
import io.k4j.kubelet.cri.v1.StopContainerResponse;
import io.k4j.kubelet.cri.v1.VersionRequest;
import io.k4j.kubelet.cri.v1.VersionResponse;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.epoll.EpollIoHandler;
import io.netty.channel.epoll.EpollServerDomainSocketChannel;
import io.netty.channel.unix.DomainSocketAddress;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/** The gRPC client over a real unix socket, against an in-test CRI server. */
class CriConnectionTest {
    @TempDir
    Path directory;

    private final CountDownLatch releaseStop = new CountDownLatch(1);
    private volatile String lastVersionAsked;
    private EventLoopGroup serverGroup;
    private Server server;
    private Path socket;
    private CriConnection connection;

    @BeforeEach
    void startServer() throws Exception {
        socket = directory.resolve("cri.sock");
        serverGroup = new MultiThreadIoEventLoopGroup(1, EpollIoHandler.newFactory());
        server = NettyServerBuilder.forAddress(new DomainSocketAddress(socket.toString()))
                .channelType(EpollServerDomainSocketChannel.class)
                .bossEventLoopGroup(serverGroup)
                .workerEventLoopGroup(serverGroup)
                .addService(new TestRuntime())
                .addService(new TestImages())
                .build()
                .start();
        // A deadline generous enough for a first call on a busy machine; everyCallHasADeadline uses a short one.
        connection = CriConnection.open("unix://" + socket, new CriTimeouts(Duration.ofSeconds(30),
                Duration.ofSeconds(30)));
    }

    @AfterEach
    void stopServer() throws Exception {
        releaseStop.countDown();
        connection.close();
        server.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
        serverGroup.shutdownGracefully(0, 1, TimeUnit.SECONDS).sync();
    }

    @Test
    void callsTheRuntimeOverTheSocket() {
        VersionResponse version = connection.runtimeService().version(RuntimeService.API_VERSION);

        assertThat(version.getRuntimeName()).isEqualTo("containerd");
        assertThat(version.getRuntimeVersion()).isEqualTo("1.6.20");
        assertThat(lastVersionAsked).isEqualTo("v1");
    }

    @Test
    void runtimeErrorsReadAsUpstreamPrintsThem() {
        assertThatThrownBy(() -> connection.runtimeService().containerStatus("abc", false))
                .isInstanceOfSatisfying(CriException.class, error -> {
                    assertThat(error.code()).isEqualTo(CriException.Code.NOT_FOUND);
                    assertThat(error.isNotFound()).isTrue();
                    assertThat(error.description()).isEqualTo("an error occurred when try to find container \"abc\"");
                })
                .hasMessage("rpc error: code = NotFound desc = an error occurred when try to find container \"abc\"");
    }

    @Test
    void everyCallHasADeadline() {
        // StopContainer with a 0 s grace period gets only the request deadline (500 ms); the server never answers.
        try (CriConnection shortDeadline = CriConnection.open("unix://" + socket, new CriTimeouts(Duration.ofMillis(500),
                Duration.ofSeconds(5)))) {
            assertThatThrownBy(() -> shortDeadline.runtimeService().stopContainer("abc", 0))
                    .isInstanceOfSatisfying(CriException.class,
                            error -> assertThat(error.code()).isEqualTo(CriException.Code.DEADLINE_EXCEEDED))
                    .hasMessageStartingWith("rpc error: code = DeadlineExceeded desc = ");
        }
    }

    @Test
    void anAbsentImageIsEmpty() {
        assertThat(connection.imageService().imageStatus(ImageSpec.newBuilder().setImage("absent").build())).isEmpty();
        assertThat(connection.imageService().imageStatus(ImageSpec.newBuilder().setImage("busybox").build()))
                .hasValueSatisfying(image -> assertThat(image.getId()).isEqualTo("sha256:1234"));
    }

    @Test
    void anUnreachableRuntimeIsUnavailable() {
        try (CriConnection nowhere = CriConnection.open(directory.resolve("absent.sock"), CriTimeouts.DEFAULT)) {
            assertThatThrownBy(() -> nowhere.runtimeService().version(RuntimeService.API_VERSION))
                    .isInstanceOfSatisfying(CriException.class,
                            error -> assertThat(error.code()).isEqualTo(CriException.Code.UNAVAILABLE));
        }
    }

    @Test
    void endpointsAreUnixSockets() {
        assertThat(CriConnection.socketPath("unix:///run/containerd/containerd.sock"))
                .isEqualTo(Path.of("/run/containerd/containerd.sock"));
        assertThat(CriConnection.socketPath("/run/k4j/containerd.sock")).isEqualTo(Path.of("/run/k4j/containerd.sock"));
        assertThatThrownBy(() -> CriConnection.socketPath("tcp://127.0.0.1:1234"))
                .isInstanceOf(IllegalArgumentException.class);
    }

    private final class TestRuntime extends RuntimeServiceGrpc.RuntimeServiceImplBase {
        @Override
        public void version(VersionRequest request, StreamObserver<VersionResponse> responseObserver) {
            lastVersionAsked = request.getVersion();
            responseObserver.onNext(VersionResponse.newBuilder()
                    .setVersion("0.1.0")
                    .setRuntimeName("containerd")
                    .setRuntimeVersion("1.6.20")
                    .setRuntimeApiVersion("v1")
                    .build());
            responseObserver.onCompleted();
        }

        @Override
        public void containerStatus(ContainerStatusRequest request,
                StreamObserver<ContainerStatusResponse> responseObserver) {
            responseObserver.onError(Status.NOT_FOUND
                    .withDescription("an error occurred when try to find container \"" + request.getContainerId() + "\"")
                    .asRuntimeException());
        }

        @Override
        public void stopContainer(StopContainerRequest request, StreamObserver<StopContainerResponse> responseObserver) {
            // Never answers before the test ends: the client's deadline must end the call.
            try {
                releaseStop.await(10, TimeUnit.SECONDS);
            }
            catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            responseObserver.onError(Status.CANCELLED.asRuntimeException());
        }
    }

    private static final class TestImages extends ImageServiceGrpc.ImageServiceImplBase {
        @Override
        public void imageStatus(ImageStatusRequest request, StreamObserver<ImageStatusResponse> responseObserver) {
            ImageStatusResponse.Builder response = ImageStatusResponse.newBuilder();
            if (request.getImage().getImage().equals("busybox")) {
                response.setImage(io.k4j.kubelet.cri.v1.Image.newBuilder().setId("sha256:1234"));
            }
            responseObserver.onNext(response.build());
            responseObserver.onCompleted();
        }
    }
}
