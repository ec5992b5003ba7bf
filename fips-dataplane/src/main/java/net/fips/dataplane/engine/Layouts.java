package net.fips.dataplane.engine;

import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;

/** The unaligned value layouts the engine reads and writes packet fields with. */
final class Layouts {
    /** Unsigned little-endian 32-bit field, as FMP and FSP write them. */
    static final ValueLayout.OfInt U32 = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    /** Little-endian 16-bit field. */
    static final ValueLayout.OfShort U16 = ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    /** Unsigned little-endian 64-bit field. */
    static final ValueLayout.OfLong U64 = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    /** Big-endian 64-bit field: one half of a node address. */
    static final ValueLayout.OfLong U64_BE = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);

    private Layouts() {
    }
}
