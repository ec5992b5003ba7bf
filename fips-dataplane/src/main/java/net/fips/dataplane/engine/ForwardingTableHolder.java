package net.fips.dataplane.engine;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

import net.fips.dataplane.route.ForwardingTable;

/** Holds the published {@link ForwardingTable}: one writer (the control thread), acquire loads by workers. */
final class ForwardingTableHolder {
    private static final VarHandle TABLE;

    static {
        try {
            TABLE = MethodHandles.lookup().findVarHandle(ForwardingTableHolder.class, "table",
                    ForwardingTable.class);
        } catch (final ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    @SuppressWarnings("unused")
    private ForwardingTable table;

    ForwardingTable get() {
        return (ForwardingTable) TABLE.getAcquire(this);
    }

    void set(final ForwardingTable t) {
        TABLE.setRelease(this, t);
    }
}
