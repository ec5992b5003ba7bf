package net.fips.control.ble.dbus;

import org.freedesktop.dbus.annotations.DBusInterfaceName;
import org.freedesktop.dbus.interfaces.DBusInterface;

/** The advertisement object this node exports for BlueZ ({@code org.bluez.LEAdvertisement1}). */
@DBusInterfaceName("org.bluez.LEAdvertisement1")
public interface LEAdvertisement1 extends DBusInterface {
    /** BlueZ's notice that it dropped the advertisement (adapter gone, or bluetoothd stopping). */
    void Release();
}
