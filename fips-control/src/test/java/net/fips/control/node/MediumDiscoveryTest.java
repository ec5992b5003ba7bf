package net.fips.control.node;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import org.junit.jupiter.api.Test;

import net.fips.control.identity.NodeIdentity;
import net.fips.control.link.LinkConductor.ConnectResult;
import net.fips.dataplane.transport.DiscoveredPeer;
import net.fips.dataplane.transport.TransportAddr;

/**
 * Discovered peers of a BLE-like medium: dialled with auto_connect (valid keys only, not ourselves, capped), dropped
 * without.
 */
class MediumDiscoveryTest {

    /** A transport that only reports discoveries. */
    static final class Medium implements StubTransport {
        final boolean autoConnect;
        final ArrayDeque<List<DiscoveredPeer>> rounds = new ArrayDeque<>();
        int drains;

        Medium(final boolean autoConnect) {
            this.autoConnect = autoConnect;
        }

        @Override
        public List<DiscoveredPeer> drainDiscovered() {
            drains++;
            final List<DiscoveredPeer> r = rounds.poll();
            return r == null ? List.of() : r;
        }

        @Override
        public boolean autoConnect() {
            return autoConnect;
        }

        @Override
        public String typeName() {
            return "ble";
        }
    }

    record Dial(String npub, int transportId, TransportAddr address) {
    }

    private static DiscoveredPeer found(final int id, final String address, final byte[] key) {
        return new DiscoveredPeer(id, TransportAddr.ofText(address), key);
    }

    @Test
    void autoConnectDialsValidKeysOnceCappedPerTick() {
        final NodeIdentity self = NodeIdentity.generate();
        final Medium off = new Medium(false);
        final Medium on = new Medium(true);
        final List<Dial> dials = new ArrayList<>();
        final MediumDiscovery d = new MediumDiscovery(List.of(off, on), self.publicKey(), (peer, id, at) -> {
            dials.add(new Dial(peer.npub(), id, at));
            return ConnectResult.STARTED;
        });
        final NodeIdentity peer = NodeIdentity.generate();
        final byte[] notAPoint = new byte[32];
        Arrays.fill(notAPoint, (byte) 0xFF);          // x >= p: no point
        off.rounds.add(List.of(found(0, "hci0/AA:BB:CC:DD:EE:01", peer.publicKey())));
        on.rounds.add(List.of(
                found(1, "hci0/AA:BB:CC:DD:EE:02", self.publicKey()),    // ourselves
                found(1, "hci0/AA:BB:CC:DD:EE:03", null),                // no hint
                found(1, "hci0/AA:BB:CC:DD:EE:04", notAPoint),
                found(1, "hci0/AA:BB:CC:DD:EE:05", peer.publicKey())));
        d.tick(0);
        assertEquals(List.of(new Dial(peer.npub(), 1, TransportAddr.ofText("hci0/AA:BB:CC:DD:EE:05"))), dials,
                "only the valid stranger on the auto_connect medium");
        assertEquals(1, d.invalidKeys());
        assertEquals(1, off.drains, "the other medium is drained too, and its finds dropped");
        assertTrue(off.rounds.isEmpty());

        dials.clear();
        final List<DiscoveredPeer> many = new ArrayList<>();
        for (int i = 0; i < MediumDiscovery.DIALS_PER_TICK + 3; i++) {
            many.add(found(1, "hci0/AA:BB:CC:DD:EF:" + String.format("%02X", i), NodeIdentity.generate().publicKey()));
        }
        on.rounds.add(many);
        d.tick(1);
        assertEquals(MediumDiscovery.DIALS_PER_TICK, dials.size(), "at most " + MediumDiscovery.DIALS_PER_TICK
                + " dials per transport and tick");
        d.tick(2);
        assertEquals(MediumDiscovery.DIALS_PER_TICK, dials.size(), "nothing new found, nothing dialled");
    }
}
