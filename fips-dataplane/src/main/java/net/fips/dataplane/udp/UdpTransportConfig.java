package net.fips.dataplane.udp;

import java.net.InetSocketAddress;

/**
 * Settings for one {@link UdpTransport}, fluent, checked by {@link #conclude()} before any socket is made.
 * Defaults follow the reference (transports.md §2.1) where it has one.
 */
public final class UdpTransportConfig {
    /** Default bind address text: dual-stack wildcard, ephemeral port. */
    public static final String BIND_ADDRESS_DEFAULT = "[::]:0";
    /** Default requested receive buffer (the kernel doubles it, clamped by net.core.rmem_max). */
    public static final int RECEIVE_BUFFER_BYTES_DEFAULT = 2 * 1024 * 1024;
    /** Default requested send buffer. */
    public static final int SEND_BUFFER_BYTES_DEFAULT = 2 * 1024 * 1024;
    /** Default largest FMP packet (the IPv6 minimum MTU). */
    public static final int MTU_BYTES_DEFAULT = 1280;
    /** Datagrams per recvmmsg/sendmmsg call. */
    public static final int BATCH_DEFAULT = 32;
    /** How long a send waits for socket-buffer space (EAGAIN) before dropping the rest of a group. */
    public static final int SEND_TIMEOUT_MS_DEFAULT = 100;

    private String bindAddressText = BIND_ADDRESS_DEFAULT;
    private InetSocketAddress bindAddress;
    private int receiveBufferBytes = RECEIVE_BUFFER_BYTES_DEFAULT;
    private int sendBufferBytes = SEND_BUFFER_BYTES_DEFAULT;
    private int mtuBytes = MTU_BYTES_DEFAULT;
    private int batch = BATCH_DEFAULT;
    private int sendTimeoutMs = SEND_TIMEOUT_MS_DEFAULT;
    private boolean reusePort = true;
    private boolean gso = true;
    private boolean gro;
    private boolean concluded;
    private String instanceName;
    private boolean acceptConnections = true;

    /** @param text bind address, e.g. {@code "[::]:2121"}, {@code "0.0.0.0:2121"}, {@code "127.0.0.1:0"} */
    public UdpTransportConfig bindAddress(final String text) {
        this.bindAddressText = text;
        this.bindAddress = null;
        return this;
    }

    /** @param address an already resolved bind address */
    public UdpTransportConfig bindAddress(final InetSocketAddress address) {
        this.bindAddress = address;
        this.bindAddressText = address == null ? null : UdpAddresses.format(address);
        return this;
    }

    /** @param bytes requested SO_RCVBUF */
    public UdpTransportConfig receiveBufferBytes(final int bytes) {
        this.receiveBufferBytes = bytes;
        return this;
    }

    /** @param bytes requested SO_SNDBUF */
    public UdpTransportConfig sendBufferBytes(final int bytes) {
        this.sendBufferBytes = bytes;
        return this;
    }

    /** @param bytes the largest packet {@link UdpTransport#send} accepts */
    public UdpTransportConfig mtuBytes(final int bytes) {
        this.mtuBytes = bytes;
        return this;
    }

    /** @param datagrams datagrams per recvmmsg/sendmmsg call (1-1024) */
    public UdpTransportConfig batch(final int datagrams) {
        this.batch = datagrams;
        return this;
    }

    /** @param ms how long a send waits on a full socket buffer before dropping (0 = never wait) */
    public UdpTransportConfig sendTimeoutMs(final int ms) {
        this.sendTimeoutMs = ms;
        return this;
    }

    /** @param on set SO_REUSEADDR + SO_REUSEPORT before bind (default on, needed for per-peer sockets) */
    public UdpTransportConfig reusePort(final boolean on) {
        this.reusePort = on;
        return this;
    }

    /** @param on try UDP GSO for equal-size runs to one destination (default on; falls back when refused) */
    public UdpTransportConfig gso(final boolean on) {
        this.gso = on;
        return this;
    }

    /** @param name the instance name of a named-instance config, or null */
    public UdpTransportConfig instanceName(final String name) {
        this.instanceName = name;
        return this;
    }

    /** @param accept whether a stranger's msg1 is admitted (false for {@code outbound_only}; default true) */
    public UdpTransportConfig acceptConnections(final boolean accept) {
        this.acceptConnections = accept;
        return this;
    }

    /** @return the instance name, or null */
    public String instanceName() {
        return instanceName;
    }

    /** @return whether a stranger's msg1 is admitted */
    public boolean acceptConnections() {
        return acceptConnections;
    }

    /** @param on enable UDP_GRO on receive (default off, like the reference) */
    public UdpTransportConfig gro(final boolean on) {
        this.gro = on;
        return this;
    }

    /**
     * Validates every setting and resolves the bind address.
     *
     * @return this
     * @throws UdpTransportException naming the first bad setting
     */
    public UdpTransportConfig conclude() throws UdpTransportException {
        if (bindAddress == null) {
            bindAddress = UdpAddresses.parse(bindAddressText);
        }
        if (bindAddress.isUnresolved()) {
            throw new UdpTransportException("UDP bind address " + bindAddressText + " is not resolved");
        }
        check(receiveBufferBytes >= 1024, "receiveBufferBytes " + receiveBufferBytes + " is below 1024");
        check(sendBufferBytes >= 1024, "sendBufferBytes " + sendBufferBytes + " is below 1024");
        check(mtuBytes >= 64 && mtuBytes <= 65507, "mtuBytes " + mtuBytes + " is outside 64-65507");
        check(batch >= 1 && batch <= 1024, "batch " + batch + " is outside 1-1024");
        check(sendTimeoutMs >= 0, "sendTimeoutMs " + sendTimeoutMs + " is negative");
        concluded = true;
        return this;
    }

    private static void check(final boolean ok, final String problem) throws UdpTransportException {
        if (!ok) {
            throw new UdpTransportException("UDP transport setting: " + problem);
        }
    }

    boolean concluded() {
        return concluded;
    }

    /** @return the resolved bind address (after {@link #conclude()}) */
    public InetSocketAddress bindAddress() {
        return bindAddress;
    }

    /** @return requested SO_RCVBUF */
    public int receiveBufferBytes() {
        return receiveBufferBytes;
    }

    /** @return requested SO_SNDBUF */
    public int sendBufferBytes() {
        return sendBufferBytes;
    }

    /** @return the largest packet accepted */
    public int mtuBytes() {
        return mtuBytes;
    }

    /** @return datagrams per syscall */
    public int batch() {
        return batch;
    }

    /** @return the send back-pressure timeout */
    public int sendTimeoutMs() {
        return sendTimeoutMs;
    }

    /** @return whether SO_REUSEPORT is set */
    public boolean reusePort() {
        return reusePort;
    }

    /** @return whether GSO is tried */
    public boolean gso() {
        return gso;
    }

    /** @return whether GRO is requested */
    public boolean gro() {
        return gro;
    }
}
