package net.fips.control.node;

import java.lang.foreign.MemorySegment;
import java.util.Map;

import net.fips.dataplane.transport.Transport;
import net.fips.dataplane.transport.TransportAddr;
import net.fips.dataplane.transport.TransportDestination;

/** A transport for tests that use only its name and a few properties: everything else is a trivial default. */
interface StubTransport extends Transport {
    @Override
    default String instanceName() {
        return null;
    }

    @Override
    default State state() {
        return State.UP;
    }

    @Override
    default int mtu() {
        return 1497;
    }

    @Override
    default TransportDestination destination(final TransportAddr address) {
        throw new UnsupportedOperationException();
    }

    @Override
    default TransportAddr sourceAddress(final MemorySegment source, final long offset, final int length) {
        return null;
    }

    @Override
    default boolean acceptConnections() {
        return false;
    }

    @Override
    default Map<String, Long> stats() {
        return Map.of();
    }

    @Override
    default void wakeup() {
    }

    @Override
    default void close() {
    }
}
