package net.fips.control.ble;

/** A BlueZ call failed: no system bus, no {@code org.bluez} service, or an error reply (its name is kept). */
public final class BlueZException extends Exception {
    private static final long serialVersionUID = 1L;

    /** @param message what was asked and what answered */
    public BlueZException(final String message, final Throwable cause) {
        super(message, cause);
    }

    /** @param message what was asked and what answered */
    public BlueZException(final String message) {
        super(message);
    }
}
