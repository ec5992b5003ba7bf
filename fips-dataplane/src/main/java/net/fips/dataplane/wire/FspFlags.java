package net.fips.dataplane.wire;

/**
 * The FSP prefix flags byte (phase 0 only; handshakes send 0). Bit 0 CP: cleartext coordinates follow the header;
 * bit 1 K: key epoch (note: FMP's K bit is bit 0); bit 2 U: unencrypted error signal. Other bits are reserved.
 *
 * @param coordsPresent CP
 * @param keyEpoch      K
 * @param unencrypted   U
 */
public record FspFlags(boolean coordsPresent, boolean keyEpoch, boolean unencrypted) {
    /** CP bit. */
    public static final int CP = 0x01;
    /** K bit. */
    public static final int K = 0x02;
    /** U bit. */
    public static final int U = 0x04;

    /** The flags byte. */
    public int toByte() {
        return (coordsPresent ? CP : 0) | (keyEpoch ? K : 0) | (unencrypted ? U : 0);
    }

    /** Reads the known bits of a flags byte; reserved bits are dropped. */
    public static FspFlags fromByte(final int b) {
        return new FspFlags((b & CP) != 0, (b & K) != 0, (b & U) != 0);
    }
}
