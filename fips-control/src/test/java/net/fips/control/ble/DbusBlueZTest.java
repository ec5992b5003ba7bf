package net.fips.control.ble;

import static net.fips.control.ble.MockBluez.DEADLINE;
import static net.fips.testing.Await.until;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.Locale;

import org.freedesktop.dbus.DBusPath;
import org.freedesktop.dbus.interfaces.Properties;
import org.freedesktop.dbus.types.Variant;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import net.fips.control.ble.dbus.DBusMockControl;
import net.fips.control.ble.dbus.FipsAdvertisement;

/**
 * {@link DbusBlueZ} against python-dbusmock's bluez5 template on a private bus: the D-Bus calls of
 * transports.md §5.8 (adapter lookup, power, cache clearing, LE discovery filter, start/stop, device signals,
 * advertisement export and registration).
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class DbusBlueZTest {
    private MockBluez mock;
    private DbusBlueZ bluez;

    @BeforeEach
    void start() throws Exception {
        mock = MockBluez.start();
        mock.bluezMock().AddAdapter("hci0", "fips-test");
        bluez = DbusBlueZ.atAddress(mock.address);
    }

    @AfterEach
    void stop() {
        if (bluez != null) {
            bluez.close();
        }
        if (mock != null) {
            mock.close();
        }
    }

    private Properties props(final String path) throws Exception {
        return mock.conn.getRemoteObject("org.bluez", path, Properties.class);
    }

    @Test
    void findsAdaptersByNameAndTheDefault() throws Exception {
        mock.bluezMock().AddAdapter("hci1", "second");
        final BlueZ.Adapter a = bluez.adapter("hci0").orElseThrow();
        assertEquals("/org/bluez/hci0", a.path());
        assertEquals("hci0", a.name());
        assertEquals("00:01:02:03:04:05", a.address());
        assertTrue(a.powered());
        assertEquals("01:02:03:04:05:06", bluez.adapter("hci1").orElseThrow().address());
        assertEquals("hci0", bluez.adapter("default").orElseThrow().name());
        assertTrue(bluez.adapter("hci7").isEmpty());
    }

    @Test
    void powersTheAdapterOn() throws Exception {
        props("/org/bluez/hci0").Set("org.bluez.Adapter1", "Powered", Boolean.FALSE);
        final BlueZ.Adapter off = bluez.adapter("hci0").orElseThrow();
        assertFalse(off.powered());
        bluez.powerOn(off);
        assertEquals(Boolean.TRUE, props("/org/bluez/hci0").Get("org.bluez.Adapter1", "Powered"));
    }

    @Test
    void listsAndRemovesCachedDevices() throws Exception {
        mock.bluezMock().AddDevice("hci0", "11:22:33:44:55:66", "old");
        final BlueZ.Adapter a = bluez.adapter("hci0").orElseThrow();
        final List<BlueZ.Device> cached = bluez.devices(a);
        assertEquals(1, cached.size());
        final BlueZ.Device d = cached.get(0);
        assertEquals("11:22:33:44:55:66", d.address());
        assertEquals("/org/bluez/hci0/dev_11_22_33_44_55_66", d.path());
        assertFalse(d.randomAddress());
        assertEquals(-79, d.rssi());
        assertFalse(d.isFips());
        bluez.removeDevice(a, d);
        assertTrue(bluez.devices(a).isEmpty());
    }

    @Test
    void scanSetsTheLeFilterStartsDiscoveryAndReportsDevicesWhoseUuidsArrive() throws Exception {
        final BlueZ.Adapter a = bluez.adapter("hci0").orElseThrow();
        final List<BlueZ.Device> seen = new CopyOnWriteArrayList<>();
        bluez.startScan(a, seen::add);
        assertEquals(Boolean.TRUE, props(a.path()).Get("org.bluez.Adapter1", "Discovering"));
        final Map<?, ?> filter = props(a.path()).Get("org.bluez.Adapter1", "DiscoveryFilter");
        assertEquals("le", unwrap(filter.get("Transport")));
        assertEquals(List.of(BlueZ.FIPS_SERVICE_UUID), List.copyOf((List<?>) unwrap(filter.get("UUIDs"))));

        final String path = mock.bluezMock().AddDevice("hci0", "AA:BB:CC:DD:EE:01", "peer");
        until(DEADLINE, () -> seen.stream().anyMatch(d -> d.path().equals(path)), () -> "InterfacesAdded for " + path);
        assertFalse(seen.get(seen.size() - 1).isFips(), "no UUIDs yet");
        mock.mockAt(path).UpdateProperties("org.bluez.Device1", Map.of("UUIDs",
                new Variant<>(List.of(BlueZ.FIPS_SERVICE_UUID.toUpperCase(Locale.ROOT)), "as"),
                "AddressType", new Variant<>("random")));
        until(DEADLINE, () -> seen.stream().anyMatch(BlueZ.Device::isFips),
                () -> "PropertiesChanged with the FIPS UUID");
        final BlueZ.Device fips = seen.stream().filter(BlueZ.Device::isFips).findFirst().orElseThrow();
        assertEquals("AA:BB:CC:DD:EE:01", fips.address(), "address kept from InterfacesAdded");
        assertTrue(fips.randomAddress());

        bluez.stopScan(a);
        assertEquals(Boolean.FALSE, props(a.path()).Get("org.bluez.Adapter1", "Discovering"));
    }

    private static Object unwrap(final Object o) {
        return o instanceof Variant<?> v ? v.getValue() : o;
    }

    @Test
    void exportsAndRegistersTheAdvertisement() throws Exception {
        // the template has no LEAdvertisingManager1 (transports.md §8.6): add recording no-op methods
        final DBusMockControl adapterMock = mock.mockAt("/org/bluez/hci0");
        adapterMock.AddMethod("org.bluez.LEAdvertisingManager1", "RegisterAdvertisement", "oa{sv}", "", "");
        adapterMock.AddMethod("org.bluez.LEAdvertisingManager1", "UnregisterAdvertisement", "o", "", "");
        final BlueZ.Adapter a = bluez.adapter("hci0").orElseThrow();
        bluez.advertise(a);
        final List<DBusMockControl.Call> reg = adapterMock.GetMethodCalls("RegisterAdvertisement");
        assertEquals(1, reg.size());
        assertEquals(DbusBlueZ.ADVERTISEMENT_PATH, ((DBusPath) reg.get(0).args().get(0).getValue()).getPath());

        // what BlueZ would read back: GetAll on our exported object, from another connection
        final Properties adv = mock.conn.getRemoteObject(bluez.uniqueName(), DbusBlueZ.ADVERTISEMENT_PATH,
                Properties.class);
        final Map<String, Variant<?>> all = adv.GetAll(FipsAdvertisement.INTERFACE);
        assertEquals("peripheral", all.get("Type").getValue());
        assertEquals(List.of(BlueZ.FIPS_SERVICE_UUID), List.copyOf((List<?>) all.get("ServiceUUIDs").getValue()));
        assertEquals("fips", all.get("LocalName").getValue());
        assertEquals(400L, ((Number) all.get("MinInterval").getValue()).longValue());
        assertEquals(600L, ((Number) all.get("MaxInterval").getValue()).longValue());

        bluez.stopAdvertising(a);
        assertEquals(1, adapterMock.GetMethodCalls("UnregisterAdvertisement").size());
    }

    @Test
    void aBusWithoutBluezIsAClearError() throws Exception {
        try (MockBluez bare = MockBluez.busOnly(); DbusBlueZ none = DbusBlueZ.atAddress(bare.address)) {
            final BlueZException e = assertThrows(BlueZException.class, () -> none.adapter("hci0"));
            assertTrue(e.getMessage().contains("GetManagedObjects"), e.getMessage());
        }
    }
}
