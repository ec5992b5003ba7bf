package net.fips.control.ble;

import java.util.List;
import java.util.Optional;
import java.util.function.Consumer;

/**
 * The BlueZ half of the BLE transport (transports.md §5.1, §5.8): adapter, advertising and scanning, behind an
 * interface so the scan/probe logic runs without BlueZ. The data channel is not here: it is the kernel's L2CAP
 * socket. Implemented over D-Bus by {@link DbusBlueZ}.
 */
public interface BlueZ extends AutoCloseable {
    /** The FIPS service UUID carried in advertisements (transports.md §5.1). */
    String FIPS_SERVICE_UUID = "9c90b790-2cc5-42c0-9f87-c9cc40648f4c";

    /**
     * @param path    object path, e.g. {@code /org/bluez/hci0}
     * @param name    the last path element, e.g. {@code hci0}
     * @param address its own address {@code AA:BB:CC:DD:EE:FF}
     * @param powered {@code Powered}
     */
    record Adapter(String path, String name, String address, boolean powered) {
    }

    /**
     * A {@code org.bluez.Device1} object as last seen.
     *
     * @param path          object path
     * @param address       {@code AA:BB:CC:DD:EE:FF}, uppercase
     * @param randomAddress whether {@code AddressType} is {@code random}
     * @param uuids         advertised service UUIDs, lowercase
     * @param rssi          signal strength, null when BlueZ gives none
     */
    record Device(String path, String address, boolean randomAddress, List<String> uuids, Integer rssi) {
        /** @return whether it advertises the FIPS service */
        public boolean isFips() {
            return uuids.contains(FIPS_SERVICE_UUID);
        }
    }

    /**
     * @param name an adapter name, or {@code default} for the first one BlueZ lists
     * @return the adapter, empty when there is none of that name
     * @throws BlueZException when BlueZ cannot be asked (no bus, no {@code org.bluez} service)
     */
    Optional<Adapter> adapter(String name) throws BlueZException;

    /** Sets {@code Powered = true}. */
    void powerOn(Adapter adapter) throws BlueZException;

    /** @return the devices BlueZ has cached under the adapter */
    List<Device> devices(Adapter adapter) throws BlueZException;

    /** {@code Adapter1.RemoveDevice} (so BlueZ announces it again when seen). */
    void removeDevice(Adapter adapter, Device device) throws BlueZException;

    /**
     * Subscribes to device announcements, sets the LE + FIPS-UUID discovery filter and starts discovery. The
     * callback runs on a D-Bus thread for every added device and every device whose properties change.
     */
    void startScan(Adapter adapter, Consumer<Device> onDevice) throws BlueZException;

    /** Stops discovery and the subscription. */
    void stopScan(Adapter adapter) throws BlueZException;

    /** Exports the advertisement object and registers it with the adapter's LEAdvertisingManager1. */
    void advertise(Adapter adapter) throws BlueZException;

    /** Unregisters and unexports it. */
    void stopAdvertising(Adapter adapter) throws BlueZException;

    @Override
    void close();
}
