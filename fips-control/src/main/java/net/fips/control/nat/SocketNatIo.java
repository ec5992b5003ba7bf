package net.fips.control.nat;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.List;

import net.fips.dataplane.udp.TraversalSocket;

/**
 * The node's {@link NatIo}: a {@link TraversalSocket} bound to {@code 0.0.0.0:0} (or a test's address), STUN with
 * the configured servers and the traversal timeout (2 s each), adoption through the node's {@link NatAdopter}. No
 * local candidates ({@code share_local_candidates}, default off, is not implemented yet).
 */
public final class SocketNatIo implements NatIo {
    private final InetSocketAddress bind;
    private final List<String> stunServers;
    private final long stunTimeoutMs;
    private final StunClient stun;
    private final NatAdopter adopter;

    /**
     * @param bind          where each attempt's socket binds ({@code 0.0.0.0:0} in the node)
     * @param stunServers   {@code stun_servers}
     * @param stunTimeoutMs the per-server wait
     * @param stun          the STUN client
     * @param adopter       the node's adoption slots
     */
    public SocketNatIo(final InetSocketAddress bind, final List<String> stunServers, final long stunTimeoutMs,
            final StunClient stun, final NatAdopter adopter) {
        this.bind = bind;
        this.stunServers = List.copyOf(stunServers);
        this.stunTimeoutMs = stunTimeoutMs;
        this.stun = stun;
        this.adopter = adopter;
    }

    @Override
    public Attempt open() throws IOException {
        final TraversalSocket socket = TraversalSocket.open(bind);
        final DatagramPort port = DatagramPort.of(socket);
        final StunClient.Result r;
        try {
            r = stun.discover(port, stunServers, stunTimeoutMs);
        } catch (final RuntimeException e) {
            socket.close();
            throw e;
        }
        return new Attempt() {
            @Override
            public DatagramPort port() {
                return port;
            }

            @Override
            public InetSocketAddress reflexive() {
                return r.reflexive();
            }

            @Override
            public String stunServer() {
                return r.server();
            }

            @Override
            public List<InetSocketAddress> locals() {
                return List.of();
            }

            @Override
            public int adopt(final String npub, final InetSocketAddress remote) throws PunchFailure {
                return adopter.adopt(npub, socket, remote);
            }

            @Override
            public void close() {
                socket.close();
            }
        };
    }
}
