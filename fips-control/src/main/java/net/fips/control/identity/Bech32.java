package net.fips.control.identity;

import java.io.ByteArrayOutputStream;
import java.util.Locale;
import java.util.Objects;
import java.util.Arrays;

import net.fips.control.identity.IdentityFormatException.Problem;

/**
 * Bech32 (BIP-173) encoding and the lenient decoding that the reference's bech32 crate (0.11) performs.
 *
 * <p>Encoding always produces lowercase classic Bech32. Decoding mirrors the crate's {@code decode} so that the
 * same strings are accepted and rejected: a Bech32 <em>or</em> Bech32m checksum is accepted; an all-uppercase
 * string is accepted; mixed case is rejected; the HRP is 1 to 83 printable ASCII characters; the whole string may
 * be up to 1023 characters (not BIP-173's 90); the separator is the last {@code '1'}; trailing padding bits of
 * the 5-to-8-bit regrouping are dropped without being checked. Error messages never repeat the input, which may
 * be a secret key.
 */
public final class Bech32 {
    /** Which checksum constant a decoded string used. */
    public enum Variant {
        /** BIP-173 (constant 1). */
        BECH32(1),
        /** BIP-350 (constant 0x2bc830a3). */
        BECH32M(0x2bc830a3);

        private final int constant;

        Variant(final int constant) {
            this.constant = constant;
        }
    }

    /**
     * A decoded string.
     *
     * @param hrp     the human-readable part, lowercased
     * @param data    the payload bytes
     * @param variant the checksum that matched
     */
    public record Decoded(String hrp, byte[] data, Variant variant) {
        /** Copies {@code data} so the record cannot be changed through it. */
        public Decoded {
            data = data.clone();
        }

        @Override
        public byte[] data() {
            return data.clone();
        }
    }

    /** Most characters a string may have (the crate's code length for both checksums). */
    public static final int MAX_LENGTH = 1023;
    /** Most characters a human-readable part may have. */
    public static final int MAX_HRP_LENGTH = 83;

    private static final String CHARSET = "qpzry9x8gf2tvdw0s3jn54khce6mua7l";
    private static final int CHECKSUM_LENGTH = 6;
    private static final int[] GENERATOR = {0x3b6a57b2, 0x26508e6d, 0x1ea119fa, 0x3d4233dd, 0x2a1462b3};
    private static final byte[] CHARSET_REV = new byte[128];

    static {
        Arrays.fill(CHARSET_REV, (byte) -1);
        for (int i = 0; i < CHARSET.length(); i++) {
            CHARSET_REV[CHARSET.charAt(i)] = (byte) i;
            CHARSET_REV[Character.toUpperCase(CHARSET.charAt(i))] = (byte) i;
        }
    }

    private Bech32() {
    }

    /**
     * Encodes {@code data} under {@code hrp} as lowercase Bech32 (BIP-173 checksum), regrouping 8-bit bytes into
     * 5-bit groups with zero padding.
     *
     * @param hrp  human-readable part: 1 to 83 printable ASCII characters, not mixed case
     * @param data payload
     * @return the encoded string
     * @throws IllegalArgumentException when the HRP is invalid or the result would exceed {@link #MAX_LENGTH}
     */
    public static String encode(final String hrp, final byte[] data) {
        Objects.requireNonNull(data, "data");
        final String problem = hrpProblem(hrp);
        if (problem != null) {
            throw new IllegalArgumentException(problem);
        }
        final String lower = hrp.toLowerCase(Locale.ROOT);
        final int[] values = toFiveBit(data);
        final int length = lower.length() + 1 + values.length + CHECKSUM_LENGTH;
        if (length > MAX_LENGTH) {
            throw new IllegalArgumentException("bech32 string would be " + length + " characters, over "
                    + MAX_LENGTH);
        }
        final int[] checksum = checksum(lower, values, Variant.BECH32);
        final StringBuilder sb = new StringBuilder(length).append(lower).append('1');
        for (final int v : values) {
            sb.append(CHARSET.charAt(v));
        }
        for (final int v : checksum) {
            sb.append(CHARSET.charAt(v));
        }
        return sb.toString();
    }

    /**
     * Encodes raw 5-bit values with either checksum. Package-private: FIPS only emits {@link #encode}'s Bech32;
     * tests use this to build the lenient inputs the decoder must accept (Bech32m, non-zero padding bits).
     */
    static String encodeValues(final String hrp, final int[] values, final Variant variant) {
        final String lower = hrp.toLowerCase(Locale.ROOT);
        final StringBuilder sb = new StringBuilder().append(lower).append('1');
        for (final int v : values) {
            sb.append(CHARSET.charAt(v));
        }
        for (final int v : checksum(lower, values, variant)) {
            sb.append(CHARSET.charAt(v));
        }
        return sb.toString();
    }

    /** Regroups bytes into 5-bit values with zero padding (package-private for tests). */
    static int[] fiveBitValues(final byte[] data) {
        return toFiveBit(data);
    }

    /**
     * Decodes a Bech32 or Bech32m string with the reference's rules (see the class comment).
     *
     * @param s the string
     * @return its HRP (lowercased), payload and checksum variant
     * @throws IdentityFormatException {@link Problem#MALFORMED} or {@link Problem#BAD_CHECKSUM}
     */
    public static Decoded decode(final String s) throws IdentityFormatException {
        Objects.requireNonNull(s, "s");
        if (s.isEmpty()) {
            throw malformed("empty string");
        }
        boolean upper = false;
        boolean lower = false;
        int sep = -1;
        // Scan from the end like the crate: everything after the last '1' must be a bech32 character.
        for (int i = s.length() - 1; i >= 0; i--) {
            final char c = s.charAt(i);
            if (c == '1' && sep < 0) {
                sep = i;
            }
            if (sep < 0 && (c >= 128 || CHARSET_REV[c] < 0)) {
                throw malformed("invalid data character at position " + i);
            }
            if (c >= 'A' && c <= 'Z') {
                upper = true;
            } else if (c >= 'a' && c <= 'z') {
                lower = true;
            }
        }
        if (upper && lower) {
            throw malformed("mixed upper and lower case");
        }
        if (sep < 0) {
            throw malformed("no '1' separator");
        }
        final String hrp = s.substring(0, sep);
        final String hrpProblem = hrpProblem(hrp);
        if (hrpProblem != null) {
            throw malformed(hrpProblem);
        }
        if (s.length() > MAX_LENGTH) {
            throw malformed("too long: " + s.length() + " characters, at most " + MAX_LENGTH);
        }
        final int dataChars = s.length() - sep - 1;
        if (dataChars < CHECKSUM_LENGTH) {
            throw malformed("data part shorter than the 6-character checksum");
        }
        final int[] values = new int[dataChars];
        for (int i = 0; i < dataChars; i++) {
            values[i] = CHARSET_REV[s.charAt(sep + 1 + i)];
        }
        final String hrpLower = hrp.toLowerCase(Locale.ROOT);
        final int residue = polymod(hrpLower, values, values.length);
        final Variant variant;
        if (residue == Variant.BECH32M.constant) {
            variant = Variant.BECH32M;
        } else if (residue == Variant.BECH32.constant) {
            variant = Variant.BECH32;
        } else {
            throw new IdentityFormatException(Problem.BAD_CHECKSUM, "bech32 checksum mismatch");
        }
        return new Decoded(hrpLower, fromFiveBit(values, dataChars - CHECKSUM_LENGTH), variant);
    }

    private static IdentityFormatException malformed(final String why) {
        return new IdentityFormatException(Problem.MALFORMED, "not a bech32 string: " + why);
    }

    /** @return why {@code hrp} is not a valid human-readable part, or null when it is */
    private static String hrpProblem(final String hrp) {
        if (hrp == null || hrp.isEmpty()) {
            return "empty human-readable part";
        }
        if (hrp.length() > MAX_HRP_LENGTH) {
            return "human-readable part longer than " + MAX_HRP_LENGTH + " characters";
        }
        boolean upper = false;
        boolean lower = false;
        for (int i = 0; i < hrp.length(); i++) {
            final char c = hrp.charAt(i);
            if (c < 33 || c > 126) {
                return "human-readable part has a character outside printable ASCII at position " + i;
            }
            upper |= c >= 'A' && c <= 'Z';
            lower |= c >= 'a' && c <= 'z';
        }
        return upper && lower ? "mixed-case human-readable part" : null;
    }

    private static int polymod(final String hrpLower, final int[] values, final int count) {
        int chk = 1;
        for (int i = 0; i < hrpLower.length(); i++) {
            chk = step(chk, hrpLower.charAt(i) >> 5);
        }
        chk = step(chk, 0);
        for (int i = 0; i < hrpLower.length(); i++) {
            chk = step(chk, hrpLower.charAt(i) & 0x1f);
        }
        for (int i = 0; i < count; i++) {
            chk = step(chk, values[i]);
        }
        return chk;
    }

    private static int step(final int chk, final int value) {
        final int top = chk >>> 25;
        int next = ((chk & 0x1ffffff) << 5) ^ value;
        for (int i = 0; i < 5; i++) {
            if (((top >>> i) & 1) != 0) {
                next ^= GENERATOR[i];
            }
        }
        return next;
    }

    private static int[] checksum(final String hrpLower, final int[] values, final Variant variant) {
        final int[] padded = Arrays.copyOf(values, values.length + CHECKSUM_LENGTH);
        final int mod = polymod(hrpLower, padded, padded.length) ^ variant.constant;
        final int[] out = new int[CHECKSUM_LENGTH];
        for (int i = 0; i < CHECKSUM_LENGTH; i++) {
            out[i] = (mod >>> (5 * (5 - i))) & 0x1f;
        }
        return out;
    }

    private static int[] toFiveBit(final byte[] data) {
        final int[] out = new int[(data.length * 8 + 4) / 5];
        int acc = 0;
        int bits = 0;
        int n = 0;
        for (final byte b : data) {
            acc = (acc << 8) | (b & 0xff);
            bits += 8;
            while (bits >= 5) {
                bits -= 5;
                out[n++] = (acc >>> bits) & 0x1f;
            }
        }
        if (bits > 0) {
            out[n] = (acc << (5 - bits)) & 0x1f;
        }
        return out;
    }

    /** Regroups the first {@code count} 5-bit values into bytes, dropping leftover bits as the crate does. */
    private static byte[] fromFiveBit(final int[] values, final int count) {
        final ByteArrayOutputStream out = new ByteArrayOutputStream(count * 5 / 8);
        int acc = 0;
        int bits = 0;
        for (int i = 0; i < count; i++) {
            acc = ((acc << 5) | values[i]) & 0xfff;
            bits += 5;
            if (bits >= 8) {
                bits -= 8;
                out.write((acc >>> bits) & 0xff);
            }
        }
        return out.toByteArray();
    }
}
