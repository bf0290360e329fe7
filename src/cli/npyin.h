// SPDX-License-Identifier: MIT
// Reading the header of a NumPy .npy input array (format versions 1, 2 and
// 3): its element type, order and shape. Only what `vkcollide run` reads:
// C-order arrays of one little-endian integer or float type, one or two
// dimensions.
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct npy_info {
	char kind;         // 'i', 'u' or 'f'
	uint32_t item_bytes; // 1, 2, 4 or 8
	uint32_t ndim;     // 1 or 2
	uint64_t shape[2];
	uint64_t data_offset; // where the elements start
	char descr[16];    // as written, for messages
} npy_info;

// Parses the header at the start of bytes (len of them: the first 64 KiB of
// the file hold any header this accepts). False with a reason in why (and
// the byte offset of the problem in *at) when it is not an .npy header
// this reads.
bool npy_parse_header(const unsigned char *bytes, size_t len, npy_info *out, char *why, size_t why_size,
                      uint64_t *at);
