package net.fips.control.node;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

import net.fips.control.config.ConfigException;
import net.fips.control.config.NodeConfig;

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
}
