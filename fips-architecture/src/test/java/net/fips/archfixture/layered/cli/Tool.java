package net.fips.archfixture.layered.cli;

import net.fips.archfixture.layered.dataplane.Allowed;
import net.fips.archfixture.layered.dataplane.Low;

/** Fixture: a CLI class using one allow-listed data-plane class and one that is not. */
public final class Tool {
    /** @return both */
    public Object[] use() {
        return new Object[] {new Allowed(), new Low()};
    }
}
