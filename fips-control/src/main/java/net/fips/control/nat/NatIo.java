package net.fips.control.nat;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.List;

/**
 * The socket side of traversal attempts, as {@link TraversalCoordinator} uses it: a fresh socket per attempt with
 * what STUN learned on it (discovery-gateway.md §2.1-§2.2), and the hand-over of a punched one. {@link SocketNatIo}
 * is the node's; tests simulate NATs behind the same interface.
 */
public interface NatIo {
    /** One attempt's socket and candidates; closed by its last holder (an adopted one then frees only memory). */
    interface Attempt extends AutoCloseable {
        /** @return the socket, for the punch */
        DatagramPort port();

        /** @return our reflexive address, or null when no STUN server answered */
        InetSocketAddress reflexive();

        /** @return the configured string of the STUN server that answered, or null */
        String stunServer();

        /** @return our local candidates ({@code share_local_candidates}); empty by default */
        List<InetSocketAddress> locals();

        /**
         * @param npub   the peer
         * @param remote where its winning probe or ack came from
         * @return the transport id the link is dialled on
         * @throws PunchFailure when the node refuses or fails to adopt the socket
         */
        int adopt(String npub, InetSocketAddress remote) throws PunchFailure;

        @Override
        void close();
    }

    /**
     * Opens a fresh socket and runs STUN on it (blocking: up to one per-server timeout per STUN server).
     *
     * @return the attempt
     * @throws IOException when no socket can be opened
     */
    Attempt open() throws IOException;
}
