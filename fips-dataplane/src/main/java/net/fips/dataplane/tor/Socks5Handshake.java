package net.fips.dataplane.tor;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Objects;

/**
 * The client side of one SOCKS5 exchange (RFC 1928, RFC 1929) as the reference sends it (transports.md §6.3), as
 * a state machine fed bytes: it never touches a socket, so it runs equally on an event loop or behind a blocking
 * helper ({@link Socks5Dialer}).
 *
 * <p>Bytes on the wire, Tor flavour ({@link #tor}):
 * <pre>
 *   client  05 02 00 02                         greeting: no-auth and username/password offered
 *   proxy   05 MM                               MM = 00 (no auth) or 02 (username/password)
 *   client  01 04 "fips" PL &lt;destination text&gt;  only when MM = 02; the password is the transport address
 *   proxy   01 00                               text, Tor's IsolateSOCKSAuth key: one circuit per destination
 *   client  05 01 00 AT &lt;addr&gt; PP PP            CONNECT; AT 03 + length + name for onion/host names,
 *                                               01 + 4 bytes or 04 + 16 bytes for IP literals; port big-endian
 *   proxy   05 RR 00 AT &lt;bound addr&gt; PP PP      RR = 00 success, else a {@link Socks5Failure} reply code
 * </pre>
 * The Nym flavour ({@link #noAuth}) greets with {@code 05 01 00} and never authenticates (§6.7).
 *
 * <p>Use: {@link #start} writes the greeting; then, each time bytes arrive, {@link #onReceive} consumes exactly
 * the bytes of the current proxy message (never more, so bytes the proxy sends after its CONNECT reply stay in the
 * buffer for the stream's reader) and says what to do next: write what it put in {@code out}, wait for more,
 * or stop. After {@link Status#FAILED}, {@link #failure()} and {@link #detail()} say why.
 */
public final class Socks5Handshake {
    /** The username sent with username/password authentication. */
    public static final String USERNAME = "fips";
    /** The most bytes any one message of this client occupies (the auth request: 3 + 4 + 255). */
    public static final int MAX_REQUEST_BYTES = 3 + 4 + 255;

    private static final int VERSION = 0x05;
    private static final int METHOD_NONE = 0x00;
    private static final int METHOD_PASSWORD = 0x02;
    private static final int METHOD_UNACCEPTABLE = 0xFF;
    private static final int AUTH_VERSION = 0x01;
    private static final int CMD_CONNECT = 0x01;
    private static final int ATYP_IPV4 = 0x01;
    private static final int ATYP_DOMAIN = 0x03;
    private static final int ATYP_IPV6 = 0x04;

    /** What the caller does next. */
    public enum Status {
        /** Write the bytes just put into {@code out}, then wait for the proxy's answer. */
        WRITE,
        /** The current proxy message is incomplete: read more and call {@link #onReceive} again. */
        NEED_MORE,
        /** The proxy relayed the connection: the stream now carries the destination's bytes. */
        CONNECTED,
        /** The dial failed; see {@link #failure()}. */
        FAILED
    }

    private enum Phase { INIT, METHOD, AUTH, REPLY, CONNECTED, FAILED }

    private final TorAddress target;
    private final byte[] password;
    private final byte[] acc = new byte[4 + 1 + 255 + 2];
    private int have;
    private Phase phase = Phase.INIT;
    private Socks5Failure failure;
    private String detail;
    private int boundPort = -1;
    private boolean connectSent;

    private Socks5Handshake(final TorAddress target, final byte[] password) {
        this.target = Objects.requireNonNull(target, "target");
        this.password = password;
    }

    /**
     * The Tor exchange: offers no-auth and username/password; when the proxy picks the latter, authenticates as
     * {@code fips} with the destination's address text as password (the stream-isolation key).
     *
     * @param target the destination
     * @return a fresh handshake
     * @throws IllegalArgumentException when the address text is longer than the 255 bytes a password can carry
     */
    public static Socks5Handshake tor(final TorAddress target) {
        final byte[] pw = target.text().getBytes(StandardCharsets.UTF_8);
        if (pw.length > 255) {
            throw new IllegalArgumentException("address text is " + pw.length + " bytes, a SOCKS5 password at most"
                    + " 255");
        }
        return new Socks5Handshake(target, pw);
    }

    /**
     * The Nym exchange: offers only no-auth.
     *
     * @param target the destination
     * @return a fresh handshake
     */
    public static Socks5Handshake noAuth(final TorAddress target) {
        return new Socks5Handshake(target, null);
    }

    /**
     * Writes the greeting.
     *
     * @param out where to put it ({@link #MAX_REQUEST_BYTES} free bytes always suffice)
     * @return {@link Status#WRITE}
     */
    public Status start(final ByteBuffer out) {
        if (phase != Phase.INIT) {
            throw new IllegalStateException("start() twice");
        }
        if (password == null) {
            out.put((byte) VERSION).put((byte) 1).put((byte) METHOD_NONE);
        } else {
            out.put((byte) VERSION).put((byte) 2).put((byte) METHOD_NONE).put((byte) METHOD_PASSWORD);
        }
        phase = Phase.METHOD;
        have = 0;
        return Status.WRITE;
    }

    /**
     * Consumes proxy bytes from {@code in} (at most the rest of the current message) and advances.
     *
     * @param in  bytes read from the proxy, between position and limit; the position moves past what was consumed
     * @param out where the next request goes on {@link Status#WRITE} ({@link #MAX_REQUEST_BYTES} free bytes)
     * @return what to do next
     */
    public Status onReceive(final ByteBuffer in, final ByteBuffer out) {
        return switch (phase) {
            case INIT -> throw new IllegalStateException("onReceive() before start()");
            case CONNECTED -> Status.CONNECTED;
            case FAILED -> Status.FAILED;
            case METHOD -> onMethod(in, out);
            case AUTH -> onAuth(in, out);
            case REPLY -> onReply(in);
        };
    }

    /**
     * Records a failure found outside the exchange (timeout, I/O error, the proxy closing); a finished exchange
     * keeps its outcome.
     *
     * @param f      the failure
     * @param detail what happened
     * @return {@link Status#FAILED}, or {@link Status#CONNECTED} if the exchange had already succeeded
     */
    public Status fail(final Socks5Failure f, final String detail) {
        if (phase == Phase.CONNECTED) {
            return Status.CONNECTED;
        }
        if (phase != Phase.FAILED) {
            phase = Phase.FAILED;
            failure = Objects.requireNonNull(f, "f");
            this.detail = detail;
        }
        return Status.FAILED;
    }

    /** @return the destination */
    public TorAddress target() {
        return target;
    }

    /** @return true once the proxy has relayed the connection */
    public boolean isConnected() {
        return phase == Phase.CONNECTED;
    }

    /** @return why the exchange failed, or null while it has not */
    public Socks5Failure failure() {
        return failure;
    }

    /** @return a one-line explanation of the failure naming the bytes involved, or null */
    public String detail() {
        return detail;
    }

    /**
     * How many more bytes the current proxy message has, as far as is known yet: a reader that reads at most this
     * many never takes a byte past the CONNECT reply out of the socket (a CONNECT reply is wanted as its 4-byte
     * header, then for a domain name its length byte, then the rest).
     *
     * @return bytes still wanted, at least 1 while the exchange waits for the proxy, 0 once it is over
     */
    public int wanted() {
        return switch (phase) {
            case METHOD, AUTH -> 2 - have;
            case REPLY -> {
                if (have < 4) {
                    yield 4 - have;
                }
                yield switch (acc[3] & 0xFF) {
                    case ATYP_IPV4 -> 4 + 4 + 2 - have;
                    case ATYP_IPV6 -> 4 + 16 + 2 - have;
                    default -> have < 5 ? 5 - have : 5 + (acc[4] & 0xFF) + 2 - have;
                };
            }
            default -> 0;
        };
    }

    /** @return whether the CONNECT request has been produced (the proxy accepted the greeting and any auth) */
    public boolean connectSent() {
        return connectSent;
    }

    /** @return the bound port of the proxy's successful reply, or -1 */
    public int boundPort() {
        return boundPort;
    }

    private Status onMethod(final ByteBuffer in, final ByteBuffer out) {
        if (!fill(in, 2)) {
            return Status.NEED_MORE;
        }
        final int ver = acc[0] & 0xFF;
        final int method = acc[1] & 0xFF;
        if (ver != VERSION) {
            return failWith(Socks5Failure.BAD_VERSION, "method reply version 0x%02x", ver);
        }
        if (method == METHOD_UNACCEPTABLE) {
            return failWith(Socks5Failure.NO_ACCEPTABLE_METHOD, "method reply 0x%02x", method);
        }
        if (method == METHOD_PASSWORD && password != null) {
            final byte[] user = USERNAME.getBytes(StandardCharsets.US_ASCII);
            out.put((byte) AUTH_VERSION).put((byte) user.length).put(user).put((byte) password.length).put(password);
            phase = Phase.AUTH;
            have = 0;
            return Status.WRITE;
        }
        if (method != METHOD_NONE) {
            return failWith(Socks5Failure.UNEXPECTED_METHOD, "method 0x%02x was not offered", method);
        }
        return connect(out);
    }

    private Status onAuth(final ByteBuffer in, final ByteBuffer out) {
        if (!fill(in, 2)) {
            return Status.NEED_MORE;
        }
        final int ver = acc[0] & 0xFF;
        final int status = acc[1] & 0xFF;
        if (ver != AUTH_VERSION) {
            return failWith(Socks5Failure.BAD_AUTH_VERSION, "auth reply version 0x%02x", ver);
        }
        if (status != 0) {
            return failWith(Socks5Failure.AUTH_FAILED, "auth status 0x%02x", status);
        }
        return connect(out);
    }

    private Status connect(final ByteBuffer out) {
        out.put((byte) VERSION).put((byte) CMD_CONNECT).put((byte) 0);
        if (target.isDomain()) {
            final byte[] name = target.host().getBytes(StandardCharsets.UTF_8);
            out.put((byte) ATYP_DOMAIN).put((byte) name.length).put(name);
        } else {
            final byte[] a = target.ip().getAddress();
            out.put((byte) (a.length == 4 ? ATYP_IPV4 : ATYP_IPV6)).put(a);
        }
        out.put((byte) (target.port() >>> 8)).put((byte) target.port());
        phase = Phase.REPLY;
        connectSent = true;
        have = 0;
        return Status.WRITE;
    }

    private Status onReply(final ByteBuffer in) {
        if (!fill(in, 4)) {
            return Status.NEED_MORE;
        }
        final int ver = acc[0] & 0xFF;
        final int rep = acc[1] & 0xFF;
        final int rsv = acc[2] & 0xFF;
        final int atyp = acc[3] & 0xFF;
        if (ver != VERSION) {
            return failWith(Socks5Failure.BAD_VERSION, "CONNECT reply version 0x%02x", ver);
        }
        if (rep != 0) {
            return failWith(Socks5Failure.ofReply(rep), "CONNECT reply 0x%02x", rep);
        }
        if (rsv != 0) {
            return failWith(Socks5Failure.BAD_RESERVED, "CONNECT reply reserved byte 0x%02x", rsv);
        }
        final int total;
        switch (atyp) {
            case ATYP_IPV4 -> total = 4 + 4 + 2;
            case ATYP_IPV6 -> total = 4 + 16 + 2;
            case ATYP_DOMAIN -> {
                if (!fill(in, 5)) {
                    return Status.NEED_MORE;
                }
                total = 5 + (acc[4] & 0xFF) + 2;
            }
            default -> {
                return failWith(Socks5Failure.BAD_ADDRESS_TYPE, "CONNECT reply address type 0x%02x", atyp);
            }
        }
        if (!fill(in, total)) {
            return Status.NEED_MORE;
        }
        boundPort = ((acc[total - 2] & 0xFF) << 8) | (acc[total - 1] & 0xFF);
        phase = Phase.CONNECTED;
        return Status.CONNECTED;
    }

    /** Copies bytes until {@code acc} holds {@code n}; @return whether it does. */
    private boolean fill(final ByteBuffer in, final int n) {
        while (have < n && in.hasRemaining()) {
            acc[have++] = in.get();
        }
        return have >= n;
    }

    private Status failWith(final Socks5Failure f, final String fmt, final int value) {
        phase = Phase.FAILED;
        failure = f;
        detail = f.description() + " (" + String.format(fmt, value) + ")";
        return Status.FAILED;
    }
}
