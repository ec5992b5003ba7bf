package net.fips.control.ble.dbus;

import java.util.List;
import java.util.Map;

import org.freedesktop.dbus.Struct;
import org.freedesktop.dbus.annotations.DBusInterfaceName;
import org.freedesktop.dbus.annotations.Position;
import org.freedesktop.dbus.interfaces.DBusInterface;
import org.freedesktop.dbus.types.UInt64;
import org.freedesktop.dbus.types.Variant;

/** python-dbusmock's generic control interface on every mock object. */
@DBusInterfaceName("org.freedesktop.DBus.Mock")
public interface DBusMockControl extends DBusInterface {
    /** Adds a method (python code, may be empty) to an interface of this object. */
    void AddMethod(String iface, String name, String inSig, String outSig, String code);

    /** Updates properties and emits PropertiesChanged. */
    void UpdateProperties(String iface, Map<String, Variant<?>> properties);

    /** @return the recorded calls of one method: (timestamp, args) */
    List<Call> GetMethodCalls(String method);

    /** One recorded call. */
    final class Call extends Struct {
        @Position(0)
        private final UInt64 timestamp;
        @Position(1)
        private final List<Variant<?>> args;

        /** @param timestamp when @param args the arguments */
        public Call(final UInt64 timestamp, final List<Variant<?>> args) {
            this.timestamp = timestamp;
            this.args = args;
        }

        /** @return the arguments */
        public List<Variant<?>> args() {
            return args;
        }

        /** @return when */
        public UInt64 timestamp() {
            return timestamp;
        }
    }
}
