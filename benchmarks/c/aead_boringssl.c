/*
 * C baseline for the BoringSSL AEAD backend: BoringSSL's one-call EVP_AEAD interface (Debian's
 * android-libboringssl), the calls net.fips.ffm.boringssl.ChaCha20Poly1305Aead makes, timed like aead_baseline.c
 * so that the two libraries and the FFM overhead can be compared in one run.
 *
 * One EVP_AEAD_CTX keyed once with EVP_aead_chacha20_poly1305() and reused; per packet:
 *   seal: new nonce (4 zero bytes || u64 LE counter), one EVP_AEAD_CTX_seal in place (16-byte AAD), tag after
 *         the ciphertext.
 *   open: memcpy a sealed packet into the work buffer (as the JMH open benchmark does), one EVP_AEAD_CTX_open in
 *         place (must succeed).
 *
 * Build: gcc -O2 -I/usr/include/android -o aead_boringssl aead_boringssl.c \
 *            -L/usr/lib/x86_64-linux-gnu/android -Wl,-rpath,/usr/lib/x86_64-linux-gnu/android -lcrypto
 * Usage: aead_boringssl [seconds-per-round [size ...]]   (default 1 s; sizes 1190 1280 1400; one warm-up round,
 *        then 3 measured rounds averaged; wall and thread CPU time per operation)
 */
#include <openssl/aead.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define AAD_LEN 16
#define TAG_LEN 16
#define ROUNDS 3
#define MAX_LEN 8192

static EVP_AEAD_CTX *ctx;
static uint8_t key[32], nonce[12], open_nonce[12], aad[AAD_LEN];
static uint8_t buf[MAX_LEN + TAG_LEN], sealed[MAX_LEN + TAG_LEN];
static uint64_t counter;

static void die(const char *what) {
    fprintf(stderr, "aead_boringssl: %s failed\n", what);
    exit(1);
}

static double clock_ns(clockid_t id) {
    struct timespec ts;
    clock_gettime(id, &ts);
    return ts.tv_sec * 1e9 + ts.tv_nsec;
}

static double now_ns(void) {
    return clock_ns(CLOCK_MONOTONIC);
}

/* This thread's CPU time: unlike wall time it does not grow while other processes hold the CPU. */
static double cpu_ns(void) {
    return clock_ns(CLOCK_THREAD_CPUTIME_ID);
}

static void fips_nonce(uint8_t *n, uint64_t c) {
    memset(n, 0, 4);
    for (int i = 0; i < 8; i++) n[4 + i] = (uint8_t) (c >> (8 * i));
}

static void seal(uint8_t *p, size_t len, const uint8_t *iv) {
    size_t out_len;
    if (EVP_AEAD_CTX_seal(ctx, p, &out_len, len + TAG_LEN, iv, 12, p, len, aad, AAD_LEN) != 1
            || out_len != len + TAG_LEN) {
        die("EVP_AEAD_CTX_seal");
    }
}

static long open_packet(uint8_t *p, size_t len) {
    size_t out_len;
    memcpy(p, sealed, len + TAG_LEN);
    if (EVP_AEAD_CTX_open(ctx, p, &out_len, len + TAG_LEN, open_nonce, 12, p, len + TAG_LEN, aad, AAD_LEN) != 1) {
        return -1;
    }
    return (long) out_len;
}

/* Runs `op` in batches until `seconds` have passed; returns wall ns per op, and CPU ns per op in *cpu. */
static double timed(int is_seal, size_t len, double seconds, double *cpu) {
    const int batch = 1000;
    long ops = 0;
    long checksum = 0;
    double cpu0 = cpu_ns();
    double start = now_ns(), end = start + seconds * 1e9, t;
    do {
        for (int i = 0; i < batch; i++) {
            if (is_seal) {
                fips_nonce(nonce, ++counter);
                seal(buf, len, nonce);
            } else {
                checksum += open_packet(buf, len);
            }
        }
        ops += batch;
    } while ((t = now_ns()) < end);
    if (!is_seal && checksum != (long) len * ops) die("open (tag did not verify)");
    *cpu = (cpu_ns() - cpu0) / ops;
    return (t - start) / ops;
}

int main(int argc, char **argv) {
    int sizes[16] = {1190, 1280, 1400};
    int nsizes = 3;
    double seconds = argc > 1 ? atof(argv[1]) : 1.0;
    if (argc > 2) {
        nsizes = 0;
        for (int i = 2; i < argc && nsizes < 16; i++) {
            int s = atoi(argv[i]);
            if (s < 0 || s > MAX_LEN) die("size argument (0..8192)");
            sizes[nsizes++] = s;
        }
    }

    for (int i = 0; i < 32; i++) key[i] = (uint8_t) (i * 7 + 1);
    for (int i = 0; i < AAD_LEN; i++) aad[i] = (uint8_t) (i * 13 + 5);
    ctx = EVP_AEAD_CTX_new(EVP_aead_chacha20_poly1305(), key, sizeof key, EVP_AEAD_DEFAULT_TAG_LENGTH);
    if (ctx == NULL) die("EVP_AEAD_CTX_new");

    printf("# BoringSSL EVP_AEAD (android-libboringssl), %d measured rounds of %.1f s after one warm-up round\n",
           ROUNDS, seconds);
    printf("%-6s %14s %14s %14s %14s\n", "size", "seal wall ns", "seal cpu ns", "open wall ns", "open cpu ns");
    for (int s = 0; s < nsizes; s++) {
        size_t len = (size_t) sizes[s];
        for (size_t i = 0; i < len; i++) sealed[i] = (uint8_t) (i * 31 + len);
        fips_nonce(open_nonce, UINT64_MAX);
        seal(sealed, len, open_nonce);
        double wall[2] = {0, 0}, cpu[2] = {0, 0}, c;
        for (int op = 0; op < 2; op++) {
            timed(op == 0, len, seconds, &c);
            for (int k = 0; k < ROUNDS; k++) {
                wall[op] += timed(op == 0, len, seconds, &c) / ROUNDS;
                cpu[op] += c / ROUNDS;
            }
        }
        printf("%-6zu %14.1f %14.1f %14.1f %14.1f\n", len, wall[0], cpu[0], wall[1], cpu[1]);
    }
    EVP_AEAD_CTX_free(ctx);
    return 0;
}
