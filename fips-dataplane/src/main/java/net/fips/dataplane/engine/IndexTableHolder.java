package net.fips.dataplane.engine;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * Holds the current {@link IndexTable}. Writers (the control thread adding indices, workers removing them)
 * are rare and serialise through a compare-and-set loop; readers do one acquire load per frame.
 */
final class IndexTableHolder {
    private static final VarHandle TABLE;

    static {
        try {
            TABLE = MethodHandles.lookup().findVarHandle(IndexTableHolder.class, "table", IndexTable.class);
        } catch (final ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    @SuppressWarnings("unused")
    private IndexTable table = IndexTable.EMPTY;

    IndexTable lvTable() {
        return (IndexTable) TABLE.getAcquire(this);
    }

    void add(final long key, final long linkId) {
        while (true) {
            final IndexTable t = lvTable();
            if (TABLE.compareAndSet(this, t, t.with(key, linkId))) {
                return;
            }
        }
    }

    /** Removes {@code key} only while it still maps to {@code linkId}. */
    void remove(final long key, final long linkId) {
        while (true) {
            final IndexTable t = lvTable();
            if (t.get(key) != linkId) {
                return;
            }
            if (TABLE.compareAndSet(this, t, t.without(key))) {
                return;
            }
        }
    }
}
