package net.fips.control.ble;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;

import org.freedesktop.dbus.DBusPath;
import org.freedesktop.dbus.connections.impl.DBusConnection;
import org.freedesktop.dbus.connections.impl.DBusConnectionBuilder;
import org.freedesktop.dbus.exceptions.DBusException;
import org.freedesktop.dbus.exceptions.DBusExecutionException;
import org.freedesktop.dbus.interfaces.ObjectManager;
import org.freedesktop.dbus.interfaces.Properties;
import org.freedesktop.dbus.types.Variant;

import net.fips.control.ble.dbus.Adapter1;
import net.fips.control.ble.dbus.FipsAdvertisement;
import net.fips.control.ble.dbus.LEAdvertisingManager1;

/**
 * {@link BlueZ} over D-Bus with dbus-java (its JDK unix-socket transport): the calls of transports.md §5.8 on the
 * service {@code org.bluez}, normally on the system bus. Device objects are cached from {@code GetManagedObjects}
 * and {@code InterfacesAdded}, and {@code PropertiesChanged} is merged into the cache, so a device whose
 * {@code UUIDs} arrive later is still reported once they include the FIPS UUID.
 */
public final class DbusBlueZ implements BlueZ {
    /** The BlueZ service name. */
    public static final String SERVICE = "org.bluez";
    static final String ADAPTER_IFACE = "org.bluez.Adapter1";
    static final String DEVICE_IFACE = "org.bluez.Device1";
    /** Where the advertisement object is exported. */
    public static final String ADVERTISEMENT_PATH = "/net/fips/ble/advertisement0";

    private final DBusConnection conn;
    private final Map<String, Map<String, Object>> deviceProps = new ConcurrentHashMap<>();
    private final List<AutoCloseable> subscriptions = new ArrayList<>();
    private FipsAdvertisement advertisement;

    private DbusBlueZ(final DBusConnection conn) {
        this.conn = conn;
    }

    /**
     * @return a client on the system bus ({@code DBUS_SYSTEM_BUS_ADDRESS} or {@code /run/dbus/system_bus_socket})
     * @throws BlueZException when the bus cannot be reached
     */
    public static DbusBlueZ systemBus() throws BlueZException {
        try {
            return new DbusBlueZ(DBusConnectionBuilder.forSystemBus().withShared(false).build());
        } catch (final DBusException | RuntimeException e) {
            throw new BlueZException("cannot connect to the D-Bus system bus: " + e.getMessage(), e);
        }
    }

    /**
     * @param address a D-Bus address such as {@code unix:path=/tmp/bus}
     * @return a client on that bus (tests run a private bus with a mock BlueZ)
     */
    public static DbusBlueZ atAddress(final String address) throws BlueZException {
        try {
            return new DbusBlueZ(DBusConnectionBuilder.forAddress(address).withShared(false).build());
        } catch (final DBusException | RuntimeException e) {
            throw new BlueZException("cannot connect to D-Bus at " + address + ": " + e.getMessage(), e);
        }
    }

    private Map<DBusPath, Map<String, Map<String, Variant<?>>>> managedObjects() throws BlueZException {
        try {
            return conn.getRemoteObject(SERVICE, "/", ObjectManager.class).GetManagedObjects();
        } catch (final DBusException | DBusExecutionException e) {
            throw new BlueZException("BlueZ GetManagedObjects failed (is bluetoothd running?): " + e.getMessage(), e);
        }
    }

    @Override
    public Optional<Adapter> adapter(final String name) throws BlueZException {
        final List<Adapter> found = new ArrayList<>();
        for (final Map.Entry<DBusPath, Map<String, Map<String, Variant<?>>>> e : managedObjects().entrySet()) {
            final Map<String, Variant<?>> a = e.getValue().get(ADAPTER_IFACE);
            if (a == null) {
                continue;
            }
            final String path = e.getKey().getPath();
            final String n = path.substring(path.lastIndexOf('/') + 1);
            found.add(new Adapter(path, n, upper(value(a, "Address")), Boolean.TRUE.equals(value(a, "Powered"))));
        }
        found.sort((x, y) -> x.path().compareTo(y.path()));
        if ("default".equals(name)) {
            return found.stream().findFirst();
        }
        return found.stream().filter(a -> a.name().equals(name)).findFirst();
    }

    @Override
    public void powerOn(final Adapter adapter) throws BlueZException {
        try {
            conn.getRemoteObject(SERVICE, adapter.path(), Properties.class).Set(ADAPTER_IFACE, "Powered", Boolean.TRUE);
        } catch (final DBusException | DBusExecutionException e) {
            throw new BlueZException("cannot power on " + adapter.name() + ": " + e.getMessage(), e);
        }
    }

    @Override
    public List<Device> devices(final Adapter adapter) throws BlueZException {
        final List<Device> out = new ArrayList<>();
        for (final Map.Entry<DBusPath, Map<String, Map<String, Variant<?>>>> e : managedObjects().entrySet()) {
            final Map<String, Variant<?>> d = e.getValue().get(DEVICE_IFACE);
            if (d != null && e.getKey().getPath().startsWith(adapter.path() + "/")) {
                final Map<String, Object> props = unwrap(d);
                deviceProps.put(e.getKey().getPath(), props);
                out.add(device(e.getKey().getPath(), props));
            }
        }
        return out;
    }

    @Override
    public void removeDevice(final Adapter adapter, final Device device) throws BlueZException {
        try {
            adapter1(adapter).RemoveDevice(new DBusPath(device.path()));
            deviceProps.remove(device.path());
        } catch (final DBusException | DBusExecutionException e) {
            throw new BlueZException("RemoveDevice " + device.path() + " failed: " + e.getMessage(), e);
        }
    }

    @Override
    public void startScan(final Adapter adapter, final Consumer<Device> onDevice) throws BlueZException {
        final String prefix = adapter.path() + "/";
        try {
            subscriptions.add(conn.addSigHandler(ObjectManager.InterfacesAdded.class, s -> {
                final String path = s.getSignalSource().getPath();
                final Map<String, Variant<?>> d = s.getInterfaces().get(DEVICE_IFACE);
                if (d != null && path.startsWith(prefix)) {
                    final Map<String, Object> props = unwrap(d);
                    deviceProps.put(path, props);
                    onDevice.accept(device(path, props));
                }
            }));
            subscriptions.add(conn.addSigHandler(Properties.PropertiesChanged.class, s -> {
                final String path = s.getPath();
                if (path == null || !path.startsWith(prefix) || !DEVICE_IFACE.equals(s.getInterfaceName())) {
                    return;
                }
                final Map<String, Object> props = deviceProps.computeIfAbsent(path, k -> new ConcurrentHashMap<>());
                props.putAll(unwrap(s.getPropertiesChanged()));
                onDevice.accept(device(path, props));
            }));
            final Adapter1 a = adapter1(adapter);
            a.SetDiscoveryFilter(Map.of("Transport", new Variant<>("le"),
                    "UUIDs", new Variant<>(List.of(FIPS_SERVICE_UUID), "as")));
            a.StartDiscovery();
        } catch (final DBusException | DBusExecutionException e) {
            throw new BlueZException("cannot start LE discovery on " + adapter.name() + ": " + e.getMessage(), e);
        }
    }

    @Override
    public void stopScan(final Adapter adapter) throws BlueZException {
        closeSubscriptions();
        try {
            adapter1(adapter).StopDiscovery();
        } catch (final DBusException | DBusExecutionException e) {
            throw new BlueZException("StopDiscovery on " + adapter.name() + " failed: " + e.getMessage(), e);
        }
    }

    @Override
    public void advertise(final Adapter adapter) throws BlueZException {
        try {
            final FipsAdvertisement adv = new FipsAdvertisement(ADVERTISEMENT_PATH, FIPS_SERVICE_UUID, "fips");
            conn.exportObject(ADVERTISEMENT_PATH, adv);
            advertisement = adv;
            conn.getRemoteObject(SERVICE, adapter.path(), LEAdvertisingManager1.class)
                    .RegisterAdvertisement(new DBusPath(ADVERTISEMENT_PATH), Map.of());
        } catch (final DBusException | DBusExecutionException e) {
            throw new BlueZException("RegisterAdvertisement on " + adapter.name() + " failed: " + e.getMessage(), e);
        }
    }

    @Override
    public void stopAdvertising(final Adapter adapter) throws BlueZException {
        if (advertisement == null) {
            return;
        }
        try {
            conn.getRemoteObject(SERVICE, adapter.path(), LEAdvertisingManager1.class)
                    .UnregisterAdvertisement(new DBusPath(ADVERTISEMENT_PATH));
        } catch (final DBusException | DBusExecutionException e) {
            throw new BlueZException("UnregisterAdvertisement on " + adapter.name() + " failed: " + e.getMessage(), e);
        } finally {
            conn.unExportObject(ADVERTISEMENT_PATH);
            advertisement = null;
        }
    }

    /** @return this client's unique bus name (where BlueZ finds the exported advertisement) */
    String uniqueName() {
        return conn.getUniqueName();
    }

    /** @return the exported advertisement, or null when not advertising */
    FipsAdvertisement advertisement() {
        return advertisement;
    }

    @Override
    public void close() {
        closeSubscriptions();
        try {
            conn.close();
        } catch (final IOException ignored) {
            // closing: nothing left to tell
        }
    }

    private void closeSubscriptions() {
        for (final AutoCloseable c : subscriptions) {
            try {
                c.close();
            } catch (final Exception ignored) {
                // the connection may already be gone
            }
        }
        subscriptions.clear();
    }

    private Adapter1 adapter1(final Adapter adapter) throws DBusException {
        return conn.getRemoteObject(SERVICE, adapter.path(), Adapter1.class);
    }

    private static Object value(final Map<String, Variant<?>> m, final String key) {
        final Variant<?> v = m.get(key);
        return v == null ? null : v.getValue();
    }

    private static Map<String, Object> unwrap(final Map<String, Variant<?>> m) {
        final Map<String, Object> out = new ConcurrentHashMap<>();
        m.forEach((k, v) -> {
            if (v != null && v.getValue() != null) {
                out.put(k, v.getValue());
            }
        });
        return out;
    }

    static Device device(final String path, final Map<String, Object> p) {
        final List<String> uuids = new ArrayList<>();
        final Object u = p.get("UUIDs");
        if (u instanceof List<?> list) {
            list.forEach(x -> uuids.add(String.valueOf(x).toLowerCase(Locale.ROOT)));
        } else if (u instanceof Object[] arr) {
            for (final Object x : arr) {
                uuids.add(String.valueOf(x).toLowerCase(Locale.ROOT));
            }
        }
        final Object rssi = p.get("RSSI");
        return new Device(path, upper(p.get("Address")), "random".equals(p.get("AddressType")), List.copyOf(uuids),
                rssi instanceof Number n ? n.intValue() : null);
    }

    private static String upper(final Object s) {
        return s == null ? "" : String.valueOf(s).toUpperCase(Locale.ROOT);
    }
}
