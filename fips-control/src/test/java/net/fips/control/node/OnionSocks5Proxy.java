package net.fips.control.node;

import java.io.DataInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * A SOCKS5 proxy on loopback standing in for Tor's SocksPort where an onion name must be reached: no
 * authentication; a CONNECT by domain name (ATYP 03) to a name it was given is relayed to that name's local
 * listener (where Tor's HiddenServicePort would forward), anything else is answered with reply 04 (host
 * unreachable, what Tor answers for an unknown onion). Each CONNECT target is recorded as {@code name:port}.
 */
final class OnionSocks5Proxy implements AutoCloseable {
    private final ServerSocket server;
    private final Map<String, InetSocketAddress> onions;
    private final List<String> connects = new CopyOnWriteArrayList<>();
    private final List<Socket> open = new CopyOnWriteArrayList<>();

    /**
     * @param onions {@code name:port} as dialled, to the local listener it reaches
     * @throws IOException when it cannot listen
     */
    OnionSocks5Proxy(final Map<String, InetSocketAddress> onions) throws IOException {
        this.onions = Map.copyOf(onions);
        this.server = new ServerSocket(0, 16, InetAddress.getLoopbackAddress());
        Thread.ofPlatform().daemon().name("test-onion-socks").start(this::acceptLoop);
    }

    /** @return the {@code socks5_addr} */
    String address() {
        return "127.0.0.1:" + server.getLocalPort();
    }

    /** @return every CONNECT target so far, {@code name:port} */
    List<String> connects() {
        return List.copyOf(connects);
    }

    private void acceptLoop() {
        while (!server.isClosed()) {
            try {
                final Socket s = server.accept();
                open.add(s);
                Thread.ofPlatform().daemon().name("test-onion-socks-conn").start(() -> serve(s));
            } catch (final IOException e) {
                return;
            }
        }
    }

    private void serve(final Socket client) {
        try {
            final DataInputStream in = new DataInputStream(client.getInputStream());
            final OutputStream out = client.getOutputStream();
            if (in.readUnsignedByte() != 5) {
                client.close();
                return;
            }
            in.readNBytes(in.readUnsignedByte());   // offered methods
            out.write(new byte[] {5, 0});
            final byte[] head = in.readNBytes(4);   // 05 01 00 ATYP
            final String target;
            if (head.length == 4 && head[3] == 3) {
                final String name = new String(in.readNBytes(in.readUnsignedByte()), StandardCharsets.US_ASCII);
                target = name + ":" + in.readUnsignedShort();
            } else {
                client.close();
                return;
            }
            connects.add(target);
            final InetSocketAddress to = onions.get(target);
            if (to == null) {
                out.write(new byte[] {5, 4, 0, 1, 0, 0, 0, 0, 0, 0});
                client.close();
                return;
            }
            final Socket upstream = new Socket();
            upstream.connect(to, 5_000);
            open.add(upstream);
            out.write(new byte[] {5, 0, 0, 1, 127, 0, 0, 1, 0, 0});
            out.flush();
            Thread.ofPlatform().daemon().name("test-onion-socks-up").start(() -> pipe(in, upstream, client));
            pipe(upstream.getInputStream(), client, upstream);
        } catch (final IOException e) {
            try {
                client.close();
            } catch (final IOException ignored) {
                // closing anyway
            }
        }
    }

    private static void pipe(final InputStream from, final Socket to, final Socket source) {
        try {
            from.transferTo(to.getOutputStream());
        } catch (final IOException e) {
            // one side closed
        } finally {
            try {
                to.close();
                source.close();
            } catch (final IOException ignored) {
                // both are going anyway
            }
        }
    }

    @Override
    public void close() throws IOException {
        server.close();
        for (final Socket s : open) {
            s.close();
        }
    }
}
