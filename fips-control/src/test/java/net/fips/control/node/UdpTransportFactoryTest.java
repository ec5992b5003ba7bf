package net.fips.control.node;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

import net.fips.control.config.ConfigException;
import net.fips.control.config.FipsConfig;
import net.fips.dataplane.transport.Transport;
import net.fips.dataplane.udp.UdpTransport;

/** The node's UDP transports ask for UDP GRO unless {@code node.dataplane.udp_gro} is false (ADR 0067). */
class UdpTransportFactoryTest {
    private static final String UDP = "transports:\n  udp:\n    bind_addr: \"127.0.0.1:0\"\npeers: []\n";

    private static UdpTransport open(final String yaml) throws ConfigException, NodeStartException {
        final FipsConfig cfg = NodeTestSupport.load(yaml).config();
        final TransportFactory.Opened opened = new UdpTransportFactory().open(cfg, new NodeOptions());
        assertEquals(1, opened.transports().size());
        final Transport t = opened.transports().getFirst();
        return (UdpTransport) t;
    }

    @Test
    void groIsOnByDefault() throws Exception {
        try (UdpTransport t = open(UDP)) {
            assertTrue(t.groActive(), t.groProblem());
        }
    }

    @Test
    void udpGroFalseLeavesItOffAndSaysWhy() throws Exception {
        try (UdpTransport t = open("node:\n  dataplane:\n    udp_gro: false\n" + UDP)) {
            assertFalse(t.groActive());
            assertNotNull(t.groProblem());
        }
    }
}
