package net.fips.archfixture.cyclic.control.b;

import net.fips.archfixture.cyclic.control.a.A;

/** Fixture: the edge back from b to a. */
public final class B {
    /** @return an A */
    public A a() {
        return new A();
    }
}
