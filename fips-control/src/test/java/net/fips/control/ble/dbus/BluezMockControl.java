package net.fips.control.ble.dbus;

import org.freedesktop.dbus.annotations.DBusInterfaceName;
import org.freedesktop.dbus.interfaces.DBusInterface;

/** python-dbusmock's bluez5 template control interface ({@code org.bluez.Mock} on {@code /}). */
@DBusInterfaceName("org.bluez.Mock")
public interface BluezMockControl extends DBusInterface {
    /** @return the adapter's path */
    String AddAdapter(String deviceName, String systemName);

    /** @return the device's path */
    String AddDevice(String adapterDeviceName, String deviceAddress, String alias);
}
