package io.k4j.bench;

import static java.util.Objects.requireNonNull;

import java.net.InetSocketAddress;
import java.net.URI;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import javax.net.ssl.SSLContext;
import org.eclipse.jetty.http.HttpFields;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.http.HttpURI;
import org.eclipse.jetty.http.HttpVersion;
import org.eclipse.jetty.http.MetaData;
import org.eclipse.jetty.http2.ErrorCode;
import org.eclipse.jetty.http2.api.Session;
import org.eclipse.jetty.http2.api.Stream;
import org.eclipse.jetty.http2.client.HTTP2Client;
import org.eclipse.jetty.http2.frames.HeadersFrame;
import org.eclipse.jetty.http2.frames.ResetFrame;
import org.eclipse.jetty.io.ClientConnector;
import org.eclipse.jetty.util.Callback;
import org.eclipse.jetty.util.ssl.SslContextFactory;

/**
 * Watch streams over Jetty's low-level HTTP/2 client: frames go straight from the connection's reader to the line
 * splitter, with no request/response objects, publishers or thread hand-offs between them. A thousand watches then
 * cost the bench a small fraction of the CPU the JDK client takes, so the fan-out measures the server's delivery.
 */
final class Http2WatchStreams implements WatchStreams {
    private final URI server;
    private final HTTP2Client client;
    private final List<Session> sessions = new ArrayList<>();
    private final List<Stream> streams = new CopyOnWriteArrayList<>();
    private int opened;

    /** Opens {@code connections} HTTP/2 connections to {@code server}, authenticated by {@code tls}'s key managers. */
    Http2WatchStreams(URI server, SSLContext tls, int connections) {
        this.server = requireNonNull(server, "server is null");
        SslContextFactory.Client tlsFactory = new SslContextFactory.Client();
        tlsFactory.setSslContext(tls);
        ClientConnector connector = new ClientConnector();
        connector.setSslContextFactory(tlsFactory);
        connector.setSelectors(1);
        client = new HTTP2Client(connector);
        try {
            client.start();
            for (int i = 0; i < connections; i++) {
                sessions.add(client.connect(tlsFactory, new InetSocketAddress(server.getHost(), server.getPort()), new Session.Listener() {})
                        .get(30, TimeUnit.SECONDS));
            }
        } catch (Exception e) {
            close();
            throw new IllegalStateException("could not connect Jetty's HTTP/2 client to " + server + ": " + e.getMessage(), e);
        }
    }

    @Override
    public String description() {
        return "Jetty's low-level HTTP/2 client";
    }

    @Override
    public void open(String path, Consumer<String> onLine) {
        Session session = sessions.get(opened++ % sessions.size());
        HttpFields fields = HttpFields.build().put(HttpHeader.ACCEPT, "application/json");
        MetaData.Request request = new MetaData.Request("GET", HttpURI.from(server.resolve(path).toString()), HttpVersion.HTTP_2, fields);
        LineSplitter lines = new LineSplitter(onLine);
        try {
            streams.add(session.newStream(new HeadersFrame(request, null, true), new Stream.Listener() {
                @Override
                public void onHeaders(Stream stream, HeadersFrame frame) {
                    stream.demand();
                }

                @Override
                public void onDataAvailable(Stream stream) {
                    while (true) {
                        Stream.Data data = stream.readData();
                        if (data == null) {
                            stream.demand();
                            return;
                        }
                        lines.accept(data.frame().getByteBuffer());
                        data.release();
                        if (data.frame().isEndStream()) {
                            return;
                        }
                    }
                }
            }).get(30, TimeUnit.SECONDS));
        } catch (Exception e) {
            throw new IllegalStateException("could not open " + path + ": " + e.getMessage(), e);
        }
    }

    @Override
    public void close() {
        streams.forEach(stream -> stream.reset(new ResetFrame(stream.getId(), ErrorCode.CANCEL_STREAM_ERROR.code), Callback.NOOP));
        streams.clear();
        try {
            client.stop();
        } catch (Exception e) {
            throw new IllegalStateException("stopping Jetty's HTTP/2 client: " + e.getMessage(), e);
        }
    }
}
