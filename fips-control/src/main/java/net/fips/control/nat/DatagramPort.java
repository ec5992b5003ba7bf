package net.fips.control.nat;

import java.net.InetSocketAddress;

import net.fips.dataplane.udp.TraversalSocket;

/**
 * The one socket a traversal attempt runs STUN and the punch on, as {@link StunClient} and {@link PunchRunner} see
 * it: the attempt's {@link TraversalSocket} in the node ({@link #of}), a simulated NAT endpoint in tests.
 */
public interface DatagramPort {
    /**
     * One datagram.
     *
     * @param length its length
     * @param from   its source
     */
    record Received(int length, InetSocketAddress from) {
    }

    /**
     * @param data   the bytes
     * @param length how many
     * @param to     the destination
     * @return bytes sent, or a negative errno (the caller ignores send errors, as the reference does)
     */
    int send(byte[] data, int length, InetSocketAddress to);

    /**
     * @param into      where the bytes go
     * @param timeoutMs the most to wait, 0 for none
     * @return the datagram, or null on timeout or when closed
     */
    Received receive(byte[] into, int timeoutMs);

    /** @return whether the port is closed (or was handed over) and receives nothing more */
    boolean isClosed();

    /**
     * @param socket a traversal socket
     * @return it as a port
     */
    static DatagramPort of(final TraversalSocket socket) {
        return new DatagramPort() {
            @Override
            public int send(final byte[] data, final int length, final InetSocketAddress to) {
                return socket.send(data, length, to);
            }

            @Override
            public Received receive(final byte[] into, final int timeoutMs) {
                final TraversalSocket.Received r = socket.receive(into, timeoutMs);
                return r == null ? null : new Received(r.length(), r.from());
            }

            @Override
            public boolean isClosed() {
                return socket.isClosed();
            }
        };
    }
}
