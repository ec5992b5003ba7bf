package net.fips.archfixture.layered.dataplane;

import net.fips.archfixture.layered.control.High;

/** Fixture: a data-plane class that uses the control plane (forbidden). */
public final class Low {
    /** @return a control-plane object */
    public High high() {
        return new High();
    }
}
