package io.k4j.kubelet.cri;

import static io.k4j.kubelet.cri.GrpcCalls.call;
import static io.k4j.kubelet.cri.GrpcCalls.run;
import static java.util.Objects.requireNonNull;

import io.grpc.Channel;
import io.k4j.kubelet.cri.v1.AuthConfig;
import io.k4j.kubelet.cri.v1.Image;
import io.k4j.kubelet.cri.v1.ImageFilter;
import io.k4j.kubelet.cri.v1.ImageFsInfoRequest;
import io.k4j.kubelet.cri.v1.ImageFsInfoResponse;
import io.k4j.kubelet.cri.v1.ImageServiceGrpc;
import io.k4j.kubelet.cri.v1.ImageSpec;
import io.k4j.kubelet.cri.v1.ImageStatusRequest;
import io.k4j.kubelet.cri.v1.ImageStatusResponse;
import io.k4j.kubelet.cri.v1.ListImagesRequest;
import io.k4j.kubelet.cri.v1.PodSandboxConfig;
import io.k4j.kubelet.cri.v1.PullImageRequest;
import io.k4j.kubelet.cri.v1.RemoveImageRequest;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/** {@link ImageService} over a gRPC channel; every call carries a deadline. Thread-safe. */
final class RemoteImageService implements ImageService {
    private final ImageServiceGrpc.ImageServiceBlockingStub stub;
    private final CriTimeouts timeouts;

    RemoteImageService(Channel channel, CriTimeouts timeouts) {
        this.stub = ImageServiceGrpc.newBlockingStub(requireNonNull(channel, "channel is null"));
        this.timeouts = requireNonNull(timeouts, "timeouts is null");
    }

    private ImageServiceGrpc.ImageServiceBlockingStub stub(Duration deadline) {
        return stub.withDeadlineAfter(deadline.toMillis(), TimeUnit.MILLISECONDS);
    }

    @Override
    public List<Image> listImages(ImageFilter filter) {
        return call(() -> stub(timeouts.request()).listImages(ListImagesRequest.newBuilder().setFilter(filter).build()))
                .getImagesList();
    }

    @Override
    public Optional<Image> imageStatus(ImageSpec image) {
        ImageStatusResponse response = call(() -> stub(timeouts.request())
                .imageStatus(ImageStatusRequest.newBuilder().setImage(image).build()));
        return response.hasImage() ? Optional.of(response.getImage()) : Optional.empty();
    }

    @Override
    public String pullImage(ImageSpec image, AuthConfig auth, PodSandboxConfig sandboxConfig) {
        PullImageRequest request = PullImageRequest.newBuilder()
                .setImage(image)
                .setAuth(auth)
                .setSandboxConfig(sandboxConfig)
                .build();
        return call(() -> stub(timeouts.imagePull()).pullImage(request)).getImageRef();
    }

    @Override
    public void removeImage(ImageSpec image) {
        run(() -> stub(timeouts.request()).removeImage(RemoveImageRequest.newBuilder().setImage(image).build()));
    }

    @Override
    public ImageFsInfoResponse imageFsInfo() {
        return call(() -> stub(timeouts.request()).imageFsInfo(ImageFsInfoRequest.getDefaultInstance()));
    }
}
