package net.fips.dataplane.tor;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * A one-connection fake SOCKS5 proxy on loopback that plays a script: expect exact client bytes, send canned
 * bytes, then echo, hold the connection silently or close. A client byte that differs from the script is recorded
 * (and the script stops), so tests assert the bytes on the wire exactly.
 */
final class ScriptedSocks5Server implements AutoCloseable {
    private static final HexFormat HEX = HexFormat.of();

    private sealed interface Step permits Expect, Send, Echo, Hold, Close {
    }

    private record Expect(byte[] bytes) implements Step {
    }

    private record Send(byte[] bytes) implements Step {
    }

    private record Echo() implements Step {
    }

    private record Hold() implements Step {
    }

    private record Close() implements Step {
    }

    private final List<Step> steps = new ArrayList<>();
    private final ServerSocket server;
    private final CompletableFuture<String> result = new CompletableFuture<>();
    private volatile Socket conn;

    ScriptedSocks5Server() throws IOException {
        server = new ServerSocket(0, 1, InetAddress.getLoopbackAddress());
    }

    ScriptedSocks5Server expect(final String hex) {
        steps.add(new Expect(HEX.parseHex(hex.replace(" ", ""))));
        return this;
    }

    ScriptedSocks5Server expect(final byte[] bytes) {
        steps.add(new Expect(bytes.clone()));
        return this;
    }

    ScriptedSocks5Server send(final String hex) {
        steps.add(new Send(HEX.parseHex(hex.replace(" ", ""))));
        return this;
    }

    ScriptedSocks5Server send(final byte[] bytes) {
        steps.add(new Send(bytes.clone()));
        return this;
    }

    ScriptedSocks5Server echo() {
        steps.add(new Echo());
        return this;
    }

    ScriptedSocks5Server hold() {
        steps.add(new Hold());
        return this;
    }

    ScriptedSocks5Server hangUp() {
        steps.add(new Close());
        return this;
    }

    InetSocketAddress address() {
        return (InetSocketAddress) server.getLocalSocketAddress();
    }

    ScriptedSocks5Server start() {
        Thread.ofVirtual().name("fake-socks5").start(this::run);
        return this;
    }

    /** @return "ok", or what went wrong (the first mismatching client bytes), once the script has ended */
    String outcome() throws Exception {
        return result.get(10, TimeUnit.SECONDS);
    }

    private void run() {
        try (Socket s = server.accept()) {
            conn = s;
            final InputStream in = s.getInputStream();
            final OutputStream out = s.getOutputStream();
            for (final Step step : steps) {
                switch (step) {
                    case Expect e -> {
                        final byte[] got = in.readNBytes(e.bytes().length);
                        if (!Arrays.equals(got, e.bytes())) {
                            result.complete("expected " + HEX.formatHex(e.bytes()) + " got " + HEX.formatHex(got));
                            return;
                        }
                    }
                    case Send d -> {
                        out.write(d.bytes());
                        out.flush();
                    }
                    case Echo e -> {
                        final byte[] buf = new byte[4096];
                        int n;
                        while ((n = in.read(buf)) > 0) {
                            out.write(buf, 0, n);
                            out.flush();
                        }
                    }
                    case Hold h -> {
                        // Never answer: read until the client gives up and closes.
                        final ByteArrayOutputStream sink = new ByteArrayOutputStream();
                        in.transferTo(sink);
                    }
                    case Close c -> {
                        result.complete("ok");
                        return;
                    }
                }
            }
            result.complete("ok");
        } catch (final IOException e) {
            result.complete("ok".equals(result.getNow(null)) ? "ok" : "io: " + e);
        }
    }

    @Override
    public void close() throws IOException {
        server.close();
        final Socket c = conn;
        if (c != null) {
            c.close();
        }
    }
}
