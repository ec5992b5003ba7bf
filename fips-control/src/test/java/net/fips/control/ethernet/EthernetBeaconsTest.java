package net.fips.control.ethernet;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.Arrays;

import org.junit.jupiter.api.Test;

import net.fips.control.config.EthernetAddress;
import net.fips.control.config.EthernetConfig;
import net.fips.control.identity.NodeIdentity;
import net.fips.dataplane.ethernet.DiscoveredBeacon;

/** Beacon cadence, the discovery flags and key checks (transports.md §1.6, §4.4) on a manual clock. */
class EthernetBeaconsTest {
    private static final long S = TimeUnit.SECONDS.toNanos(1);
    private final NodeIdentity self = NodeIdentity.generate();
    private final NodeIdentity other = NodeIdentity.generate();

    /** A fake transport: counts beacons, fails while {@code failing}, hands out queued discoveries. */
    private static final class FakeMedium implements EthernetBeacons.Medium {
        final List<Long> sentAt = new ArrayList<>();
        final List<DiscoveredBeacon> queued = new ArrayList<>();
        long now;
        boolean failing;

        @Override
        public int sendBeacon() {
            if (failing) {
                return 6;   // ENXIO
            }
            sentAt.add(now);
            return 0;
        }

        @Override
        public List<DiscoveredBeacon> drainBeacons() {
            final List<DiscoveredBeacon> out = List.copyOf(queued);
            queued.clear();
            return out;
        }
    }

    private static EthernetConfig config(final boolean announce, final boolean autoConnect, final long interval) {
        return new EthernetConfig(Optional.empty(), "fe0", 0x2121, Optional.empty(), 1 << 21, 1 << 21, true,
                announce, autoConnect, false, interval);
    }

    private static List<Long> runTicks(final EthernetBeacons b, final FakeMedium m, final int seconds) {
        for (int t = 0; t <= seconds; t++) {
            m.now = t * S;
            b.tick(m.now);
        }
        return m.sentAt;
    }

    @Test
    void announcesAtStartThenEveryInterval() {
        final FakeMedium m = new FakeMedium();
        final EthernetBeacons b = new EthernetBeacons(config(true, false, 30), m, self.publicKey());
        assertEquals(List.of(0L, 30 * S, 60 * S, 90 * S), runTicks(b, m, 100));
        assertEquals(4, b.beaconsSent());
    }

    @Test
    void intervalBelowTenIsRaisedToTen() {
        final FakeMedium m = new FakeMedium();
        final EthernetBeacons b = new EthernetBeacons(config(true, false, 1), m, self.publicKey());
        assertEquals(10 * S, b.intervalNanos());
        assertEquals(List.of(0L, 10 * S, 20 * S), runTicks(b, m, 25));
    }

    @Test
    void withoutAnnounceNothingIsSent() {
        final FakeMedium m = new FakeMedium();
        final EthernetBeacons b = new EthernetBeacons(config(false, true, 30), m, self.publicKey());
        assertEquals(List.of(), runTicks(b, m, 100));
    }

    @Test
    void aFailedBeaconIsRetriedAtTheNextTick() {
        final FakeMedium m = new FakeMedium();
        final EthernetBeacons b = new EthernetBeacons(config(true, false, 30), m, self.publicKey());
        m.failing = true;
        b.tick(0);
        b.tick(S);
        m.failing = false;
        m.now = 2 * S;
        b.tick(2 * S);
        assertEquals(List.of(2 * S), m.sentAt);
        assertEquals(2, b.beaconFailures());
        m.now = 31 * S;
        b.tick(31 * S);
        assertEquals(List.of(2 * S), m.sentAt, "the interval counts from the successful send");
        m.now = 32 * S;
        b.tick(32 * S);
        assertEquals(List.of(2 * S, 32 * S), m.sentAt);
    }

    @Test
    void withoutAutoConnectDiscoveriesAreDrainedAndDiscarded() {
        final FakeMedium m = new FakeMedium();
        final EthernetBeacons b = new EthernetBeacons(config(false, false, 30), m, self.publicKey());
        m.queued.add(new DiscoveredBeacon(0x0200_0000_0001L, other.publicKey(), 0));
        assertEquals(List.of(), b.tick(0));
        assertTrue(m.queued.isEmpty(), "drained");
        assertEquals(1, b.discarded());
        assertFalse(b.autoConnect());
        assertFalse(b.acceptConnections(), "accept_connections defaults to false for Ethernet");
    }

    @Test
    void withAutoConnectValidKeysOfOthersBecomePeers() {
        final FakeMedium m = new FakeMedium();
        final EthernetBeacons b = new EthernetBeacons(config(false, true, 30), m, self.publicKey());
        final byte[] notOnCurve = new byte[32];
        notOnCurve[31] = 5;   // x = 5: 5^3 + 7 = 132 is not a square mod p
        m.queued.add(new DiscoveredBeacon(0x0200_0000_0001L, other.publicKey(), 0));
        m.queued.add(new DiscoveredBeacon(0x0200_0000_0002L, self.publicKey(), 0));
        m.queued.add(new DiscoveredBeacon(0x0200_0000_0003L, notOnCurve, 0));
        final byte[] aboveP = new byte[32];
        Arrays.fill(aboveP, (byte) 0xff);
        m.queued.add(new DiscoveredBeacon(0x0200_0000_0004L, aboveP, 0));
        final List<DiscoveredPeer> peers = b.tick(0);
        assertEquals(1, peers.size(), peers.toString());
        assertEquals(new EthernetAddress("fe0", 0x0200_0000_0001L), peers.get(0).address());
        assertEquals("fe0/02:00:00:00:00:01", peers.get(0).address().toString());
        assertEquals(other.publicKey().length, peers.get(0).identity().publicKey().length);
        assertTrue(Arrays.equals(other.publicKey(), peers.get(0).identity().publicKey()));
        assertEquals(1, b.selfHeard());
        assertEquals(2, b.invalidKeys());
        assertEquals(1, b.discovered());
    }

    @Test
    void addressText() {
        assertEquals(new EthernetAddress("eth0", 0xaabb_ccdd_eeffL), EthernetAddress.parse("eth0/aa:bb:cc:dd:ee:ff"));
        for (final String bad : new String[] {"eth0", "/aa:bb:cc:dd:ee:ff", "eth0/aa:bb", "a/b/aa:bb:cc:dd:ee:ff",
                "eth0/ff:ff:ff:ff:ff:ff", "sixteen-chars-xx/aa:bb:cc:dd:ee:00"}) {
            final IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                    () -> EthernetAddress.parse(bad), bad);
            assertTrue(e.getMessage().contains(bad), e.getMessage());
        }
    }
}
