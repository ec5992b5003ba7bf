package net.fips.control.nat;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.List;

import net.fips.dataplane.udp.TraversalSocket;

/**
 * The node's {@link NatIo}: a {@link TraversalSocket} bound to {@code 0.0.0.0:0} (or a test's address), STUN with
 * the configured servers and the traversal timeout (2 s each), adoption through the node's {@link NatAdopter}. With
 * {@code share_local_candidates} each attempt also collects its host candidates ({@link LocalCandidates}, paired
 * with the attempt socket's port); without, it has none (the reference's default).
 */
public final class SocketNatIo implements NatIo {
    private final InetSocketAddress bind;
    private final List<String> stunServers;
    private final long stunTimeoutMs;
    private final StunClient stun;
    private final NatAdopter adopter;
    private final LocalCandidates localCandidates;

    /**
     * Without local candidates.
     *
     * @param bind          where each attempt's socket binds ({@code 0.0.0.0:0} in the node)
     * @param stunServers   {@code stun_servers}
     * @param stunTimeoutMs the per-server wait
     * @param stun          the STUN client
     * @param adopter       the node's adoption slots
     */
    public SocketNatIo(final InetSocketAddress bind, final List<String> stunServers, final long stunTimeoutMs,
            final StunClient stun, final NatAdopter adopter) {
        this(bind, stunServers, stunTimeoutMs, stun, adopter, null);
    }

    /**
     * @param bind            where each attempt's socket binds ({@code 0.0.0.0:0} in the node)
     * @param stunServers     {@code stun_servers}
     * @param stunTimeoutMs   the per-server wait
     * @param stun            the STUN client
     * @param adopter         the node's adoption slots
     * @param localCandidates where host candidates come from when {@code share_local_candidates} is on, else null
     */
    public SocketNatIo(final InetSocketAddress bind, final List<String> stunServers, final long stunTimeoutMs,
            final StunClient stun, final NatAdopter adopter, final LocalCandidates localCandidates) {
        this.bind = bind;
        this.stunServers = List.copyOf(stunServers);
        this.stunTimeoutMs = stunTimeoutMs;
        this.stun = stun;
        this.adopter = adopter;
        this.localCandidates = localCandidates;
    }

    @Override
    public Attempt open() throws IOException {
        final TraversalSocket socket = TraversalSocket.open(bind);
        final DatagramPort port = DatagramPort.of(socket);
        final StunClient.Result r;
        final List<InetSocketAddress> locals;
        try {
            locals = localCandidates == null ? List.of() : localCandidates.collect(socket.localAddress().getPort());
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
                return locals;
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
