/* EXPERIMENT, not the benchmark's anchor: the same C match loop (bergen_match.h) with the dealing and the
 * generator the engine does NOT use, to measure what its keyed random streams cost.
 *
 * One xoshiro256** generator (seeded from SEED by SplitMix64) serves every
 * deal and every choice; bounded integers are Lemire's multiply-and-reject
 * (exact, no division but on a rare rejection path); the shuffle is lazy:
 * Fisher-Yates from the bottom shuffles only the dealt hands at the deal, and
 * each boneyard tile is drawn by continuing the same shuffle when it is drawn,
 * so undrawn tiles cost nothing.  These matches are as random as the engine's
 * but not the same ones: there is no totals check, and benchmarks/run.py never
 * uses this program.  benchmarks/c_loop/README.md reports its speed beside the
 * anchor's.
 *
 *   cc -O3 -march=native -o experiment_lazy_xoshiro experiment_lazy_xoshiro.c
 *   ./experiment_lazy_xoshiro PLAYERS PARTNERSHIPS(0|1) MATCHES SEED
 */
#include "bergen_match.h"

struct Dealer {
    uint8_t deal[N_TILES];
    int bone;      /* the next boneyard position to draw */
    u64 s[4];      /* xoshiro256** state */
    int seeded;
};

static inline u64 rotl(u64 x, int k) { return (x << k) | (x >> (64 - k)); }

static inline u64 next_u64(Dealer *restrict d) {
    u64 *s = d->s, result = rotl(s[1] * 5, 7) * 9, t = s[1] << 17;
    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = rotl(s[3], 45);
    return result;
}

/* Lemire's exact bounded integer in [0, n), n >= 1, from the high 32 bits of the generator */
static inline unsigned below(Dealer *restrict d, uint32_t n) {
    u64 m = (next_u64(d) >> 32) * n;
    if (__builtin_expect((uint32_t)m < n, 0)) {
        uint32_t threshold = -n % n;
        while ((uint32_t)m < threshold) m = (next_u64(d) >> 32) * n;
    }
    return (unsigned)(m >> 32);
}

/* one step of the lazy Fisher-Yates: the tile at position i, chosen among positions i .. N_TILES - 1 */
static inline unsigned take(Dealer *restrict d, int i) {
    unsigned j = (unsigned)i + below(d, (uint32_t)(N_TILES - i));
    uint8_t tile = d->deal[j];
    d->deal[j] = d->deal[i];
    d->deal[i] = tile;
    return tile;
}

static inline void dealer_start_match(Dealer *restrict d, u64 seed, u64 match, int players) {
    (void)match, (void)players;
    if (!d->seeded) {  /* one stream for the whole run */
        u64 z = seed;
        for (int i = 0; i < 4; i++) {
            z += 0x9E3779B97F4A7C15ULL;
            u64 x = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
            x = (x ^ (x >> 27)) * 0x94D049BB133111EBULL;
            d->s[i] = x ^ (x >> 31);
        }
        d->seeded = 1;
        for (int t = 0; t < N_TILES; t++) d->deal[t] = (uint8_t)t;
    }
}

static inline void dealer_deal(Dealer *restrict d, u64 seed, u64 match, u64 hand_no, int players,
                               int hand_size, u64 *restrict hands) {
    (void)seed, (void)match, (void)hand_no;
    /* any permutation left by the last hand is as good a start as the identity: the shuffle is uniform */
    for (;;) {  /* redeal while no double is dealt */
        u64 held = 0;
        for (int s = 0; s < players; s++) {
            u64 h = 0;
            for (int k = 0; k < hand_size; k++) h |= 1ULL << take(d, s * hand_size + k);
            hands[s] = h;
            held |= h;
        }
        if (held & double_mask) break;
    }
    d->bone = players * hand_size;
}

static inline u64 dealer_draw(Dealer *restrict d, unsigned left, unsigned right, u64 *restrict hand) {
    u64 ends = number_mask[left] | number_mask[right];
    while (d->bone < BONE_STOP) {
        u64 tile = 1ULL << take(d, d->bone++);
        *hand |= tile;
        if (tile & ends) return tile;
    }
    return 0;
}

static inline unsigned dealer_choose(Dealer *restrict d, int seat, unsigned n) {
    (void)seat;
    return n > 1 ? below(d, n) : 0;
}

int main(int argc, char **argv) {
    static Dealer dealer;
    return run_program(argc, argv, &dealer);
}
