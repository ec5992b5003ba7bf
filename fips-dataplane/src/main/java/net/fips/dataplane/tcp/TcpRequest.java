package net.fips.dataplane.tcp;

import net.fips.dataplane.transport.TransportAddr;

/**
 * A request from another thread for a {@link TcpTransport}'s loop: connect or close {@code address}, or (from a
 * look-up thread) the outcome of a name look-up for it: {@code resolved} to open, or {@code lookupError}.
 */
record TcpRequest(boolean connect, TransportAddr address, TransportAddr resolved, String lookupError) {
    TcpRequest(final boolean connect, final TransportAddr address) {
        this(connect, address, null, null);
    }

    /** @return whether this is a look-up's outcome */
    boolean lookupDone() {
        return resolved != null || lookupError != null;
    }
}
