package net.fips.testing;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.channels.DatagramChannel;

import org.junit.jupiter.api.Test;

/** The ports handed out are real, unprivileged and free again once handed out. */
class FreePortsTest {
    @Test
    void theUdpPortCanBeBoundOnLoopback() throws Exception {
        final int port = FreePorts.udp();
        assertTrue(port >= 1024 && port <= 65_535, "port " + port);
        try (DatagramChannel ch = DatagramChannel.open()) {
            ch.bind(new InetSocketAddress("127.0.0.1", port));
            assertEquals(port, ((InetSocketAddress) ch.getLocalAddress()).getPort());
        }
    }

    @Test
    void theTcpPortCanBeBoundOnLoopback() throws Exception {
        final int port = FreePorts.tcp();
        assertTrue(port >= 1024 && port <= 65_535, "port " + port);
        try (ServerSocket s = new ServerSocket(port, 1, InetAddress.getLoopbackAddress())) {
            assertEquals(port, s.getLocalPort());
        }
    }
}
