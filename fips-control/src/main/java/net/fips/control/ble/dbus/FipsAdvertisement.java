package net.fips.control.ble.dbus;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;

import org.freedesktop.dbus.exceptions.DBusExecutionException;
import org.freedesktop.dbus.interfaces.Properties;
import org.freedesktop.dbus.types.UInt32;
import org.freedesktop.dbus.types.Variant;

/**
 * The exported {@code org.bluez.LEAdvertisement1} (transports.md §5.5): a peripheral advertisement carrying the FIPS
 * service UUID, local name {@code fips}, and the reference's 400-600 ms interval (properties BlueZ treats as
 * experimental and may ignore). Read-only; {@link #Release()} records that BlueZ dropped it.
 */
public final class FipsAdvertisement implements LEAdvertisement1, Properties {
    /** The interface name BlueZ reads the properties of. */
    public static final String INTERFACE = "org.bluez.LEAdvertisement1";

    private final String path;
    private final Map<String, Variant<?>> props;
    private final AtomicBoolean released = new AtomicBoolean();

    /**
     * @param path        where it is exported, e.g. {@code /net/fips/adv0}
     * @param serviceUuid the FIPS service UUID
     * @param localName   the advertised name
     */
    public FipsAdvertisement(final String path, final String serviceUuid, final String localName) {
        this.path = path;
        final Map<String, Variant<?>> p = new LinkedHashMap<>();
        p.put("Type", new Variant<>("peripheral"));
        p.put("ServiceUUIDs", new Variant<>(List.of(serviceUuid), "as"));
        p.put("LocalName", new Variant<>(localName));
        p.put("MinInterval", new Variant<>(new UInt32(400)));
        p.put("MaxInterval", new Variant<>(new UInt32(600)));
        this.props = Map.copyOf(p);
    }

    @Override
    public String getObjectPath() {
        return path;
    }

    @Override
    public void Release() {
        released.set(true);
    }

    /** @return whether BlueZ called Release */
    public boolean released() {
        return released.get();
    }

    @Override
    @SuppressWarnings("unchecked")
    public <A> A Get(final String iface, final String name) {
        final Variant<?> v = INTERFACE.equals(iface) ? props.get(name) : null;
        if (v == null) {
            throw new DBusExecutionException("no property " + iface + "." + name);
        }
        return (A) v.getValue();
    }

    @Override
    public <A> void Set(final String iface, final String name, final A value) {
        throw new DBusExecutionException("the advertisement is read-only");
    }

    @Override
    public Map<String, Variant<?>> GetAll(final String iface) {
        return INTERFACE.equals(iface) ? new LinkedHashMap<>(props) : Map.of();
    }
}
