package net.fips.testing;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.channels.DatagramChannel;

/**
 * Loopback ports that were free a moment ago, for a test that must name a port before something binds it (a
 * config file, a daemon's command line). Another process may take the port in between; tests that can bind port 0
 * themselves should.
 */
public final class FreePorts {
    private FreePorts() {
    }

    /**
     * @return a UDP port on 127.0.0.1 that was free a moment ago
     * @throws IOException when no socket could be bound
     */
    public static int udp() throws IOException {
        try (DatagramChannel ch = DatagramChannel.open()) {
            ch.bind(new InetSocketAddress("127.0.0.1", 0));
            return ((InetSocketAddress) ch.getLocalAddress()).getPort();
        }
    }

    /**
     * @return a TCP port on the loopback address that was free a moment ago
     * @throws IOException when no socket could be bound
     */
    public static int tcp() throws IOException {
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return s.getLocalPort();
        }
    }
}
