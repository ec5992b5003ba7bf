package net.fips.control.node;

import static net.fips.control.node.NodeTestSupport.load;
import static net.fips.control.node.NodeTestSupport.yaml;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.nio.file.Files;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.api.Assumptions;

import net.fips.control.identity.NodeIdentity;
import net.fips.dataplane.ble.L2capProbe;
import net.fips.testing.FreePorts;

/** A node with a {@code transports.ble} block starts and runs without Bluetooth, saying once why BLE is skipped. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class NodeBleTest {
    @TempDir
    Path dir;

    private List<String> startWithBle(final NodeOptions options) throws Exception {
        final List<String> outcomes = new CopyOnWriteArrayList<>();
        final String y = yaml(NodeIdentity.generate(), FreePorts.udp(), dir.resolve("n.sock"), "")
                .replace("transports:\n", "transports:\n  ble: { adapter: hci0 }\n");
        try (Node n = Node.start(load(y), options.aclDirectory(dir.resolve("none")).bleOutcomes(outcomes::add))) {
            assertEquals(1, n.transports().size(), "the UDP transport still runs, BLE was not added");
        }
        return outcomes;
    }

    @Test
    void withoutKernelBluetoothTheInstanceIsSkippedOnce() throws Exception {
        final List<String> out = startWithBle(new NodeOptions().l2capProbe(() -> L2capProbe.NO_KERNEL_SUPPORT));
        assertEquals(List.of("ble: no Bluetooth on this host (AF_BLUETOOTH unsupported by the kernel)"), out);
    }

    /** The real probe: on this machine's kernel (no CONFIG_BT) it is the same line; elsewhere BlueZ is asked. */
    @Test
    void theRealProbeNeverStopsTheNode() throws Exception {
        final List<String> out = startWithBle(new NodeOptions());
        assertEquals(1, out.size());
        if (L2capProbe.run().noKernel()) {
            assertEquals("ble: no Bluetooth on this host (AF_BLUETOOTH unsupported by the kernel)", out.get(0));
        }
    }

    @Test
    void withKernelSupportButNoBluezTheAdapterIsMissing() throws Exception {
        // no system bus here (or no bluetoothd): the instance is skipped with "no adapter", the node runs
        Assumptions.assumeTrue(!Files.exists(Path.of("/run/dbus/system_bus_socket"))
                && System.getenv("DBUS_SYSTEM_BUS_ADDRESS") == null, "a system bus exists on this host");
        final List<String> out = startWithBle(new NodeOptions().l2capProbe(() -> L2capProbe.AVAILABLE));
        assertEquals(1, out.size());
        assertTrue(out.get(0).startsWith("ble: no adapter: cannot connect to the D-Bus system bus"), out.get(0));
    }
}
