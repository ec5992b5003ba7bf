package net.fips.dataplane.wire;

/**
 * The inner flags byte of an encrypted FSP message (inside the AEAD): bit 0 is the MMP spin bit, the rest reserved.
 *
 * @param spinBit the spin bit
 */
public record FspInnerFlags(boolean spinBit) {
    /** Spin bit. */
    public static final int SPIN = 0x01;

    /** The flags byte. */
    public int toByte() {
        return spinBit ? SPIN : 0;
    }

    /** Reads the known bits of an inner flags byte. */
    public static FspInnerFlags fromByte(final int b) {
        return new FspInnerFlags((b & SPIN) != 0);
    }
}
