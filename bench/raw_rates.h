// SPDX-License-Identifier: MIT
// What the device can do at all, by plain kernels built through the
// library's GPU layer (raw_rates.c): its cube-sampling rate on the batch
// pool's cube array with the batch stages' sampler (sample_raw.comp), and
// its memory bandwidth (copy_raw.comp). The benchmark shows each batch
// stage as a fraction of these.
#pragma once

#include <stdbool.h>
#include <stdint.h>

#include <vkcollide.h>

// Samples per second, `repeat` runs (rates[repeat]) after a warm-up, on the
// pool's cube array of `resolution` (a mesh of that resolution must exist;
// the pool is built if needed). Each run takes enough samples to last at
// least min_seconds. *device_timed: timed by timestamp queries (else the
// host's clock around the submission).
vkcol_result raw_sampling_rates(vkcol_context *ctx, uint32_t resolution, double min_seconds, int repeat,
                                double *rates, bool *device_timed);

// Bytes per second (read + written) of copies between two device buffers of
// *buffer_bytes each (chosen from the device's limits), `repeat` runs after
// a warm-up, each of enough copies to last at least min_seconds.
vkcol_result raw_bandwidth_rates(vkcol_context *ctx, double min_seconds, int repeat, double *rates,
                                 uint64_t *buffer_bytes, bool *device_timed);
