package net.fips.ffm.linux;

import static java.lang.foreign.ValueLayout.JAVA_INT_UNALIGNED;
import static java.lang.foreign.ValueLayout.JAVA_LONG_UNALIGNED;

import java.lang.foreign.MemorySegment;

import net.fips.ffm.linux.gen.cmsghdr;

/**
 * The {@code CMSG_*} macros of {@code <sys/socket.h>} as Java (jextract does not extract function-like macros),
 * working on byte offsets into a control buffer:
 * <pre>{@code
 * struct cmsghdr { size_t cmsg_len; int cmsg_level; int cmsg_type; unsigned char __cmsg_data[]; };  // glibc LP64
 * #define CMSG_ALIGN(len) (((len) + sizeof (size_t) - 1) & (size_t) ~(sizeof (size_t) - 1))
 * #define CMSG_LEN(len)   (CMSG_ALIGN (sizeof (struct cmsghdr)) + (len))
 * #define CMSG_SPACE(len) (CMSG_ALIGN (len) + CMSG_ALIGN (sizeof (struct cmsghdr)))
 * }</pre>
 * Offsets returned here are relative to the start of the control buffer; {@link #NONE} plays the role of NULL.
 */
public final class Cmsg {
    /** Offset value meaning "no header" (C's NULL). */
    public static final long NONE = -1;
    /** {@code sizeof(struct cmsghdr)}: 16 on glibc LP64. */
    public static final long HDR_SIZE = cmsghdr.sizeof();
    private static final long ALIGN_MASK = cmsghdr.cmsg_len$layout().byteSize() - 1;
    private static final long LEN = cmsghdr.cmsg_len$offset();
    private static final long LEVEL = cmsghdr.cmsg_level$offset();
    private static final long TYPE = cmsghdr.cmsg_type$offset();

    private Cmsg() {
    }

    /** @return {@code CMSG_ALIGN(len)} */
    public static long align(final long len) {
        return (len + ALIGN_MASK) & ~ALIGN_MASK;
    }

    /** @return {@code CMSG_LEN(dataLen)}: the value for {@code cmsg_len} */
    public static long len(final long dataLen) {
        return align(HDR_SIZE) + dataLen;
    }

    /** @return {@code CMSG_SPACE(dataLen)}: the control buffer bytes one such message takes */
    public static long space(final long dataLen) {
        return align(dataLen) + align(HDR_SIZE);
    }

    /** @return {@code CMSG_DATA}: offset of the data of the header at {@code hdr} */
    public static long data(final long hdr) {
        return hdr + align(HDR_SIZE);
    }

    /**
     * {@code CMSG_FIRSTHDR}.
     *
     * @param controlLen {@code msg_controllen} as the kernel left it
     * @return 0, or {@link #NONE} if the buffer cannot hold a header
     */
    public static long firstHdr(final long controlLen) {
        return controlLen >= HDR_SIZE ? 0 : NONE;
    }

    /**
     * {@code CMSG_NXTHDR}, with glibc's bounds checks: a header whose length is below the header size, or a next
     * header that would not fit in {@code controlLen}, ends the walk.
     *
     * @return the next header's offset, or {@link #NONE}
     */
    public static long nxtHdr(final MemorySegment control, final long controlLen, final long hdr) {
        final long len = cmsgLen(control, hdr);
        if (len < HDR_SIZE) {
            return NONE;
        }
        final long next = hdr + align(len);
        if (next + HDR_SIZE > controlLen || next < 0) {
            return NONE;
        }
        final long nextLen = cmsgLen(control, next);
        if (next + align(nextLen) > controlLen || nextLen < 0) {
            return NONE;
        }
        return next;
    }

    /** @return {@code cmsg_len} of the header at {@code hdr} */
    public static long cmsgLen(final MemorySegment control, final long hdr) {
        return control.get(JAVA_LONG_UNALIGNED, hdr + LEN);
    }

    /** @return {@code cmsg_level} of the header at {@code hdr} */
    public static int level(final MemorySegment control, final long hdr) {
        return control.get(JAVA_INT_UNALIGNED, hdr + LEVEL);
    }

    /** @return {@code cmsg_type} of the header at {@code hdr} */
    public static int type(final MemorySegment control, final long hdr) {
        return control.get(JAVA_INT_UNALIGNED, hdr + TYPE);
    }

    /**
     * Writes a header at {@code hdr} for {@code dataLen} bytes of data.
     *
     * @return the offset of the data ({@code CMSG_DATA})
     */
    public static long put(final MemorySegment control, final long hdr, final int level, final int type,
                           final long dataLen) {
        control.set(JAVA_LONG_UNALIGNED, hdr + LEN, len(dataLen));
        control.set(JAVA_INT_UNALIGNED, hdr + LEVEL, level);
        control.set(JAVA_INT_UNALIGNED, hdr + TYPE, type);
        return data(hdr);
    }

    /**
     * Finds the first header with the given level and type.
     *
     * @return its offset, or {@link #NONE}
     */
    public static long find(final MemorySegment control, final long controlLen, final int level, final int type) {
        for (long h = firstHdr(controlLen); h != NONE; h = nxtHdr(control, controlLen, h)) {
            if (level(control, h) == level && type(control, h) == type) {
                return h;
            }
        }
        return NONE;
    }
}
