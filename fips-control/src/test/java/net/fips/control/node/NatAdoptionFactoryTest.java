package net.fips.control.node;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import java.util.List;
import java.util.Optional;

import org.junit.jupiter.api.Test;

import net.fips.control.config.UdpConfig;
import net.fips.dataplane.udp.UdpTransportConfig;

/**
 * Which UDP settings adopted sockets inherit (discovery-gateway.md §2.6, the reference's
 * {@code test_adopted_udp_inherits_mtu_from_{single,named}_primary_config}): the instance named {@code nostr-nat},
 * else the single unnamed one, else the defaults; never the bind address.
 */
class NatAdoptionFactoryTest {
    private static UdpConfig udp(final String name, final int mtu, final boolean accept) {
        return new UdpConfig(Optional.ofNullable(name), "0.0.0.0:2121", mtu, 1 << 20, 1 << 20, false, false,
                Optional.empty(), false, accept);
    }

    @Test
    void theSingleUnnamedInstanceIsInherited() {
        final UdpTransportConfig c = NatAdoptionFactory.inherited(List.of(udp(null, 1400, false)));
        assertEquals(1400, c.mtuBytes());
        assertEquals(1 << 20, c.receiveBufferBytes());
        assertFalse(c.acceptConnections());
        assertEquals("nostr-nat", c.instanceName());
    }

    @Test
    void theInstanceNamedNostrNatWins() {
        final UdpTransportConfig c = NatAdoptionFactory.inherited(List.of(udp(null, 1400, true),
                udp("nostr-nat", 1350, true), udp("other", 1300, true)));
        assertEquals(1350, c.mtuBytes());
    }

    @Test
    void otherwiseTheDefaults() {
        final UdpTransportConfig c = NatAdoptionFactory.inherited(List.of(udp(null, 1400, true),
                udp(null, 1350, true)));
        assertEquals(UdpTransportConfig.MTU_BYTES_DEFAULT, c.mtuBytes());
        assertEquals(UdpTransportConfig.MTU_BYTES_DEFAULT,
                NatAdoptionFactory.inherited(List.of()).mtuBytes());
    }
}
