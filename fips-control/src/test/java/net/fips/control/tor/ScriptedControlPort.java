package net.fips.control.tor;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.Arrays;

/**
 * A one-connection fake Tor control port on loopback that plays a script: expect the exact client bytes, send
 * canned reply text, hold silently or hang up. A client byte that differs from the script is recorded and ends
 * the script, so tests assert the commands on the wire byte for byte.
 */
final class ScriptedControlPort implements AutoCloseable {
    private record Step(char kind, String text) {
    }

    private final List<Step> steps = new ArrayList<>();
    private final ServerSocket server;
    private final CompletableFuture<String> result = new CompletableFuture<>();
    private volatile Socket conn;

    ScriptedControlPort() throws IOException {
        server = new ServerSocket(0, 1, InetAddress.getLoopbackAddress());
    }

    ScriptedControlPort expect(final String text) {
        steps.add(new Step('e', text));
        return this;
    }

    ScriptedControlPort send(final String text) {
        steps.add(new Step('s', text));
        return this;
    }

    /** Expects {@code GETINFO key} and answers with the given reply text. */
    ScriptedControlPort getinfo(final String key, final String reply) {
        return expect("GETINFO " + key + "\r\n").send(reply);
    }

    ScriptedControlPort hold() {
        steps.add(new Step('h', ""));
        return this;
    }

    ScriptedControlPort hangUp() {
        steps.add(new Step('c', ""));
        return this;
    }

    String address() {
        final InetSocketAddress a = (InetSocketAddress) server.getLocalSocketAddress();
        return a.getAddress().getHostAddress() + ":" + a.getPort();
    }

    ScriptedControlPort start() {
        Thread.ofVirtual().name("fake-tor-control").start(this::run);
        return this;
    }

    String outcome() throws Exception {
        return result.get(10, TimeUnit.SECONDS);
    }

    private void run() {
        try (Socket s = server.accept()) {
            conn = s;
            final InputStream in = s.getInputStream();
            final OutputStream out = s.getOutputStream();
            for (final Step step : steps) {
                switch (step.kind()) {
                    case 'e' -> {
                        final byte[] want = step.text().getBytes(StandardCharsets.UTF_8);
                        final byte[] got = in.readNBytes(want.length);
                        if (!Arrays.equals(want, got)) {
                            result.complete("expected " + step.text().replace("\r\n", "\\r\\n") + " got "
                                    + new String(got, StandardCharsets.UTF_8).replace("\r\n", "\\r\\n"));
                            return;
                        }
                    }
                    case 's' -> {
                        out.write(step.text().getBytes(StandardCharsets.UTF_8));
                        out.flush();
                    }
                    case 'h' -> in.transferTo(OutputStream.nullOutputStream());
                    default -> {
                        result.complete("ok");
                        return;
                    }
                }
            }
            result.complete("ok");
        } catch (final IOException e) {
            result.complete("io: " + e);
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
