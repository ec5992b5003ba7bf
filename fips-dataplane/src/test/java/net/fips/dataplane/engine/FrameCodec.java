package net.fips.dataplane.engine;

import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.DatagramChannel;
import java.util.Arrays;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;

import net.fips.dataplane.crypto.AeadCipher;
import net.fips.dataplane.crypto.JdkAeadCipher;

/** Test-side FMP framing on heap arrays, independent of the engine: seals and opens established frames. */
final class FrameCodec {

    /**
     * Drives the data plane under test with {@code pumpUntil} until the peer channel {@code ch} (non-blocking) has
     * received a datagram.
     *
     * @return the datagram's bytes (at most {@code capacity})
     */
    static byte[] receive(final DatagramChannel ch, final int capacity, final Consumer<BooleanSupplier> pumpUntil) {
        final ByteBuffer buf = ByteBuffer.allocate(capacity);
        pumpUntil.accept(() -> {
            try {
                return ch.receive(buf) != null;
            } catch (final IOException e) {
                throw new IllegalStateException(e);
            }
        });
        buf.flip();
        final byte[] out = new byte[buf.remaining()];
        buf.get(out);
        return out;
    }
    private final AeadCipher cipher = new JdkAeadCipher();
    /** The engine of {@link #sealInPlace} and the key and counter of its last seal. */
    private AeadCipher sealer;
    private byte[] sealerKey;
    private long sealerCounter;

    /** @return header(16) || seal(timestamp u32 || message) */
    byte[] seal(final byte[] key, final int flags, final int receiverIdx, final long counter, final int timestamp,
                final byte[] message) {
        final int plain = 4 + message.length;
        final byte[] frame = new byte[16 + plain + 16];
        final ByteBuffer b = ByteBuffer.wrap(frame).order(ByteOrder.LITTLE_ENDIAN);
        b.put((byte) 0).put((byte) flags).putShort((short) plain).putInt(receiverIdx).putLong(counter);
        b.putInt(timestamp).put(message);
        sealInPlace(key, counter, frame, 16, plain);
        return frame;
    }

    /**
     * Seals {@code buf[aad, aad + plain)} in place with the FIPS nonce of {@code counter}, {@code buf[0, aad)} as
     * associated data, the tag after the plaintext.
     */
    synchronized void sealInPlace(final byte[] key, final long counter, final byte[] buf, final int aad,
                                  final int plain) {
        // Tests deliberately seal the same (key, counter) twice to replay it, which a JDK Cipher refuses when it
        // repeats that instance's previous encryption: a fresh engine then, the kept one otherwise (a new engine
        // per seal costs a provider look-up, a large part of a fuzz execution).
        if (sealer == null || counter == sealerCounter && Arrays.equals(key, sealerKey)) {
            sealer = new JdkAeadCipher();
        }
        sealerKey = key.clone();
        sealerCounter = counter;
        sealer.seal(MemorySegment.ofArray(key), nonce(counter), MemorySegment.ofArray(buf), 0, aad,
                MemorySegment.ofArray(buf), aad, plain);
    }

    /** @return the link message (after the timestamp), or null if the frame does not authenticate */
    byte[] open(final byte[] key, final byte[] frame, final int length) {
        final byte[] plain = openPlaintext(key, frame, length);
        return plain == null ? null : Arrays.copyOfRange(plain, 4, plain.length);
    }

    /** @return the whole plaintext (timestamp u32 LE || message), or null if the frame does not authenticate */
    byte[] openPlaintext(final byte[] key, final byte[] frame, final int length) {
        final byte[] copy = Arrays.copyOf(frame, length);
        final long counter = ByteBuffer.wrap(copy).order(ByteOrder.LITTLE_ENDIAN).getLong(8);
        final int plain = cipher.open(MemorySegment.ofArray(key), nonce(counter), MemorySegment.ofArray(copy), 0, 16,
                MemorySegment.ofArray(copy), 16, length - 16);
        return plain < 0 ? null : Arrays.copyOfRange(copy, 16, 16 + plain);
    }

    static int flags(final byte[] frame) {
        return frame[1] & 0xFF;
    }

    static int receiverIdx(final byte[] frame) {
        return ByteBuffer.wrap(frame).order(ByteOrder.LITTLE_ENDIAN).getInt(4);
    }

    static long counter(final byte[] frame) {
        return ByteBuffer.wrap(frame).order(ByteOrder.LITTLE_ENDIAN).getLong(8);
    }

    private static MemorySegment nonce(final long counter) {
        final MemorySegment n = MemorySegment.ofArray(new byte[12]);
        AeadCipher.fipsNonce(n, counter);
        return n;
    }

    static byte[] key(final int seed) {
        final byte[] k = new byte[32];
        for (int i = 0; i < k.length; i++) {
            k[i] = (byte) (seed * 31 + i * 7);
        }
        return k;
    }
}
