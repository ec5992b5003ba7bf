package net.fips.control.nostr;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.LongSupplier;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

/**
 * A minimal NIP-01 relay for tests (discovery-gateway.md §7.7) on {@code 127.0.0.1:0}, with the server side of
 * RFC 6455 written out (handshake, framing, client masking) since the JDK has none. EVENT is verified and answered
 * with OK; storage follows NIP-01's classes (regular, replaceable, addressable, ephemeral never stored), kind 5
 * deletes the author's own events, NIP-40 expiry is honoured; REQ replays stored matches newest first (with
 * {@code limit}) then EOSE, then live matches; CLOSE ends a subscription. Knobs: {@link #dropConnections()},
 * {@link #silent} (no answers to REQ), {@link #sendRaw}, and everything received is recorded.
 */
public final class TestRelay implements AutoCloseable {
    private static final String GUID = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11";
    private static final ObjectMapper MAPPER = new ObjectMapper();

    private final ServerSocket server;
    private final LongSupplier clockSecs;
    private final List<Conn> conns = new CopyOnWriteArrayList<>();
    private final List<NostrEvent> stored = new ArrayList<>();
    /** Every text message received, in order. */
    public final List<String> received = new CopyOnWriteArrayList<>();
    /** When true, REQ is recorded but neither stored events nor EOSE are sent. */
    volatile boolean silent;

    /** One client connection and its open subscriptions. */
    private final class Conn {
        final Socket socket;
        final OutputStream out;
        final Map<String, List<Filter>> subs = new ConcurrentHashMap<>();

        Conn(final Socket socket) throws IOException {
            this.socket = socket;
            this.out = socket.getOutputStream();
        }

        synchronized void sendText(final String text) {
            final byte[] payload = text.getBytes(StandardCharsets.UTF_8);
            try {
                final ByteArrayOutputStream frame = new ByteArrayOutputStream(payload.length + 10);
                frame.write(0x81);
                if (payload.length < 126) {
                    frame.write(payload.length);
                } else if (payload.length <= 0xffff) {
                    frame.write(126);
                    frame.write(payload.length >>> 8);
                    frame.write(payload.length);
                } else {
                    frame.write(127);
                    for (int i = 7; i >= 0; i--) {
                        frame.write((int) ((long) payload.length >>> (8 * i)));
                    }
                }
                frame.write(payload);
                out.write(frame.toByteArray());
                out.flush();
            } catch (final IOException e) {
                close();
            }
        }

        synchronized void sendControl(final int opcode, final byte[] payload) throws IOException {
            out.write(0x80 | opcode);
            out.write(payload.length);
            out.write(payload);
            out.flush();
        }

        void close() {
            conns.remove(this);
            try {
                // The FIN first, whatever the serving thread is doing: a close() while that virtual thread is
                // blocked reading this socket may be deferred, and the client would not see the drop (seen once
                // in a CI run: the client waited 10 s without noticing).
                socket.shutdownOutput();
            } catch (final IOException e) {
                // already closed or shut down
            }
            try {
                socket.close();
            } catch (final IOException e) {
                // already closed
            }
        }
    }

    public TestRelay(final LongSupplier clockSecs) throws IOException {
        this(clockSecs, new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
    }

    /**
     * @param clockSecs the clock for NIP-40 expiry
     * @param bind      where it listens (the NAT lab's "internet" namespace: 198.18.0.1)
     * @throws IOException when it cannot listen
     */
    public TestRelay(final LongSupplier clockSecs, final InetSocketAddress bind) throws IOException {
        this.clockSecs = clockSecs;
        this.server = new ServerSocket();
        server.bind(bind);
        Thread.ofVirtual().name("test-relay-accept").start(this::acceptLoop);
    }

    public URI url() {
        return URI.create("ws://" + server.getInetAddress().getHostAddress() + ":" + server.getLocalPort());
    }

    /**
     * The NAT lab's relay in a child JVM: prints {@code ready <url>} and runs until stdin closes.
     *
     * @param args the address and port to listen on
     * @throws Exception when it cannot listen
     */
    public static void main(final String[] args) throws Exception {
        try (TestRelay r = new TestRelay(() -> System.currentTimeMillis() / 1000,
                new InetSocketAddress(args[0], Integer.parseInt(args[1])))) {
            System.out.println("ready " + r.url());
            System.out.flush();
            System.in.read();
        }
    }

    public int connections() {
        return conns.size();
    }

    /** Closes every client connection (the relay keeps listening). */
    public void dropConnections() {
        for (final Conn c : conns) {
            try {
                // A relay going away: Close (1001) and the connection ends. Without the Close frame the JDK client
                // did not always notice the FIN within 10 s (CI, and 3 runs in 6 under load here).
                c.sendControl(0x8, new byte[] {0x03, (byte) 0xE9});
            } catch (final IOException e) {
                // already gone: closing below is all there is to do
            }
            c.close();
        }
    }

    /** Sends {@code text} to every connected client as one text frame. */
    void sendRaw(final String text) {
        conns.forEach(c -> c.sendText(text));
    }

    public synchronized List<NostrEvent> stored() {
        return List.copyOf(stored);
    }

    @Override
    public void close() throws IOException {
        server.close();
        dropConnections();
    }

    private void acceptLoop() {
        while (!server.isClosed()) {
            try {
                final Socket s = server.accept();
                Thread.ofVirtual().name("test-relay-conn").start(() -> serve(s));
            } catch (final IOException e) {
                return;
            }
        }
    }

    private void serve(final Socket s) {
        Conn c = null;
        try (s) {
            final InputStream in = s.getInputStream();
            final String key = handshake(in, s.getOutputStream());
            if (key == null) {
                return;
            }
            c = new Conn(s);
            conns.add(c);
            final ByteArrayOutputStream message = new ByteArrayOutputStream();
            while (true) {
                final int b0 = in.read();
                final int b1 = in.read();
                if (b0 < 0 || b1 < 0 || (b1 & 0x80) == 0) {
                    return; // EOF, or an unmasked client frame (RFC 6455 §5.1: close)
                }
                long len = b1 & 0x7f;
                if (len == 126) {
                    len = (in.read() << 8) | in.read();
                } else if (len == 127) {
                    len = 0;
                    for (int i = 0; i < 8; i++) {
                        len = (len << 8) | in.read();
                    }
                }
                if (len > 4 << 20) {
                    return;
                }
                final byte[] mask = in.readNBytes(4);
                final byte[] payload = in.readNBytes((int) len);
                if (mask.length < 4 || payload.length < len) {
                    return;
                }
                for (int i = 0; i < payload.length; i++) {
                    payload[i] ^= mask[i & 3];
                }
                final int opcode = b0 & 0x0f;
                switch (opcode) {
                    case 0x0, 0x1 -> {
                        message.write(payload);
                        if ((b0 & 0x80) != 0) {
                            final String text = message.toString(StandardCharsets.UTF_8);
                            message.reset();
                            received.add(text);
                            handle(c, text);
                        }
                    }
                    case 0x8 -> {
                        c.sendControl(0x8, payload.length >= 2 ? new byte[] {payload[0], payload[1]} : new byte[0]);
                        return;
                    }
                    case 0x9 -> c.sendControl(0xA, payload);
                    default -> {
                        // pong or binary: ignored
                    }
                }
            }
        } catch (final IOException e) {
            // connection ended
        } finally {
            if (c != null) {
                c.close();
            }
        }
    }

    /** Reads the HTTP upgrade request and answers 101; returns the client's key, or null after a 400. */
    private static String handshake(final InputStream in, final OutputStream out) throws IOException {
        final StringBuilder head = new StringBuilder();
        while (!head.toString().endsWith("\r\n\r\n")) {
            final int b = in.read();
            if (b < 0 || head.length() > 8192) {
                return null;
            }
            head.append((char) b);
        }
        String key = null;
        for (final String line : head.toString().split("\r\n")) {
            final int colon = line.indexOf(':');
            if (colon > 0 && line.substring(0, colon).trim().equalsIgnoreCase("Sec-WebSocket-Key")) {
                key = line.substring(colon + 1).trim();
            }
        }
        if (key == null) {
            out.write("HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
            return null;
        }
        final String accept;
        try {
            accept = Base64.getEncoder().encodeToString(MessageDigest.getInstance("SHA-1")
                    .digest((key + GUID).getBytes(StandardCharsets.US_ASCII)));
        } catch (final NoSuchAlgorithmException e) {
            throw new IOException(e);
        }
        out.write(("HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                + "Sec-WebSocket-Accept: " + accept + "\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
        out.flush();
        return key;
    }

    private void handle(final Conn c, final String text) throws IOException {
        final JsonNode msg = MAPPER.readTree(text);
        final String type = msg.get(0).textValue();
        switch (type) {
            case "EVENT" -> {
                try {
                    final NostrEvent e = NostrEvent.fromJson(msg.get(1), true);
                    e.verify();
                    // Stored (and fanned out) before the OK, as a relay does: a client may read right after OK.
                    accept(e);
                    c.sendText("[\"OK\",\"" + e.id() + "\",true,\"\"]");
                } catch (final NostrFormatException ex) {
                    final String id = msg.get(1).path("id").asText("");
                    c.sendText("[\"OK\",\"" + id + "\",false,\"invalid: " + ex.problem() + "\"]");
                }
            }
            case "REQ" -> {
                final String sub = msg.get(1).textValue();
                final List<Filter> filters = new ArrayList<>();
                for (int i = 2; i < msg.size(); i++) {
                    filters.add(filter(msg.get(i)));
                }
                c.subs.put(sub, filters);
                if (silent) {
                    return;
                }
                for (final Filter f : filters) {
                    final List<NostrEvent> matches = stored().stream().filter(f::matches)
                            .filter(e -> !e.isExpired(clockSecs.getAsLong()))
                            .sorted(Comparator.comparingLong(NostrEvent::createdAt).reversed())
                            .limit(f.limit() == null ? Long.MAX_VALUE : f.limit()).toList();
                    matches.forEach(e -> c.sendText("[\"EVENT\",\"" + sub + "\"," + e.toJson() + "]"));
                }
                c.sendText("[\"EOSE\",\"" + sub + "\"]");
            }
            case "CLOSE" -> c.subs.remove(msg.get(1).textValue());
            default -> c.sendText("[\"NOTICE\",\"unknown message " + type + "\"]");
        }
    }

    private void accept(final NostrEvent e) {
        if (e.isExpired(clockSecs.getAsLong())) {
            return;
        }
        final int k = e.kind();
        synchronized (this) {
            if (k == 5) {
                final List<String> ids = e.tagValues("e");
                stored.removeIf(s -> ids.contains(s.id()) && s.pubkey().equals(e.pubkey()));
            }
            if (k == 0 || k == 3 || k >= 10_000 && k < 20_000) {
                stored.removeIf(s -> s.kind() == k && s.pubkey().equals(e.pubkey()));
            } else if (k >= 30_000 && k < 40_000) {
                final String d = e.tag("d").orElse("");
                stored.removeIf(s -> s.kind() == k && s.pubkey().equals(e.pubkey()) && s.tag("d").orElse("").equals(d));
            }
            if (k < 20_000 || k >= 30_000) {
                stored.add(e);
            }
        }
        for (final Conn c : conns) {
            c.subs.forEach((sub, filters) -> {
                if (filters.stream().anyMatch(f -> f.matches(e))) {
                    c.sendText("[\"EVENT\",\"" + sub + "\"," + e.toJson() + "]");
                }
            });
        }
    }

    private static Filter filter(final JsonNode n) {
        Filter f = Filter.all();
        if (n.has("authors")) {
            f = f.authors(strings(n.get("authors")).toArray(String[]::new));
        }
        if (n.has("kinds")) {
            final List<Integer> kinds = new ArrayList<>();
            n.get("kinds").forEach(k -> kinds.add(k.intValue()));
            f = f.kinds(kinds.toArray(Integer[]::new));
        }
        for (final Map.Entry<String, JsonNode> e : n.properties()) {
            if (e.getKey().length() == 2 && e.getKey().charAt(0) == '#') {
                f = f.tag(e.getKey().charAt(1), strings(e.getValue()).toArray(String[]::new));
            }
        }
        final List<String> ids = n.has("ids") ? strings(n.get("ids")) : null;
        return new Filter(ids, f.authors(), f.kinds(), f.tags(), n.has("since") ? n.get("since").longValue() : null,
                n.has("until") ? n.get("until").longValue() : null, n.has("limit") ? n.get("limit").intValue() : null);
    }

    private static List<String> strings(final JsonNode a) {
        final List<String> out = new ArrayList<>();
        a.forEach(v -> out.add(v.textValue()));
        return out;
    }
}
