package net.fips.control.ble.dbus;

import java.util.Map;

import org.freedesktop.dbus.DBusPath;
import org.freedesktop.dbus.annotations.DBusInterfaceName;
import org.freedesktop.dbus.interfaces.DBusInterface;
import org.freedesktop.dbus.types.Variant;

/** The members of BlueZ's {@code org.bluez.Adapter1} this node calls (transports.md §5.8). */
@DBusInterfaceName("org.bluez.Adapter1")
@SuppressWarnings("checkstyle:MethodName")
public interface Adapter1 extends DBusInterface {
    /** Starts device discovery with the current filter. */
    void StartDiscovery();

    /** Stops device discovery. */
    void StopDiscovery();

    /** @param filter e.g. {@code {"Transport": "le", "UUIDs": [...]}} */
    void SetDiscoveryFilter(Map<String, Variant<?>> filter);

    /** Removes a cached device object. */
    void RemoveDevice(DBusPath device);
}
