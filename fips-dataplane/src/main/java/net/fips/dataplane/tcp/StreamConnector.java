package net.fips.dataplane.tcp;

import java.io.IOException;

import net.fips.dataplane.transport.TransportAddr;

/**
 * The outbound connect step of a stream transport, pluggable so that a transport that dials through a proxy (Tor's
 * and Nym's SOCKS5) reuses {@link TcpTransport}'s event loop, framing, pool and stats. All calls happen on the
 * transport's loop thread and must not block (name look-ups go through {@link #lookup}, which the transport runs
 * elsewhere): {@link #open} creates a non-blocking socket and starts the connect;
 * when the socket is connected the loop runs the optional {@link PreLink} exchange (SOCKS5 greeting and CONNECT)
 * each time the descriptor is ready until it says {@link PreLink#DONE}; only then do FMP frames flow. The whole
 * sequence is bounded by the transport's connect timeout.
 */
public interface StreamConnector {

    /**
     * Starts connecting to {@code address}.
     *
     * @param address the peer's address as the link layer knows it
     * @param options the socket options to apply before {@code connect(2)} ({@link TcpSocketOptions#apply})
     * @return the descriptor and its state; the transport owns (and closes) the descriptor from here
     * @throws IOException when the address is unusable or the socket cannot be created (counted as a failed connect)
     */
    Dial open(TransportAddr address, TcpSocketOptions options) throws IOException;

    /**
     * Whether {@link #open} would have to look a host name up for {@code address} (which may block for seconds).
     * The transport then calls {@link #lookup} on a thread of its own, never on the loop, and opens what it returns.
     *
     * @param address the peer's address as the link layer knows it
     * @return false unless this connector resolves names itself (a proxy connector hands them to the proxy)
     */
    default boolean needsLookup(final TransportAddr address) {
        return false;
    }

    /**
     * Looks up the host name of {@code address}; blocking, called off the loop thread only when
     * {@link #needsLookup} said so.
     *
     * @param address the peer's address as the link layer knows it
     * @return the address for {@link #open} (an IP literal); the connection keeps {@code address} as its key
     * @throws IOException when the name does not resolve (counted as a failed connect)
     */
    default TransportAddr lookup(final TransportAddr address) throws IOException {
        return address;
    }

    /**
     * A connect in progress.
     *
     * @param fd        a non-blocking stream socket
     * @param connected whether {@code connect(2)} already completed (else the loop waits for EPOLLOUT and SO_ERROR)
     * @param preLink   the byte exchange to run once connected before FMP frames, or null for none
     */
    record Dial(int fd, boolean connected, PreLink preLink) {
    }

    /** A byte exchange between connect and the first FMP frame (e.g. SOCKS5), driven by readiness. */
    interface PreLink {
        /** The exchange is over: FMP frames may flow. */
        int DONE = 0;
        /** Wait until the descriptor is readable. */
        int NEED_READ = 1;
        /** Wait until the descriptor is writable. */
        int NEED_WRITE = 2;
        /** The exchange failed: the connection is closed and the connect counted as failed. */
        int FAILED = -1;

        /**
         * Advances the exchange; reads and writes {@code fd} itself (non-blocking, never waiting).
         *
         * @return {@link #DONE}, {@link #NEED_READ}, {@link #NEED_WRITE} or {@link #FAILED}
         */
        int step(int fd);
    }
}
