package net.fips.control.ble;

import static net.fips.control.ble.MockBluez.DEADLINE;
import static net.fips.testing.Await.until;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.HashSet;

import org.freedesktop.dbus.interfaces.Properties;
import org.freedesktop.dbus.types.Variant;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.freedesktop.dbus.interfaces.ObjectManager;

import net.fips.control.config.BleConfig;

/**
 * The scan/probe loop (transports.md §5.5) against the mock BlueZ, on a manual control clock: cache cleared,
 * advertisement registered, LE discovery started, a FIPS device probed once, cooled down, retried from the pending
 * list; stop withdraws the advertisement and stops discovery.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class BleScanLoopTest {
    private static final long S = 1_000_000_000L;
    private MockBluez mock;
    private final List<String> probed = new CopyOnWriteArrayList<>();
    private final Set<String> connected = ConcurrentHashMap.newKeySet();
    private final ProbeScheduler.Sink sink = new ProbeScheduler.Sink() {
        @Override
        public boolean isConnected(final String address) {
            return connected.contains(address);
        }

        @Override
        public void probe(final String address, final boolean random) {
            probed.add(address);
        }
    };

    @BeforeEach
    void start() throws Exception {
        mock = MockBluez.start();
        mock.bluezMock().AddAdapter("hci0", "fips-test");
        mock.mockAt("/org/bluez/hci0").AddMethod("org.bluez.LEAdvertisingManager1", "RegisterAdvertisement",
                "oa{sv}", "", "");
        mock.mockAt("/org/bluez/hci0").AddMethod("org.bluez.LEAdvertisingManager1", "UnregisterAdvertisement",
                "o", "", "");
    }

    @AfterEach
    void stop() {
        if (mock != null) {
            mock.close();
        }
    }

    private static BleConfig config(final String adapter, final boolean advertise, final boolean scan) {
        final BleConfig d = BleConfig.DEFAULTS;
        return new BleConfig(Optional.empty(), adapter, d.psm(), d.mtu(), d.maxConnections(), d.connectTimeoutMs(),
                advertise, scan, false, true, 30);
    }

    @Test
    void probesAnnouncedFipsDevicesWithCooldownAndRetry() throws Exception {
        final String stale = mock.bluezMock().AddDevice("hci0", "11:22:33:44:55:66", "cached");
        try (BleScanLoop loop = new BleScanLoop(DbusBlueZ.atAddress(mock.address), config("hci0", true, true), sink)) {
            final BlueZ.Adapter a = loop.start();
            assertEquals("00:01:02:03:04:05", a.address());
            assertEquals(1, loop.advertisementsSent());
            assertEquals(1, mock.mockAt("/org/bluez/hci0").GetMethodCalls("RegisterAdvertisement").size());
            final Properties adapterProps = mock.conn.getRemoteObject("org.bluez", a.path(), Properties.class);
            assertEquals(Boolean.TRUE, adapterProps.Get("org.bluez.Adapter1", "Discovering"));
            assertFalse(managed().contains(stale), "the cached device was removed before scanning");

            final String other = mock.bluezMock().AddDevice("hci0", "AA:BB:CC:00:00:09", "not-fips");
            final String peer = mock.bluezMock().AddDevice("hci0", "AA:BB:CC:00:00:01", "fips-peer");
            mock.mockAt(peer).UpdateProperties("org.bluez.Device1",
                    Map.of("UUIDs", new Variant<>(List.of(BlueZ.FIPS_SERVICE_UUID), "as")));
            until(DEADLINE, () -> {
                loop.poll(0);
                return !probed.isEmpty();
            }, () -> "a probe of the FIPS device");
            assertEquals(List.of("AA:BB:CC:00:00:01"), probed);
            assertEquals(1, loop.scheduler().scanResults());

            // BlueZ repeats the device (RSSI update): within the cooldown nothing new is probed
            mock.mockAt(peer).UpdateProperties("org.bluez.Device1", Map.of("RSSI", new Variant<>((short) -50)));
            until(DEADLINE, () -> {
                loop.poll(10 * S);
                return loop.scheduler().scanResults() == 2;
            }, () -> "the repeated announcement");
            assertEquals(1, probed.size());
            loop.poll(29 * S);
            assertEquals(1, probed.size());
            loop.poll(30 * S); // cooldown over, never connected: retried from the pending list
            assertEquals(List.of("AA:BB:CC:00:00:01", "AA:BB:CC:00:00:01"), probed);
            connected.add("AA:BB:CC:00:00:01");
            loop.poll(120 * S);
            assertEquals(2, probed.size());
            assertEquals(0, loop.scheduler().pendingCount());
            assertTrue(managed().contains(other));
        }
        final Properties adapterProps = mock.conn.getRemoteObject("org.bluez", "/org/bluez/hci0", Properties.class);
        assertEquals(Boolean.FALSE, adapterProps.Get("org.bluez.Adapter1", "Discovering"), "close stops discovery");
        assertEquals(1, mock.mockAt("/org/bluez/hci0").GetMethodCalls("UnregisterAdvertisement").size());
    }

    private Set<String> managed() throws Exception {
        final Set<String> paths = new HashSet<>();
        mock.conn.getRemoteObject("org.bluez", "/", ObjectManager.class)
                .GetManagedObjects().keySet().forEach(p -> paths.add(p.getPath()));
        return paths;
    }

    @Test
    void aMissingAdapterIsAClearErrorAndAnUnpoweredOneIsPoweredOn() throws Exception {
        try (BleScanLoop loop = new BleScanLoop(DbusBlueZ.atAddress(mock.address), config("hci3", false, false),
                sink)) {
            final BlueZException e = assertThrows(BlueZException.class, loop::start);
            assertEquals("no adapter hci3 in BlueZ", e.getMessage());
        }
        final Properties p = mock.conn.getRemoteObject("org.bluez", "/org/bluez/hci0", Properties.class);
        p.Set("org.bluez.Adapter1", "Powered", Boolean.FALSE);
        try (BleScanLoop loop = new BleScanLoop(DbusBlueZ.atAddress(mock.address), config("default", false, false),
                sink)) {
            assertEquals("hci0", loop.start().name());
            assertEquals(Boolean.TRUE, p.Get("org.bluez.Adapter1", "Powered"));
            assertFalse(loop.scanning());
            assertEquals(0, loop.advertisementsSent());
        }
    }
}
