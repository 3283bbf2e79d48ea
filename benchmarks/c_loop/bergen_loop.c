/* A tight C loop of the standard Bergen match, for measuring bergen-sim against.
 *
 * Same rules as the compiled engine's standard preset (RULES.md): double-six,
 * lowest double leads and scores 2, headers 2/3 with the near-target cut,
 * draws until playable leaving 2 tiles, going out 2, blocked hands settled
 * the German way (fewest doubles, then fewest pips) for 2 points, targets 15
 * (two sides) or 10.  Players choose uniformly among the legal (tile, end)
 * pairs.  It uses the engine's keyed random streams (SplitMix64 keyed on
 * seed, match, hand, attempt; policy streams on seat), and like the engine
 * calls no random number when a seat has a single legal move, so for the same
 * seed it plays exactly the matches `bergen-sim simulate --policy random`
 * plays: benchmarks/run.py checks that the totals agree before comparing
 * speeds, so the ratio is between two programs doing identical work.
 *
 *   cc -O3 -march=native -o bergen_loop bergen_loop.c
 *   ./bergen_loop PLAYERS PARTNERSHIPS(0|1) MATCHES SEED
 *
 * prints one JSON object: matches, hands, plays, headers, wins, seconds.
 */
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define N_TILES 28
#define MAX_SEATS 4
#define STREAM_POLICY (1u << 20)

static const uint64_t GOLDEN = 0x9E3779B97F4A7C15ULL;

static int tile_lo[N_TILES], tile_hi[N_TILES];
static uint64_t number_mask[7];
static int double_tile[7];
static uint64_t double_mask;

static inline uint64_t mix64(uint64_t z) {
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}

static uint64_t stream_state(uint64_t seed, uint64_t a, uint64_t b, uint64_t c) {
    uint64_t z = mix64(seed ^ GOLDEN);
    z = mix64(z ^ a);
    z = mix64((z + GOLDEN) ^ b);
    return mix64((z + GOLDEN) ^ c);
}

static inline int64_t below(uint64_t *rng, int64_t n) {
    *rng += GOLDEN;
    return (int64_t)(((mix64(*rng) >> 32) * (uint64_t)n) >> 32);
}

static inline int cut_points(int value, int64_t score, int64_t target) {
    int64_t need = target - score;
    if (need <= 2) return 1;
    if (need == 3 && value > 2) return 2;
    return value;
}

typedef struct {
    int64_t matches, hands, plays, double_headers, triple_headers;
    int64_t wins[MAX_SEATS];
} Totals;

/* German settlement: fewest doubles, then fewest pips among them; a tie scores nobody. */
static int settle(const uint64_t *hands, int players, int partners) {
    int sides = partners ? 2 : players;
    int doubles[MAX_SEATS] = {0}, pips[MAX_SEATS] = {0};
    for (int s = 0; s < players; s++) {
        int side = partners ? s % 2 : s;
        for (uint64_t h = hands[s]; h; h &= h - 1) {
            int t = __builtin_ctzll(h);
            pips[side] += tile_lo[t] + tile_hi[t];
            doubles[side] += tile_lo[t] == tile_hi[t];
        }
    }
    int fewest = doubles[0];
    for (int side = 1; side < sides; side++) if (doubles[side] < fewest) fewest = doubles[side];
    int best = -1, tied = 0;
    for (int side = 0; side < sides; side++) {
        if (doubles[side] != fewest) continue;
        if (best < 0 || pips[side] < pips[best]) { best = side; tied = 0; }
        else if (pips[side] == pips[best]) tied = 1;
    }
    return tied ? -1 : best;
}

/* One hand; returns 1 when the match ends in it. */
static int play_hand(const int *deal, int players, int partners, int hand_size, int64_t target,
                     int64_t *scores, uint64_t *rngs, Totals *tot) {
    uint64_t hands[MAX_SEATS];
    for (int s = 0; s < players; s++) {
        hands[s] = 0;
        for (int k = 0; k < hand_size; k++) hands[s] |= 1ULL << deal[s * hand_size + k];
    }
    int bone = players * hand_size, bone_stop = N_TILES - 2;
    int leader = -1, number = -1;
    for (int n = 0; n < 7 && leader < 0; n++)
        for (int s = 0; s < players; s++)
            if (hands[s] & (1ULL << double_tile[n])) { leader = s; number = n; break; }
    hands[leader] &= ~(1ULL << double_tile[number]);
    int left = number, right = number, left_double = 1, right_double = 1;
    int seat = leader, side = partners ? leader % 2 : leader;
    scores[side] += cut_points(2, scores[side], target);
    if (scores[side] >= target) return 1;
    int passes = 0;
    int move_tile[32], move_end[32];
    for (;;) {
        if (hands[seat] == 0) {
            scores[side] += 2;
            return scores[side] >= target;
        }
        seat = seat + 1 < players ? seat + 1 : 0;
        side = partners ? seat % 2 : seat;
        uint64_t fits_left = number_mask[left], fits_right = number_mask[right];
        uint64_t ends = fits_left | fits_right;
        uint64_t playable = hands[seat] & ends;
        if (!playable) {
            while (bone < bone_stop) {
                int t = deal[bone++];
                hands[seat] |= 1ULL << t;
                if ((1ULL << t) & ends) { playable = 1ULL << t; break; }
            }
            if (!playable) {
                if (++passes == players) {
                    int winner = settle(hands, players, partners);
                    if (winner >= 0) scores[winner] += 2;
                    return winner >= 0 && scores[winner] >= target;
                }
                continue;
            }
        }
        passes = 0;
        /* branch-free listing, as the engine's: write each (tile, end) candidate, count it only if it fits */
        int n = 0;
        for (uint64_t p = playable; p; p &= p - 1) {
            int t = __builtin_ctzll(p);
            move_tile[n] = t; move_end[n] = 0; n += (int)((fits_left >> t) & 1);
            move_tile[n] = t; move_end[n] = 1; n += (int)((fits_right >> t) & 1);
        }
        int k = n == 1 ? 0 : (int)below(&rngs[seat], n);
        int t = move_tile[k], e = move_end[k];
        hands[seat] &= ~(1ULL << t);
        /* the new end (the tile's other half) by selects, not a branch: which end a random move takes is random */
        int dbl = tile_lo[t] == tile_hi[t], other = tile_lo[t] + tile_hi[t] - (e ? right : left);
        left = e ? left : other;
        right = e ? other : right;
        left_double = e ? left_double : dbl;
        right_double = e ? dbl : right_double;
        tot->plays++;
        if (left == right) {
            int value = (left_double | right_double) ? 3 : 2;
            if (value == 3) tot->triple_headers++; else tot->double_headers++;
            scores[side] += cut_points(value, scores[side], target);
            if (scores[side] >= target) return 1;
        }
    }
}

int main(int argc, char **argv) {
    if (argc != 5) {
        fprintf(stderr, "usage: %s PLAYERS PARTNERSHIPS MATCHES SEED\n", argv[0]);
        return 2;
    }
    int players = atoi(argv[1]), partners = atoi(argv[2]);
    int64_t n_matches = strtoll(argv[3], NULL, 10);
    uint64_t seed = strtoull(argv[4], NULL, 10);
    if (players < 2 || players > 4 || (partners && players != 4) || n_matches < 1) {
        fprintf(stderr, "players 2..4 (partnerships with 4), matches >= 1\n");
        return 2;
    }
    int t = 0;
    for (int b = 0; b < 7; b++)  /* tile order of bergen_sim.engine.layout: by high half, then low */
        for (int a = 0; a <= b; a++, t++) {
            tile_lo[t] = a; tile_hi[t] = b;
            if (a == b) { double_tile[a] = t; double_mask |= 1ULL << t; }
        }
    for (int n = 0; n < 7; n++)
        for (t = 0; t < N_TILES; t++)
            if (tile_lo[t] == n || tile_hi[t] == n) number_mask[n] |= 1ULL << t;
    int hand_size = players == 4 ? 5 : 6, sides = partners ? 2 : players;
    int64_t target = sides == 2 ? 15 : 10;

    Totals tot = {0};
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    int deal[N_TILES];
    uint64_t rngs[MAX_SEATS];
    for (int64_t m = 0; m < n_matches; m++) {
        int64_t scores[MAX_SEATS] = {0};
        for (int s = 0; s < players; s++) rngs[s] = stream_state(seed, (uint64_t)m, STREAM_POLICY + s, 0);
        int over = 0;
        for (int64_t hand_no = 1; !over; hand_no++) {
            for (uint64_t attempt = 0;; attempt++) {
                uint64_t rng = stream_state(seed, (uint64_t)m, (uint64_t)hand_no, attempt);
                for (int i = 0; i < N_TILES; i++) deal[i] = i;
                for (int i = N_TILES - 1; i > 0; i--) {
                    int j = (int)below(&rng, i + 1), tmp = deal[i];
                    deal[i] = deal[j]; deal[j] = tmp;
                }
                uint64_t held = 0;
                for (int i = 0; i < players * hand_size; i++) held |= 1ULL << deal[i];
                if (held & double_mask) break;
            }
            over = play_hand(deal, players, partners, hand_size, target, scores, rngs, &tot);
            tot.hands++;
        }
        int winner = 0;
        for (int side = 0; side < sides; side++) if (scores[side] >= target) winner = side;
        tot.wins[winner]++;
        tot.matches++;
    }
    clock_gettime(CLOCK_MONOTONIC, &t1);
    double seconds = (t1.tv_sec - t0.tv_sec) + 1e-9 * (t1.tv_nsec - t0.tv_nsec);
    printf("{\"matches\": %" PRId64 ", \"hands\": %" PRId64 ", \"plays\": %" PRId64
           ", \"double_headers\": %" PRId64 ", \"triple_headers\": %" PRId64 ", \"wins\": [",
           tot.matches, tot.hands, tot.plays, tot.double_headers, tot.triple_headers);
    for (int side = 0; side < sides; side++) printf("%s%" PRId64, side ? ", " : "", tot.wins[side]);
    printf("], \"seconds\": %.6f}\n", seconds);
    return 0;
}
