// SPDX-License-Identifier: MIT
// Exact mode's overflow reruns and CPU fallback (rerun.c): no answer is
// dropped when a frontier overflows, and the CPU reference answers what the
// device cannot.
#pragma once

#include "batch/triangle_list.h"

// The pairs of a chunk whose frontier overflowed without a hit: rerun on
// the device in rounds of chunks a quarter the size of the round before,
// down to one pair; the pairs a round of one-pair chunks leaves go to the
// CPU reference (rerun_on_cpu). pairs[cur] holds the round's pairs (batch
// indices, count[cur] of them), pairs[cur ^ 1] receives those it leaves.
typedef struct rerun_queue {
	uint64_t *pairs[2]; // room for a chunk each
	uint64_t count[2];
	int cur;
	uint32_t chunk; // the round's chunk
} rerun_queue;

vkcol_result rerun_queue_init(const core_env *env, rerun_queue *q, uint32_t chunk);
void rerun_queue_free(const core_env *env, rerun_queue *q);

// Empties the queue for a first pass in chunks of `chunk` pairs, which
// writes its overflowed pairs to q->pairs[q->cur].
void rerun_begin(rerun_queue *q, uint32_t chunk);

// Whether another round runs on the device: some pairs are left and the
// chunk can still shrink (then q->chunk is the round's, and the pass reads
// q->pairs[q->cur] and writes q->pairs[q->cur ^ 1], emptied here). Counts
// the pairs left as reruns in stats (may be NULL).
bool rerun_round(rerun_queue *q, vkcol_batch_stats *stats);

// After the round's pass: its leftovers become the next round's pairs.
void rerun_round_done(rerun_queue *q);

// Answers the pairs the last round left with the CPU reference; adds them
// to *fallbacks and to stats's CPU fallbacks.
vkcol_result rerun_on_cpu(batch_scope *s, rerun_queue *q, const vkcol_pair *pairs, vkcol_pair_result *results,
                          list_sink *sink, uint64_t *fallbacks, vkcol_batch_stats *stats);

// The CPU reference answers pair `at` (pairs validated already): one that
// overflowed the frontier even alone, or that float could not decide; and
// lists its triangle pairs in sink when listing (sink not NULL).
vkcol_result rerun_cpu_answer(batch_scope *s, const vkcol_pair *pair, uint64_t at, vkcol_pair_result *result,
                              list_sink *sink);
