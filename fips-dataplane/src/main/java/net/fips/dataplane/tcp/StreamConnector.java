package net.fips.dataplane.tcp;

import java.io.IOException;

import net.fips.dataplane.transport.TransportAddr;

/**
 * The outbound connect step of a stream transport, pluggable so that a transport that dials through a proxy (Tor's
 * and Nym's SOCKS5) reuses {@link TcpTransport}'s event loop, framing, pool and stats. All calls happen on the
 * transport's loop thread and must not block: {@link #open} creates a non-blocking socket and starts the connect;
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
