package net.fips.control.node;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.HexFormat;
import java.util.List;
import java.util.Optional;

import org.junit.jupiter.api.Test;

import net.fips.control.config.ConfigException;
import net.fips.control.config.NodeConfig;
import net.fips.dataplane.transport.Transport;
import net.fips.dataplane.engine.ThreadingMode;

/** Settings the node derives from its config. */
class NodeSettingsTest {
    private static NodeConfig node(final String yaml) throws ConfigException {
        return NodeTestSupport.load(yaml).config().node();
    }

    @Test
    void defaultWorkersAreHalfTheProcessorsWithinOneToSixteen() {
        assertEquals(1, NodeSettings.defaultWorkers(1));
        assertEquals(1, NodeSettings.defaultWorkers(2));
        assertEquals(2, NodeSettings.defaultWorkers(4));
        assertEquals(4, NodeSettings.defaultWorkers(9));
        assertEquals(16, NodeSettings.defaultWorkers(64));
    }

    @Test
    void thePacketPoolIsSizedFromBuffersPacketChannel() throws ConfigException {
        assertEquals(2048, NodeSettings.poolSlots(node("node: {}"), 1, 1), "twice the reference's 1024");
        assertEquals(8192, NodeSettings.poolSlots(node("node: { buffers: { packet_channel: 4096 } }"), 1, 1));
        // Never below two receive batches (32) per transport and per worker, twice.
        assertEquals(2 * 32 * (1 + 2), NodeSettings.poolSlots(node("node: { buffers: { packet_channel: 1 } }"), 1, 1));
        assertEquals(2 * 32 * (3 + 8), NodeSettings.poolSlots(node("node: { buffers: { packet_channel: 1 } }"), 3, 4));
        assertEquals(5 * 1024, NodeSettings.poolSlots(node("node: {}"), 1, 4), "one packet channel per worker + 1");
        assertEquals(1 << 22, NodeSettings.poolSlots(
                node("node: { buffers: { packet_channel: 2147483647 } }"), 1, 1), "capped at the pool's maximum");
    }

    /** A transport of some type on some interface; nothing else is used. */
    private record FakeTransport(String typeName, String interfaceName) implements StubTransport {
        @Override
        public boolean connectionOriented() {
            return false;
        }

        @Override
        public boolean reliable() {
            return false;
        }
    }

    @Test
    void anEthernetAddressPicksTheInstanceOnItsInterface() {
        final List<Transport> ts = List.of(new FakeTransport("udp", null), new FakeTransport("ethernet", "eth0"),
                new FakeTransport("ethernet", "eth1"));
        final NodeSettings.Dial d = NodeSettings.ethernetDial("eth1/02:00:5e:00:00:0a", ts);
        assertEquals(2, d.transportId());
        assertArrayEquals(HexFormat.of().parseHex("02005e00000a"), d.address().bytes(), "6 raw MAC bytes");
        final IllegalArgumentException none = assertThrows(IllegalArgumentException.class,
                () -> NodeSettings.ethernetDial("eth2/02:00:5e:00:00:0a", ts));
        assertTrue(none.getMessage().contains("no ethernet transport of this node on interface eth2"),
                none.getMessage());
        assertThrows(IllegalArgumentException.class, () -> NodeSettings.ethernetDial("02:00:5e:00:00:0a", ts));
        assertThrows(IllegalArgumentException.class, () -> NodeSettings.ethernetDial("eth0/ff:ff:ff:ff:ff:ff", ts));
    }

    @Test
    void autoThreadingIsCompactWithOneWorkerAndTheEnvironmentWins() {
        final Optional<NodeConfig.Threading> none = Optional.empty();
        // one worker (fewer than four processors): compact, as the quiet-machine runs favour (docs/benchmarks.md)
        assertEquals(ThreadingMode.COMPACT,
                NodeSettings.threading(NodeConfig.Threading.AUTO, none, 1).mode());
        assertEquals(ThreadingMode.DEDICATED,
                NodeSettings.threading(NodeConfig.Threading.AUTO, none, 2).mode());
        assertEquals(ThreadingMode.DEDICATED,
                NodeSettings.threading(NodeConfig.Threading.DEDICATED, none, 1).mode());
        assertEquals(ThreadingMode.COMPACT,
                NodeSettings.threading(NodeConfig.Threading.COMPACT, none, 8).mode());
        final NodeSettings.Threading env = NodeSettings.threading(NodeConfig.Threading.DEDICATED,
                Optional.of(NodeConfig.Threading.COMPACT), 1);
        assertEquals(ThreadingMode.COMPACT, env.mode());
        assertEquals("FIPS_DATAPLANE_THREADING: compact", env.reason());
        assertEquals("node.dataplane.threading: auto, 1 worker(s)",
                NodeSettings.threading(NodeConfig.Threading.AUTO, none, 1).reason());
    }
}
