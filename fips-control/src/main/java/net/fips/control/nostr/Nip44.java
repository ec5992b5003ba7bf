package net.fips.control.nostr;

import java.math.BigInteger;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.util.Arrays;
import java.util.Base64;

import javax.crypto.Cipher;
import javax.crypto.Mac;
import javax.crypto.spec.ChaCha20ParameterSpec;
import javax.crypto.spec.SecretKeySpec;
import org.bouncycastle.math.ec.ECPoint;

import net.fips.control.crypto.Secp256k1;

/**
 * NIP-44 version 2 encryption as the reference's nostr crate does it (discovery-gateway.md §1.5): conversation key
 * = HKDF-Extract(salt "nip44-v2", raw X of the ECDH point), per-message keys by HKDF-Expand over a 32-byte nonce,
 * length-prefixed padding, IETF ChaCha20, HMAC-SHA256 over nonce and ciphertext, and the payload
 * {@code 0x02 || nonce || ciphertext || mac} in padded standard base64.
 *
 * <p>Every refusal is a {@link Nip44Exception} with a {@link Nip44Exception.Reason}; nothing here throws anything
 * else for bad input. The MAC is compared in constant time.
 */
public final class Nip44 {
    /** The version byte of a v2 payload. */
    public static final int VERSION = 2;
    /** Smallest plaintext, in bytes. */
    public static final int MIN_PLAINTEXT = 1;
    /** Largest plaintext, in bytes (the NIP's limit, which the official vectors pin). */
    public static final int MAX_PLAINTEXT = 65_535;
    /** Length of the message nonce. */
    public static final int NONCE_LENGTH = 32;

    private static final int MAC_LENGTH = 32;
    /** Shortest and longest payload text and decoded payload (NIP-44's bounds). */
    private static final int MIN_PAYLOAD_CHARS = 132;
    private static final int MAX_PAYLOAD_CHARS = 87_472;
    private static final int MIN_PAYLOAD_BYTES = 99;
    private static final int MAX_PAYLOAD_BYTES = 65_603;
    private static final byte[] SALT = "nip44-v2".getBytes(StandardCharsets.US_ASCII);
    private static final SecureRandom RANDOM = new SecureRandom();

    private Nip44() {
    }

    /** The three keys one message uses. */
    public record MessageKeys(byte[] chachaKey, byte[] chachaNonce, byte[] hmacKey) {
    }

    /**
     * The conversation key of {@code sk} and {@code peerXOnly}; symmetric, so A to B equals B to A.
     *
     * @param sk        our 32-byte secret key
     * @param peerXOnly the peer's 32-byte x-only key (lifted to even Y)
     * @return the 32-byte key
     * @throws Nip44Exception {@code INVALID_SECRET_KEY} or {@code INVALID_PUBLIC_KEY}
     */
    public static byte[] conversationKey(final byte[] sk, final byte[] peerXOnly) throws Nip44Exception {
        if (!Secp256k1.isValidSecret(sk)) {
            throw new Nip44Exception(Nip44Exception.Reason.INVALID_SECRET_KEY,
                    "secret key must be 32 bytes with 1 <= k < n");
        }
        final ECPoint peer = Secp256k1.liftX(peerXOnly);
        if (peer == null) {
            throw new Nip44Exception(Nip44Exception.Reason.INVALID_PUBLIC_KEY,
                    "public key is not the x coordinate of a secp256k1 point");
        }
        // The raw X of the shared point, without libsecp256k1's default hashing (§1.5 step 1).
        final ECPoint shared = peer.multiply(new BigInteger(1, sk)).normalize();
        return hmac(SALT, Secp256k1.xOnly(shared));
    }

    /**
     * HKDF-Expand of the conversation key over a message nonce into ChaCha20 key and nonce and the HMAC key.
     *
     * @param conversationKey 32 bytes
     * @param nonce           32 bytes
     * @return the keys
     */
    public static MessageKeys messageKeys(final byte[] conversationKey, final byte[] nonce) {
        if (conversationKey.length != 32 || nonce.length != NONCE_LENGTH) {
            throw new IllegalArgumentException("conversation key and nonce must be 32 bytes each");
        }
        final byte[] okm = new byte[96];
        byte[] t = new byte[0];
        for (int i = 1; i <= 3; i++) {
            final byte[] in = new byte[t.length + NONCE_LENGTH + 1];
            System.arraycopy(t, 0, in, 0, t.length);
            System.arraycopy(nonce, 0, in, t.length, NONCE_LENGTH);
            in[in.length - 1] = (byte) i;
            t = hmac(conversationKey, in);
            System.arraycopy(t, 0, okm, (i - 1) * 32, 32);
        }
        return new MessageKeys(Arrays.copyOfRange(okm, 0, 32), Arrays.copyOfRange(okm, 32, 44),
                Arrays.copyOfRange(okm, 44, 76));
    }

    /**
     * The padded length of a plaintext of {@code len} bytes (without the 2-byte length prefix).
     *
     * @param len at least 1 (the vectors also pad 65536, one more than a plaintext may hold)
     * @return the padded length
     */
    public static int paddedLength(final int len) {
        if (len < MIN_PLAINTEXT || len > MAX_PLAINTEXT + 1) {
            throw new IllegalArgumentException("length to pad must be 1..65536, got " + len);
        }
        if (len <= 32) {
            return 32;
        }
        final int nextPower = Integer.highestOneBit(len - 1) << 1;
        final int chunk = nextPower <= 256 ? 32 : nextPower / 8;
        return chunk * ((len - 1) / chunk + 1);
    }

    /**
     * Encrypts with a fresh random nonce.
     *
     * @param conversationKey 32 bytes
     * @param plaintext       the text (1 to 65535 bytes of UTF-8)
     * @return the base64 payload
     * @throws Nip44Exception {@code INVALID_PLAINTEXT_LENGTH}
     */
    public static String encrypt(final byte[] conversationKey, final String plaintext) throws Nip44Exception {
        final byte[] nonce = new byte[NONCE_LENGTH];
        RANDOM.nextBytes(nonce);
        return encrypt(conversationKey, plaintext.getBytes(StandardCharsets.UTF_8), nonce);
    }

    /**
     * Encrypts with a given nonce (deterministic; for vectors and tests only: a nonce must never repeat).
     *
     * @param conversationKey 32 bytes
     * @param plaintext       1 to 65535 bytes
     * @param nonce           32 bytes
     * @return the base64 payload
     * @throws Nip44Exception {@code INVALID_PLAINTEXT_LENGTH}
     */
    public static String encrypt(final byte[] conversationKey, final byte[] plaintext, final byte[] nonce)
            throws Nip44Exception {
        if (plaintext.length < MIN_PLAINTEXT || plaintext.length > MAX_PLAINTEXT) {
            throw new Nip44Exception(Nip44Exception.Reason.INVALID_PLAINTEXT_LENGTH,
                    "plaintext must be 1..65535 bytes, got " + plaintext.length);
        }
        final MessageKeys keys = messageKeys(conversationKey, nonce);
        final byte[] padded = new byte[2 + paddedLength(plaintext.length)];
        padded[0] = (byte) (plaintext.length >>> 8);
        padded[1] = (byte) plaintext.length;
        System.arraycopy(plaintext, 0, padded, 2, plaintext.length);
        final byte[] ciphertext = chacha(keys, padded);
        final byte[] out = new byte[1 + NONCE_LENGTH + ciphertext.length + MAC_LENGTH];
        out[0] = VERSION;
        System.arraycopy(nonce, 0, out, 1, NONCE_LENGTH);
        System.arraycopy(ciphertext, 0, out, 1 + NONCE_LENGTH, ciphertext.length);
        System.arraycopy(mac(keys.hmacKey(), nonce, ciphertext), 0, out, out.length - MAC_LENGTH, MAC_LENGTH);
        return Base64.getEncoder().encodeToString(out);
    }

    /**
     * Decrypts a payload to text.
     *
     * @param conversationKey 32 bytes
     * @param payload         the base64 payload
     * @return the plaintext
     * @throws Nip44Exception naming what was wrong with the payload
     */
    public static String decrypt(final byte[] conversationKey, final String payload) throws Nip44Exception {
        final byte[] plain = decryptBytes(conversationKey, payload);
        try {
            return StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT).decode(ByteBuffer.wrap(plain)).toString();
        } catch (final CharacterCodingException e) {
            throw new Nip44Exception(Nip44Exception.Reason.INVALID_UTF8, "plaintext is not valid UTF-8");
        }
    }

    /**
     * Decrypts a payload to bytes.
     *
     * @param conversationKey 32 bytes
     * @param payload         the base64 payload
     * @return the plaintext bytes
     * @throws Nip44Exception naming what was wrong with the payload
     */
    public static byte[] decryptBytes(final byte[] conversationKey, final String payload) throws Nip44Exception {
        if (payload.startsWith("#")) {
            throw new Nip44Exception(Nip44Exception.Reason.UNKNOWN_VERSION, "unknown encryption version (#)");
        }
        if (payload.length() < MIN_PAYLOAD_CHARS || payload.length() > MAX_PAYLOAD_CHARS) {
            throw new Nip44Exception(Nip44Exception.Reason.INVALID_PAYLOAD_LENGTH,
                    "invalid payload length: " + payload.length());
        }
        final byte[] raw;
        try {
            raw = Base64.getDecoder().decode(payload);
        } catch (final IllegalArgumentException e) {
            throw new Nip44Exception(Nip44Exception.Reason.INVALID_BASE64, "invalid base64: " + e.getMessage());
        }
        if (raw.length < MIN_PAYLOAD_BYTES || raw.length > MAX_PAYLOAD_BYTES) {
            throw new Nip44Exception(Nip44Exception.Reason.INVALID_PAYLOAD_LENGTH,
                    "invalid decoded payload length: " + raw.length);
        }
        if (raw[0] != VERSION) {
            throw new Nip44Exception(Nip44Exception.Reason.UNKNOWN_VERSION,
                    "unknown encryption version " + (raw[0] & 0xff));
        }
        final byte[] nonce = Arrays.copyOfRange(raw, 1, 1 + NONCE_LENGTH);
        final byte[] ciphertext = Arrays.copyOfRange(raw, 1 + NONCE_LENGTH, raw.length - MAC_LENGTH);
        final byte[] mac = Arrays.copyOfRange(raw, raw.length - MAC_LENGTH, raw.length);
        final MessageKeys keys = messageKeys(conversationKey, nonce);
        if (!MessageDigest.isEqual(mac, mac(keys.hmacKey(), nonce, ciphertext))) {
            throw new Nip44Exception(Nip44Exception.Reason.INVALID_MAC, "invalid MAC");
        }
        final byte[] padded = chacha(keys, ciphertext);
        final int len = (padded[0] & 0xff) << 8 | padded[1] & 0xff;
        if (len < MIN_PLAINTEXT || padded.length < 2 + len || padded.length != 2 + paddedLength(len)) {
            throw new Nip44Exception(Nip44Exception.Reason.INVALID_PADDING, "invalid padding");
        }
        return Arrays.copyOfRange(padded, 2, 2 + len);
    }

    /**
     * Encrypts for a peer in one step: the conversation key of {@code sk} and {@code peerXOnly}, then
     * {@link #encrypt(byte[], String)}.
     *
     * @param sk        our secret key
     * @param peerXOnly the peer's x-only key
     * @param plaintext the text
     * @return the payload
     * @throws Nip44Exception on a bad key or length
     */
    public static String encrypt(final byte[] sk, final byte[] peerXOnly, final String plaintext)
            throws Nip44Exception {
        return encrypt(conversationKey(sk, peerXOnly), plaintext);
    }

    /**
     * Decrypts from a peer in one step.
     *
     * @param sk        our secret key
     * @param peerXOnly the peer's x-only key
     * @param payload   the payload
     * @return the plaintext
     * @throws Nip44Exception on a bad key or payload
     */
    public static String decrypt(final byte[] sk, final byte[] peerXOnly, final String payload)
            throws Nip44Exception {
        return decrypt(conversationKey(sk, peerXOnly), payload);
    }

    private static byte[] chacha(final MessageKeys keys, final byte[] in) {
        try {
            final Cipher c = Cipher.getInstance("ChaCha20");
            c.init(Cipher.ENCRYPT_MODE, new SecretKeySpec(keys.chachaKey(), "ChaCha20"),
                    new ChaCha20ParameterSpec(keys.chachaNonce(), 0));
            return c.doFinal(in);
        } catch (final GeneralSecurityException e) {
            throw new IllegalStateException("the JDK's ChaCha20 failed", e);
        }
    }

    private static byte[] mac(final byte[] key, final byte[] nonce, final byte[] ciphertext) {
        final Mac m = hmacSha256(key);
        m.update(nonce);
        m.update(ciphertext);
        return m.doFinal();
    }

    private static byte[] hmac(final byte[] key, final byte[] data) {
        return hmacSha256(key).doFinal(data);
    }

    private static Mac hmacSha256(final byte[] key) {
        try {
            final Mac m = Mac.getInstance("HmacSHA256");
            m.init(new SecretKeySpec(key, "HmacSHA256"));
            return m;
        } catch (final GeneralSecurityException e) {
            throw new IllegalStateException("the JDK's HmacSHA256 failed", e);
        }
    }
}
