package net.fips.control.ctl;

import java.io.IOException;

/** The control socket could not be bound: another daemon answers on it, or the path is not ours to replace. */
public final class ControlSocketException extends IOException {
    private static final long serialVersionUID = 1L;

    /**
     * @param message what went wrong, naming the path
     */
    public ControlSocketException(final String message) {
        super(message);
    }
}
