package net.fips.control.ble.dbus;

import java.util.Map;

import org.freedesktop.dbus.DBusPath;
import org.freedesktop.dbus.annotations.DBusInterfaceName;
import org.freedesktop.dbus.interfaces.DBusInterface;
import org.freedesktop.dbus.types.Variant;

/** BlueZ's {@code org.bluez.LEAdvertisingManager1} on an adapter object. */
@DBusInterfaceName("org.bluez.LEAdvertisingManager1")
public interface LEAdvertisingManager1 extends DBusInterface {
    /** Registers an exported {@code org.bluez.LEAdvertisement1} object; BlueZ reads it with GetAll. */
    void RegisterAdvertisement(DBusPath advertisement, Map<String, Variant<?>> options);

    /** Withdraws a registered advertisement. */
    void UnregisterAdvertisement(DBusPath advertisement);
}
