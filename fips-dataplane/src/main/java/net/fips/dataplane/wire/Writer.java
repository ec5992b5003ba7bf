package net.fips.dataplane.wire;

/** Little-endian writer into a byte array sized exactly by the caller's encodedSize(). */
final class Writer {
    private final byte[] buf;
    private int pos;

    Writer(final int size) {
        this.buf = new byte[size];
    }

    Writer u8(final int v) {
        buf[pos++] = (byte) v;
        return this;
    }

    Writer u16(final int v) {
        buf[pos++] = (byte) v;
        buf[pos++] = (byte) (v >>> 8);
        return this;
    }

    Writer u32(final long v) {
        for (int i = 0; i < 4; i++) {
            buf[pos++] = (byte) (v >>> (8 * i));
        }
        return this;
    }

    Writer u64(final long v) {
        for (int i = 0; i < 8; i++) {
            buf[pos++] = (byte) (v >>> (8 * i));
        }
        return this;
    }

    Writer addr(final NodeAddr a) {
        a.writeTo(buf, pos);
        pos += NodeAddr.SIZE;
        return this;
    }

    Writer bytes(final byte[] b) {
        System.arraycopy(b, 0, buf, pos, b.length);
        pos += b.length;
        return this;
    }

    Writer coords(final Coords c) {
        u16(c.size());
        for (final NodeAddr a : c.addrs()) {
            addr(a);
        }
        return this;
    }

    byte[] done() {
        if (pos != buf.length) {
            throw new IllegalStateException("encoder wrote " + pos + " of " + buf.length + " bytes");
        }
        return buf;
    }
}
