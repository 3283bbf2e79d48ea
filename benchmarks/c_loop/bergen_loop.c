/* The benchmark's anchor: the tight C match loop (bergen_match.h) on the engine's keyed random streams.
 *
 * Deals and choices come from the streams of bergen_sim/engine/keyed_random.py:
 * SplitMix64 keyed on (seed, match, hand, attempt) for each deal, shuffled by
 * the engine's Fisher-Yates from the top; a stream keyed on (seed, match,
 * STREAM_POLICY + seat) for each seat's choices; bounded integers by the
 * engine's multiply-and-shift of the high 32 bits; and, like the engine, no
 * random number is used when a seat has a single legal move.  So for the same
 * seed it plays exactly the matches `bergen-sim simulate --policy random`
 * plays: benchmarks/c_reference.py checks that the totals agree before a speed
 * ratio is reported, so the ratio is between two programs doing identical work.
 *
 * Tight without changing a draw: the deal is 28 bytes; per-number masks of
 * boneyard positions give the first playable tile of a draw with a count of
 * trailing zeros, and running XORs of the boneyard give every tile drawn up to
 * it; a choice computes its random number always and advances the stream only
 * when there are two moves or more, with a select instead of a branch (the
 * engine's bounded integer of one choice is 0 anyway).
 *
 *   cc -O3 -march=native -o bergen_loop bergen_loop.c
 *   ./bergen_loop PLAYERS PARTNERSHIPS(0|1) MATCHES SEED
 *
 * prints one JSON object: matches, hands, plays, headers, wins, seconds.
 */
#include "bergen_match.h"

#define STREAM_POLICY (1u << 20)

static const u64 GOLDEN = 0x9E3779B97F4A7C15ULL;

struct Dealer {
    uint8_t deal[N_TILES];
    int bone;                        /* the next boneyard position to draw */
    u64 rngs[MAX_SEATS];             /* each seat's policy stream */
    u64 bone_positions[N_NUMBERS];   /* boneyard positions of the tiles showing number n */
    u64 drawn_before[N_TILES + 1];   /* the tiles at positions [a, b) are drawn_before[b] ^ drawn_before[a] */
};

static inline u64 mix64(u64 z) {
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}

static inline u64 stream_state(u64 seed, u64 a, u64 b, u64 c) {
    u64 z = mix64(seed ^ GOLDEN);
    z = mix64(z ^ a);
    z = mix64((z + GOLDEN) ^ b);
    return mix64((z + GOLDEN) ^ c);
}

/* the engine's bounded integer: the high 32 bits of 64 random bits, scaled to [0, n) */
static inline unsigned scaled(u64 bits, unsigned n) {
    return (unsigned)(((bits >> 32) * (u64)n) >> 32);
}

/* The engine's shuffle of the set (Fisher-Yates from the top, the same draws as its bounded integer). */
static inline void shuffle_set(uint8_t *restrict deal, u64 state) {
    for (int i = 0; i < N_TILES; i++) deal[i] = (uint8_t)i;
    for (int i = N_TILES - 1; i > 0; i--) {
        state += GOLDEN;
        unsigned j = scaled(mix64(state), (unsigned)i + 1);
        uint8_t tmp = deal[i];
        deal[i] = deal[j];
        deal[j] = tmp;
    }
}

static inline void dealer_start_match(Dealer *restrict d, u64 seed, u64 match, int players) {
    for (int s = 0; s < players; s++) d->rngs[s] = stream_state(seed, match, STREAM_POLICY + (u64)s, 0);
}

static inline void dealer_deal(Dealer *restrict d, u64 seed, u64 match, u64 hand_no, int players,
                               int hand_size, u64 *restrict hands) {
    const int first_bone = players * hand_size;
    for (u64 attempt = 0;; attempt++) {  /* redeal while no double is dealt */
        shuffle_set(d->deal, stream_state(seed, match, hand_no, attempt));
        u64 held = 0;
        for (int s = 0; s < players; s++) {
            u64 h = 0;
            for (int k = 0; k < hand_size; k++) h |= 1ULL << d->deal[s * hand_size + k];
            hands[s] = h;
            held |= h;
        }
        if (held & double_mask) break;
    }
    u64 positions[N_NUMBERS] = {0}, drawn = 0;
    d->drawn_before[first_bone] = 0;
    for (int p = first_bone; p < BONE_STOP; p++) {
        unsigned t = d->deal[p];
        positions[tile_lo[t]] |= 1ULL << p;
        positions[tile_hi[t]] |= 1ULL << p;
        drawn ^= 1ULL << t;
        d->drawn_before[p + 1] = drawn;
    }
    memcpy(d->bone_positions, positions, sizeof positions);
    d->bone = first_bone;
}

static inline u64 dealer_draw(Dealer *restrict d, unsigned left, unsigned right, u64 *restrict hand) {
    u64 reachable = (d->bone_positions[left] | d->bone_positions[right]) & (~0ULL << d->bone);
    int upto = reachable ? __builtin_ctzll(reachable) + 1 : BONE_STOP;
    *hand |= d->drawn_before[upto] ^ d->drawn_before[d->bone];
    d->bone = upto;
    return reachable ? 1ULL << d->deal[upto - 1] : 0;
}

static inline unsigned dealer_choose(Dealer *restrict d, int seat, unsigned n) {
    u64 state = d->rngs[seat] + GOLDEN;
    unsigned k = scaled(mix64(state), n);  /* 0 when n == 1, and then the stream does not advance */
    d->rngs[seat] = n > 1 ? state : d->rngs[seat];
    return k;
}

int main(int argc, char **argv) {
    static Dealer dealer;
    return run_program(argc, argv, &dealer);
}
