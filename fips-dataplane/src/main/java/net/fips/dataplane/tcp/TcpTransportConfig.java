package net.fips.dataplane.tcp;

import java.util.Objects;
import java.util.function.LongSupplier;

/**
 * Settings of one TCP transport (operator.md §1.13, transports.md §3), with the reference's defaults. A transport
 * without a bind address has no listener: it only dials, and admits no stranger's handshake.
 */
public final class TcpTransportConfig {
    public static final int MTU_DEFAULT = 1400;
    public static final int CONNECT_TIMEOUT_MS_DEFAULT = 5000;
    public static final int KEEPALIVE_SECS_DEFAULT = 30;
    public static final int BUFFER_BYTES_DEFAULT = 2 * 1024 * 1024;
    public static final int MAX_INBOUND_DEFAULT = 256;
    /** [master] An accepted connection that sends no complete frame within this is closed (30 s). */
    public static final int FIRST_FRAME_TIMEOUT_MS_DEFAULT = 30_000;
    /** Listen backlog (the reference's runtime default). */
    public static final int BACKLOG = 1024;

    private String bindAddress;
    private int mtu = MTU_DEFAULT;
    private int connectTimeoutMs = CONNECT_TIMEOUT_MS_DEFAULT;
    private boolean nodelay = true;
    private int keepaliveSecs = KEEPALIVE_SECS_DEFAULT;
    private int recvBufferBytes = BUFFER_BYTES_DEFAULT;
    private int sendBufferBytes = BUFFER_BYTES_DEFAULT;
    private int maxInboundConnections = MAX_INBOUND_DEFAULT;
    private int firstFrameTimeoutMs = FIRST_FRAME_TIMEOUT_MS_DEFAULT;
    private String instanceName;
    private String typeName = "tcp";
    private StreamConnector connector = new DirectConnector();
    private LongSupplier nanoClock = System::nanoTime;
    private boolean endOfStreamIsRecvError;

    /** @param text the listener's address ({@code ip:port}, {@code [v6]:port}), or null for none (outbound only) */
    public TcpTransportConfig bindAddress(final String text) {
        this.bindAddress = text;
        return this;
    }

    /** @param bytes the largest FMP packet sent or accepted (the receive side also caps it at the MSS) */
    public TcpTransportConfig mtu(final int bytes) {
        this.mtu = bytes;
        return this;
    }

    /** @param ms how long a connect (and its pre-link exchange) may take */
    public TcpTransportConfig connectTimeoutMs(final int ms) {
        this.connectTimeoutMs = ms;
        return this;
    }

    /** @param on TCP_NODELAY */
    public TcpTransportConfig nodelay(final boolean on) {
        this.nodelay = on;
        return this;
    }

    /** @param secs keepalive idle time, 0 = off */
    public TcpTransportConfig keepaliveSecs(final int secs) {
        this.keepaliveSecs = secs;
        return this;
    }

    /** @param bytes SO_RCVBUF */
    public TcpTransportConfig recvBufferBytes(final int bytes) {
        this.recvBufferBytes = bytes;
        return this;
    }

    /** @param bytes SO_SNDBUF */
    public TcpTransportConfig sendBufferBytes(final int bytes) {
        this.sendBufferBytes = bytes;
        return this;
    }

    /** @param n inbound connections kept at most; the next is accepted and closed (counted as rejected) */
    public TcpTransportConfig maxInboundConnections(final int n) {
        this.maxInboundConnections = n;
        return this;
    }

    /** @param ms how long an accepted connection may stay silent before its first complete frame */
    public TcpTransportConfig firstFrameTimeoutMs(final int ms) {
        this.firstFrameTimeoutMs = ms;
        return this;
    }

    public int firstFrameTimeoutMs() {
        return firstFrameTimeoutMs;
    }

    /** @param name the instance name of a named-instance config, or null */
    public TcpTransportConfig instanceName(final String name) {
        this.instanceName = name;
        return this;
    }

    /** @param name the type name reported (a transport built on this one, e.g. {@code tor}, says its own) */
    public TcpTransportConfig typeName(final String name) {
        this.typeName = Objects.requireNonNull(name);
        return this;
    }

    /** @param c the outbound connect step ({@link DirectConnector} by default; SOCKS5 for Tor/Nym) */
    public TcpTransportConfig connector(final StreamConnector c) {
        this.connector = Objects.requireNonNull(c);
        return this;
    }

    /**
     * @param counted true to count a connection the far end closes as a {@code recv_errors} (the reference's Nym
     *                reader does, transports.md §6.7); false, the default, closes it uncounted
     */
    public TcpTransportConfig endOfStreamIsRecvError(final boolean counted) {
        this.endOfStreamIsRecvError = counted;
        return this;
    }

    /** @return whether an end of stream counts {@code recv_errors} */
    public boolean endOfStreamIsRecvError() {
        return endOfStreamIsRecvError;
    }

    /** @param clock the monotonic clock for connect deadlines (tests inject one) */
    public TcpTransportConfig nanoClock(final LongSupplier clock) {
        this.nanoClock = Objects.requireNonNull(clock);
        return this;
    }

    /** @throws IllegalArgumentException naming the first bad setting */
    void check() {
        if (mtu < 1280 || mtu > 65535) {
            throw new IllegalArgumentException("TCP mtu " + mtu + " outside 1280-65535");
        }
        if (connectTimeoutMs <= 0) {
            throw new IllegalArgumentException("TCP connect_timeout_ms must be positive");
        }
        if (keepaliveSecs < 0) {
            throw new IllegalArgumentException("TCP keepalive_secs must not be negative");
        }
        if (recvBufferBytes <= 0 || sendBufferBytes <= 0) {
            throw new IllegalArgumentException("TCP buffer sizes must be positive");
        }
        if (maxInboundConnections < 0) {
            throw new IllegalArgumentException("TCP max_inbound_connections must not be negative");
        }
    }

    public String bindAddress() {
        return bindAddress;
    }

    public int mtu() {
        return mtu;
    }

    public int connectTimeoutMs() {
        return connectTimeoutMs;
    }

    public int maxInboundConnections() {
        return maxInboundConnections;
    }

    public String instanceName() {
        return instanceName;
    }

    public String typeName() {
        return typeName;
    }

    public StreamConnector connector() {
        return connector;
    }

    public LongSupplier nanoClock() {
        return nanoClock;
    }

    /** @return the socket options every connection gets */
    public TcpSocketOptions socketOptions() {
        return new TcpSocketOptions(nodelay, keepaliveSecs, recvBufferBytes, sendBufferBytes);
    }
}
