package net.fips.control.nat;

import java.net.InetSocketAddress;
import java.util.Optional;

import net.fips.dataplane.udp.TraversalSocket;

/**
 * Where a successful punch ends (discovery-gateway.md §2.6): the node takes the punched socket over as a UDP
 * transport named {@code nostr-nat} and dials the peer's Noise handshake through it. The node implements it; the
 * traversal logic only calls it.
 */
@FunctionalInterface
public interface NatAdopter {
    /**
     * Adopts {@code socket} for a link to {@code npub} at {@code remote}. On success the socket's descriptor belongs
     * to the node (close the {@link TraversalSocket} object as usual, which then only frees its buffers); on refusal
     * the caller closes it, which closes the socket.
     *
     * @param npub   the peer
     * @param socket the punched socket
     * @param remote where the winning probe or ack came from
     * @return the transport id the link is dialled on
     * @throws PunchFailure {@code adoption-refused} (peer already connected, no free adoption slot, node not
     *                      running) or {@code adoption-failed} (a socket call failed), naming why
     */
    int adopt(String npub, TraversalSocket socket, InetSocketAddress remote) throws PunchFailure;

    /**
     * @param transportId a transport id
     * @return the peer whose punched socket that transport holds now, or empty (not an adoption slot, or vacant)
     */
    default Optional<String> peerOn(final int transportId) {
        return Optional.empty();
    }
}
