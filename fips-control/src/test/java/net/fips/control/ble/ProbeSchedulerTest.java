package net.fips.control.ble;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

import org.junit.jupiter.api.Test;

/** The probe rules of transports.md §5.5 on a manual clock. */
class ProbeSchedulerTest {
    private static final long S = 1_000_000_000L;
    private final List<String> probed = new ArrayList<>();
    private final Set<String> connected = new HashSet<>();
    private final ProbeScheduler s = new ProbeScheduler(30 * S, new ProbeScheduler.Sink() {
        @Override
        public boolean isConnected(final String address) {
            return connected.contains(address);
        }

        @Override
        public void probe(final String address, final boolean random) {
            probed.add(address + (random ? "/random" : ""));
        }
    });

    private static BlueZ.Device fips(final String addr) {
        return new BlueZ.Device("/org/bluez/hci0/dev_" + addr.replace(':', '_'), addr, false,
                List.of(BlueZ.FIPS_SERVICE_UUID), -60);
    }

    @Test
    void probesOnceThenCoolsDownThenRetriesFromPending() {
        s.onDevice(fips("AA:00:00:00:00:01"), 0);
        assertEquals(List.of("AA:00:00:00:00:01"), probed);
        s.onDevice(fips("AA:00:00:00:00:01"), 5 * S); // again within the cooldown: no probe, stays pending
        s.tick(29 * S);
        assertEquals(1, probed.size());
        assertEquals(1, s.pendingCount());
        s.tick(30 * S); // the failed probe is retried once its cooldown has passed
        assertEquals(2, probed.size());
        assertEquals(2, s.scanResults());
        assertEquals(2, s.probes());
    }

    @Test
    void aConnectedAddressIsNeitherProbedNorKeptPending() {
        s.onDevice(fips("AA:00:00:00:00:02"), 0);
        connected.add("AA:00:00:00:00:02");
        s.tick(60 * S);
        assertEquals(1, probed.size());
        assertEquals(0, s.pendingCount());
        s.onDevice(fips("AA:00:00:00:00:02"), 90 * S);
        assertEquals(1, probed.size());
    }

    @Test
    void nonFipsDevicesAreIgnoredAndRandomAddressesAreMarked() {
        s.onDevice(new BlueZ.Device("/p", "AA:00:00:00:00:03", false, List.of("0000180f-0000-1000-8000-00805f9b34fb"),
                null), 0);
        assertEquals(0, s.scanResults());
        s.onDevice(new BlueZ.Device("/q", "AA:00:00:00:00:04", true, List.of(BlueZ.FIPS_SERVICE_UUID), null), 0);
        assertEquals(List.of("AA:00:00:00:00:04/random"), probed);
    }

    @Test
    void pendingAndRememberedAddressesStayBounded() {
        for (int i = 0; i < ProbeScheduler.MAX_PENDING + 50; i++) {
            final String a = String.format("BB:00:00:00:%02X:%02X", i >> 8, i & 0xFF);
            s.onDevice(fips(a), 0);
            connected.add(a); // each probe succeeds
        }
        s.tick(S);
        assertEquals(0, s.pendingCount());
        s.tick(31 * S);
        assertEquals(0, s.rememberedCount(), "probe times older than the cooldown are forgotten");
        assertTrue(s.pendingDropped() == 0);
    }
}
