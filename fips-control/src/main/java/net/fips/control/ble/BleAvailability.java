package net.fips.control.ble;

import java.util.Objects;
import java.util.function.Supplier;

import net.fips.control.config.BleConfig;
import net.fips.dataplane.ble.L2capProbe;

/**
 * The start-time capability check of one {@code transports.ble} instance (transports.md §1.4): the kernel must make
 * L2CAP sockets, and BlueZ must list the configured adapter. Either missing skips the instance with one clear line;
 * the node runs on without it.
 */
public final class BleAvailability {
    /**
     * @param usable  whether the instance could start
     * @param reason  why not (null when usable)
     * @param adapter the adapter found (null when not)
     */
    public record Result(boolean usable, String reason, BlueZ.Adapter adapter) {
    }

    private BleAvailability() {
    }

    /**
     * @param config the instance
     * @param kernel the L2CAP probe ({@link L2capProbe#run()} in production)
     * @param bluez  opens a BlueZ client ({@link DbusBlueZ#systemBus()} in production); closed here
     * @return the verdict
     */
    public static Result check(final BleConfig config, final Supplier<L2capProbe> kernel,
            final BlueZFactory bluez) {
        Objects.requireNonNull(config, "config");
        final L2capProbe p = kernel.get();
        if (!p.available()) {
            return new Result(false, p.description(), null);
        }
        try (BlueZ b = bluez.open()) {
            return b.adapter(config.adapter())
                    .map(a -> new Result(true, null, a))
                    .orElseGet(() -> new Result(false, "no adapter " + (BleConfig.ANY_ADAPTER.equals(config.adapter())
                            ? "at all" : config.adapter()) + " in BlueZ", null));
        } catch (final BlueZException e) {
            return new Result(false, "no adapter: " + e.getMessage(), null);
        }
    }

    /** Opens a BlueZ client. */
    @FunctionalInterface
    public interface BlueZFactory {
        /** @return a connected client */
        BlueZ open() throws BlueZException;
    }
}
