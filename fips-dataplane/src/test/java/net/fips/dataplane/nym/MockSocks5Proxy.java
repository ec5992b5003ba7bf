package net.fips.dataplane.nym;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * A no-authentication SOCKS5 proxy on loopback standing in for {@code nym-socks5-client} (as the reference's Nym
 * tests do): it accepts any number of connections, records each client's greeting and CONNECT request (hex), and
 * then, by {@link Mode}, relays to the requested IPv4 address (a domain name goes to {@link #domainTarget}),
 * answers a CONNECT failure code, or never answers. {@link #killConnections()} closes every connection it holds
 * (the proxy dying mid-stream); {@link #close()} also stops listening.
 */
final class MockSocks5Proxy implements AutoCloseable {
    private static final HexFormat HEX = HexFormat.of();

    /** What the proxy does with a CONNECT. */
    enum Mode {
        /** Connect to the destination and relay both ways. */
        RELAY,
        /** Answer with {@link #replyCode}. */
        REFUSE,
        /** Read the request and never answer. */
        SILENT
    }

    final List<String> greetings = new CopyOnWriteArrayList<>();
    final List<String> requests = new CopyOnWriteArrayList<>();
    private final List<Socket> open = new CopyOnWriteArrayList<>();
    private final ServerSocket server;
    volatile Mode mode = Mode.RELAY;
    volatile int replyCode = 5;
    volatile InetSocketAddress domainTarget;

    MockSocks5Proxy() throws IOException {
        this(0);
    }

    MockSocks5Proxy(final int port) throws IOException {
        server = new ServerSocket(port, 16, InetAddress.getLoopbackAddress());
        Thread.ofVirtual().name("mock-socks5-accept").start(this::acceptLoop);
    }

    /** @return {@code 127.0.0.1:port}, the {@code socks5_addr} */
    String address() {
        return "127.0.0.1:" + server.getLocalPort();
    }

    int port() {
        return server.getLocalPort();
    }

    private void acceptLoop() {
        while (!server.isClosed()) {
            try {
                final Socket s = server.accept();
                open.add(s);
                Thread.ofVirtual().name("mock-socks5-conn").start(() -> serve(s));
            } catch (final IOException e) {
                return;
            }
        }
    }

    private void serve(final Socket client) {
        try (client) {
            final InputStream in = client.getInputStream();
            final OutputStream out = client.getOutputStream();
            final int ver = in.read();
            if (ver < 0) {
                return; // a readiness probe: connect and close
            }
            final int n = in.read();
            final byte[] methods = in.readNBytes(Math.max(n, 0));
            greetings.add(HEX.formatHex(new byte[] {(byte) ver, (byte) n}) + HEX.formatHex(methods));
            out.write(new byte[] {5, 0});
            out.flush();
            final byte[] head = in.readNBytes(4);
            if (head.length < 4) {
                return;
            }
            final byte[] addr;
            final InetSocketAddress target;
            if (head[3] == 1) {
                addr = in.readNBytes(4);
                final byte[] port = in.readNBytes(2);
                target = new InetSocketAddress(InetAddress.getByAddress(addr), port(port));
                requests.add(HEX.formatHex(head) + HEX.formatHex(addr) + HEX.formatHex(port));
            } else if (head[3] == 3) {
                final int len = in.read();
                addr = in.readNBytes(len);
                final byte[] port = in.readNBytes(2);
                requests.add(HEX.formatHex(head) + String.format("%02x", len) + HEX.formatHex(addr)
                        + HEX.formatHex(port) + " (" + new String(addr, StandardCharsets.US_ASCII) + ")");
                target = domainTarget;
            } else {
                requests.add(HEX.formatHex(head));
                return;
            }
            switch (mode) {
                case SILENT -> in.transferTo(OutputStream.nullOutputStream());
                case REFUSE -> {
                    out.write(new byte[] {5, (byte) replyCode, 0, 1, 0, 0, 0, 0, 0, 0});
                    out.flush();
                }
                case RELAY -> relay(client, in, out, target);
            }
        } catch (final IOException e) {
            // the client or the test went away
        }
    }

    private void relay(final Socket client, final InputStream in, final OutputStream out,
                       final InetSocketAddress target) throws IOException {
        final Socket up = new Socket();
        try (up) {
            try {
                up.connect(target, 2000);
            } catch (final IOException e) {
                out.write(new byte[] {5, 5, 0, 1, 0, 0, 0, 0, 0, 0});
                out.flush();
                return;
            }
            open.add(up);
            out.write(new byte[] {5, 0, 0, 1, 127, 0, 0, 1, 0x04, 0x38});
            out.flush();
            final Thread back = Thread.ofVirtual().start(() -> {
                try {
                    up.getInputStream().transferTo(out);
                } catch (final IOException e) {
                    // closed
                }
                close(client);
            });
            try {
                in.transferTo(up.getOutputStream());
            } catch (final IOException e) {
                // closed
            }
            close(up);
            try {
                back.join();
            } catch (final InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    private static int port(final byte[] p) {
        return (p[0] & 0xFF) << 8 | (p[1] & 0xFF);
    }

    private static void close(final Socket s) {
        try {
            s.close();
        } catch (final IOException e) {
            // already closed
        }
    }

    /** Closes every client and upstream connection, as a proxy process that dies would; keeps listening. */
    void killConnections() {
        for (final Socket s : open) {
            close(s);
        }
        open.clear();
    }

    @Override
    public void close() throws IOException {
        server.close();
        killConnections();
    }
}
