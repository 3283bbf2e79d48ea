/* The standard Bergen match as a tight C loop, for any dealer of tiles and random choices.
 *
 * Same rules as the compiled engine's standard preset (RULES.md): double-six,
 * lowest double leads and scores 2, headers 2/3 with the near-target cut,
 * draws until playable leaving 2 tiles, going out 2, blocked hands settled
 * the German way (fewest doubles, then fewest pips) for 2 points, targets 15
 * (two sides) or 10.  Players choose uniformly among the legal (tile, end)
 * pairs, listed as the engine lists them (by tile, then left before right).
 *
 * Where the tiles and the random choices come from is the including file's
 * dealer: bergen_loop.c (the benchmark's anchor) uses the engine's keyed random
 * streams, so it plays exactly the engine's matches; experiment_lazy_xoshiro.c
 * measures what another generator and dealing would save.  The including file
 * defines `struct Dealer` and the four dealer_* functions declared below.
 *
 * What makes the loop tight (README.md beside this file has the measurements):
 *   - no allocation and no memory traffic beyond a 28-byte deal; hands and the
 *     per-number sets of tiles are 64-bit words;
 *   - the legal moves are one 56-bit word (bit 2t: tile t on the left end, bit
 *     2t+1: on the right) made with two PDEP, so they are in the engine's
 *     order, and the k-th is one more PDEP and a count of trailing zeros
 *     instead of a listing loop;
 *   - the new end, its double flag and the seat's side are selects, not
 *     branches (which end a random move takes is random);
 *   - the match loop is specialised per table (players, partnerships), so
 *     seat arithmetic uses constants.
 */
#ifndef BERGEN_MATCH_H
#define BERGEN_MATCH_H

#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#ifdef __BMI2__
#include <immintrin.h>
#endif

#define N_TILES 28
#define N_NUMBERS 7
#define MAX_SEATS 4
#define LEFT_IN_BONEYARD 2
#define BONE_STOP (N_TILES - LEFT_IN_BONEYARD)
#define EVEN_BITS 0x5555555555555555ULL

typedef uint64_t u64;
typedef struct Dealer Dealer;

/* tables filled once by init_tables(), in the tile order of bergen_sim.engine.layout (high half, then low) */
static u64 number_mask[N_NUMBERS];  /* tiles showing number n on either half */
static u64 double_mask;             /* the doubles */
static uint8_t tile_sum[N_TILES];   /* pips of tile t (the other end is the sum minus the matched end) */
static uint8_t tile_is_double[N_TILES];
static uint8_t tile_lo[N_TILES], tile_hi[N_TILES];
static uint8_t double_number[N_TILES];  /* n for the double n-n, else unused */

typedef struct {
    int64_t matches, hands, plays, double_headers, triple_headers;
    int64_t wins[MAX_SEATS];
} Totals;

/* The dealer, defined by the including file (always inlined into the loop). */
/* a new match `match` of `seed` for `players` seats */
static inline void dealer_start_match(Dealer *restrict d, u64 seed, u64 match, int players);
/* the deal of hand `hand_no` (redealt until a double is dealt): each seat's hand as a set of tiles */
static inline void dealer_deal(Dealer *restrict d, u64 seed, u64 match, u64 hand_no, int players,
                               int hand_size, u64 *restrict hands);
/* draw into *hand until a tile fits an end (numbers `left`, `right`): that tile's bit, or 0 when the
 * boneyard is down to the tiles that stay in it */
static inline u64 dealer_draw(Dealer *restrict d, unsigned left, unsigned right, u64 *restrict hand);
/* seat's uniform choice among n >= 1 moves */
static inline unsigned dealer_choose(Dealer *restrict d, int seat, unsigned n);

/* bits 2t of the result are bits t of x (t < 32) */
static inline u64 spread_even(u64 x) {
#ifdef __BMI2__
    return _pdep_u64(x, EVEN_BITS);
#else
    x &= 0xFFFFFFFFULL;
    x = (x | (x << 16)) & 0x0000FFFF0000FFFFULL;
    x = (x | (x << 8)) & 0x00FF00FF00FF00FFULL;
    x = (x | (x << 4)) & 0x0F0F0F0F0F0F0F0FULL;
    x = (x | (x << 2)) & 0x3333333333333333ULL;
    return (x | (x << 1)) & EVEN_BITS;
#endif
}

/* the position of the k-th (from 0) set bit of x, which has more than k */
static inline unsigned kth_bit(u64 x, unsigned k) {
#ifdef __BMI2__
    return (unsigned)__builtin_ctzll(_pdep_u64(1ULL << k, x));
#else
    for (; k; k--) x &= x - 1;
    return (unsigned)__builtin_ctzll(x);
#endif
}

static void init_tables(void) {
    int t = 0;
    for (int b = 0; b < N_NUMBERS; b++)
        for (int a = 0; a <= b; a++, t++) {
            tile_lo[t] = (uint8_t)a;
            tile_hi[t] = (uint8_t)b;
            tile_sum[t] = (uint8_t)(a + b);
            tile_is_double[t] = a == b;
            if (a == b) { double_mask |= 1ULL << t; double_number[t] = (uint8_t)a; }
            number_mask[a] |= 1ULL << t;
            number_mask[b] |= 1ULL << t;
        }
}

static inline int64_t cut_points(int64_t value, int64_t score, int64_t target) {
    int64_t need = target - score;
    if (need <= 2) return 1;
    if (need == 3 && value > 2) return 2;
    return value;
}

/* German settlement: fewest doubles, then fewest pips among them; a tie scores nobody. */
static int settle(const u64 *hands, int players, int partners) {
    int sides = partners ? 2 : players;
    int doubles[MAX_SEATS] = {0}, pips[MAX_SEATS] = {0};
    for (int s = 0; s < players; s++) {
        int side = partners ? s % 2 : s;
        doubles[side] += __builtin_popcountll(hands[s] & double_mask);
        for (u64 h = hands[s]; h; h &= h - 1) pips[side] += tile_sum[__builtin_ctzll(h)];
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

/* One dealt hand; returns 1 when the match ends in it.  Always inlined, so that `players` and `partners`
 * are constants of each specialised match loop. */
static inline __attribute__((always_inline)) int play_hand(
        Dealer *restrict d, u64 *restrict hands, const int players, const int partners, int64_t target,
        int64_t *restrict scores, Totals *restrict tot) {
    /* the lowest double dealt leads; its holder scores 2 */
    u64 held = 0;
    for (int s = 0; s < players; s++) held |= hands[s];
    unsigned lead = (unsigned)__builtin_ctzll(held & double_mask);
    int seat = 0;
    for (int s = 1; s < players; s++) seat = (hands[s] >> lead) & 1 ? s : seat;
    hands[seat] &= ~(1ULL << lead);
    unsigned left = double_number[lead], right = left, left_double = 1, right_double = 1;
    int side = partners ? seat % 2 : seat;
    scores[side] += cut_points(2, scores[side], target);
    if (scores[side] >= target) return 1;

    int passes = 0;
    int64_t plays = 0;
    for (;;) {
        seat = seat + 1 < players ? seat + 1 : 0;
        side = partners ? seat % 2 : seat;
        u64 fits_left = number_mask[left], fits_right = number_mask[right];
        u64 hand = hands[seat];
        u64 playable = hand & (fits_left | fits_right);
        if (__builtin_expect(!playable, 0)) {
            playable = dealer_draw(d, left, right, &hand);
            hands[seat] = hand;
            if (!playable) {
                if (++passes == players) {
                    tot->plays += plays;
                    int winner = settle(hands, players, partners);
                    if (winner >= 0) scores[winner] += 2;
                    return winner >= 0 && scores[winner] >= target;
                }
                continue;
            }
        }
        passes = 0;
        u64 moves = spread_even(playable & fits_left) | (spread_even(playable & fits_right) << 1);
        unsigned move = kth_bit(moves, dealer_choose(d, seat, (unsigned)__builtin_popcountll(moves)));
        unsigned t = move >> 1, on_right = move & 1;
        hand &= ~(1ULL << t);
        hands[seat] = hand;
        unsigned other = tile_sum[t] - (on_right ? right : left), dbl = tile_is_double[t];
        left = on_right ? left : other;
        right = on_right ? other : right;
        left_double = on_right ? left_double : dbl;
        right_double = on_right ? dbl : right_double;
        plays++;
        if (left == right) {
            int value = (left_double | right_double) ? 3 : 2;
            tot->triple_headers += value == 3;
            tot->double_headers += value == 2;
            scores[side] += cut_points(value, scores[side], target);
            if (scores[side] >= target) { tot->plays += plays; return 1; }
        }
        if (__builtin_expect(!hand, 0)) {
            tot->plays += plays;
            scores[side] += 2;
            return scores[side] >= target;
        }
    }
}

/* Matches 0 .. n_matches - 1 of `seed`, added to `tot`. */
static inline __attribute__((always_inline)) void play_matches(
        Dealer *restrict d, const int players, const int partners, u64 seed, int64_t n_matches,
        Totals *restrict tot) {
    const int hand_size = players == 4 ? 5 : 6, sides = partners ? 2 : players;
    const int64_t target = sides == 2 ? 15 : 10;
    u64 hands[MAX_SEATS];
    for (int64_t m = 0; m < n_matches; m++) {
        int64_t scores[MAX_SEATS] = {0};
        dealer_start_match(d, seed, (u64)m, players);
        int over = 0;
        for (int64_t hand_no = 1; !over; hand_no++) {
            dealer_deal(d, seed, (u64)m, (u64)hand_no, players, hand_size, hands);
            over = play_hand(d, hands, players, partners, target, scores, tot);
            tot->hands++;
        }
        int winner = 0;
        for (int side = 0; side < sides; side++) if (scores[side] >= target) winner = side;
        tot->wins[winner]++;
        tot->matches++;
    }
}

/* The program: PLAYERS PARTNERSHIPS(0|1) MATCHES SEED; prints the totals and seconds as one JSON object. */
static int run_program(int argc, char **argv, Dealer *d) {
    if (argc != 5) {
        fprintf(stderr, "usage: %s PLAYERS PARTNERSHIPS MATCHES SEED\n", argv[0]);
        return 2;
    }
    int players = atoi(argv[1]), partners = atoi(argv[2]);
    int64_t n_matches = strtoll(argv[3], NULL, 10);
    u64 seed = strtoull(argv[4], NULL, 10);
    if (players < 2 || players > 4 || (partners && players != 4) || n_matches < 1) {
        fprintf(stderr, "players 2..4 (partnerships with 4), matches >= 1\n");
        return 2;
    }
    init_tables();
    int sides = partners ? 2 : players;

    Totals tot;
    memset(&tot, 0, sizeof tot);
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    if (players == 2) play_matches(d, 2, 0, seed, n_matches, &tot);
    else if (players == 3) play_matches(d, 3, 0, seed, n_matches, &tot);
    else if (partners) play_matches(d, 4, 1, seed, n_matches, &tot);
    else play_matches(d, 4, 0, seed, n_matches, &tot);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    double seconds = (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec);
    printf("{\"matches\": %" PRId64 ", \"hands\": %" PRId64 ", \"plays\": %" PRId64
           ", \"double_headers\": %" PRId64 ", \"triple_headers\": %" PRId64 ", \"wins\": [",
           tot.matches, tot.hands, tot.plays, tot.double_headers, tot.triple_headers);
    for (int side = 0; side < sides; side++) printf("%s%" PRId64, side ? ", " : "", tot.wins[side]);
    printf("], \"seconds\": %.6f}\n", seconds);
    return 0;
}

#endif
