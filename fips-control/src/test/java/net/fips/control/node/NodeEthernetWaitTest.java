package net.fips.control.node;

import static net.fips.control.node.NodeTestSupport.load;
import static net.fips.control.node.NodeTestSupport.yaml;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.file.Path;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.time.Duration;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import net.fips.control.identity.NodeIdentity;
import net.fips.dataplane.ethernet.EthernetTransport;
import net.fips.dataplane.transport.Transport;
import net.fips.testing.FreePorts;
import net.fips.testing.Await;

/**
 * A node whose Ethernet interface does not exist (yet) starts and runs its other transports; the Ethernet instance
 * waits for the interface ({@code EthernetTransportNamespaceTest} shows it opening once the interface appears),
 * and the node's tick drives its beacons meanwhile.
 * Needs root (an AF_PACKET socket); no interface is created and nothing is sent.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class NodeEthernetWaitTest {
    @TempDir
    Path dir;

    @Test
    void aMissingInterfaceIsWaitedForAndTheNodeRuns() throws Exception {
        assumeTrue("root".equals(System.getProperty("user.name")), "needs root (CAP_NET_RAW for AF_PACKET)");
        final String iface = "fipsnone" + ThreadLocalRandom.current().nextInt(1000, 10000);
        final String y = yaml(NodeIdentity.generate(), FreePorts.udp(), dir.resolve("n.sock"), "")
                .replace("transports:\n",
                        "transports:\n  ethernet:\n    interface: " + iface + "\n    announce: true\n");
        try (Node n = Node.start(load(y), new NodeOptions().aclDirectory(dir.resolve("none")))) {
            assertEquals(2, n.transports().size(), "UDP and the waiting Ethernet instance");
            final EthernetTransport eth = (EthernetTransport) n.transports().stream()
                    .filter(t -> t instanceof EthernetTransport).findFirst().orElseThrow();
            assertTrue(eth.awaitingInterface());
            assertEquals(Transport.State.STARTING, eth.state());
            assertEquals(iface, eth.interfaceName());
            assertTrue(eth.lastReopenProblem().contains("no interface \"" + iface + "\""), eth.lastReopenProblem());
            assertEquals(0L, eth.counters().reopens());
            // The node's tick runs the instance's beacons even now (announce: the first at the first tick); with
            // no socket each attempt fails and is counted.
            Await.until(Duration.ofSeconds(10), () -> eth.counters().beaconSendErrors() >= 1,
                    () -> "no beacon attempt by the node's tick: " + eth.counters());
            assertEquals(0L, eth.counters().beaconsSent());
        }
    }
}
