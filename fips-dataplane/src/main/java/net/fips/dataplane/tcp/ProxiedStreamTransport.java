package net.fips.dataplane.tcp;

import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.OptionalLong;

import net.fips.dataplane.transport.ConnectionState;
import net.fips.dataplane.transport.DiscoveredPeer;
import net.fips.dataplane.transport.Transport;
import net.fips.dataplane.transport.TransportAddr;
import net.fips.dataplane.transport.TransportDestination;
import net.fips.dataplane.transport.TransportException;
import net.fips.dataplane.transport.TransportPort;

/**
 * A transport that is the TCP transport with a proxy as its connect step (Tor, Nym): every call goes to the
 * wrapped {@link TcpTransport} (event loop, framing, pool, send path); a subclass adds its own counters to
 * {@link #stats()} and says whether it takes inbound connections. Nothing is discovered and the kernel's drops are
 * not read, as for TCP through a proxy.
 */
public abstract class ProxiedStreamTransport implements Transport {
    /** The stream transport every call goes to. */
    protected final TcpTransport tcp;

    /**
     * @param tcp the opened stream transport, its connector already the proxy's
     */
    protected ProxiedStreamTransport(final TcpTransport tcp) {
        this.tcp = Objects.requireNonNull(tcp, "tcp");
    }

    @Override
    public final String typeName() {
        return tcp.typeName();
    }

    @Override
    public final String instanceName() {
        return tcp.instanceName();
    }

    @Override
    public final State state() {
        return tcp.state();
    }

    @Override
    public final int mtu() {
        return tcp.mtu();
    }

    @Override
    public final int linkMtu(final TransportAddr address) {
        return tcp.mtu();
    }

    @Override
    public final TransportDestination destination(final TransportAddr address) throws TransportException {
        return tcp.destination(address);
    }

    @Override
    public final TransportAddr sourceAddress(final MemorySegment source, final long offset, final int length) {
        return tcp.sourceAddress(source, offset, length);
    }

    @Override
    public final void connect(final TransportAddr address) {
        tcp.connect(address);
    }

    @Override
    public final ConnectionState connectionState(final TransportAddr address) {
        return tcp.connectionState(address);
    }

    @Override
    public final void closeConnection(final TransportAddr address) {
        tcp.closeConnection(address);
    }

    @Override
    public final List<DiscoveredPeer> drainDiscovered() {
        return List.of();
    }

    @Override
    public final OptionalLong kernelDrops() {
        return OptionalLong.empty();
    }

    @Override
    public abstract Map<String, Long> stats();

    @Override
    public final TransportAddr localAddr() {
        return tcp.localAddr();
    }

    @Override
    public final void start(final TransportPort port) throws IOException {
        tcp.start(port);
    }

    @Override
    public final void wakeup() {
        tcp.wakeup();
    }

    @Override
    public final void stop() {
        tcp.stop();
    }

    @Override
    public final void close() {
        tcp.close();
    }
}
