// SPDX-License-Identifier: MIT
// A small test harness in the spirit of Box2D's test macros: ENSURE records a
// failure with file:line and continues to the end of the test function;
// RUN_TEST runs a test when its name matches the filter given on the command
// line (argv[1], substring; none = all). main() ends with TEST_SUMMARY(),
// which prints "N passed, N failed" and returns the exit code (77 = skipped,
// the Meson convention, for suites whose device is missing).
#pragma once

#include <math.h>
#include <stdio.h>
#include <string.h>

static int test_failures_;
static int test_passed_;
static int test_failed_;
static const char *test_filter_;

#define ENSURE(cond)                                                             \
	do {                                                                         \
		if (!(cond)) {                                                           \
			fprintf(stderr, "%s:%d: ENSURE(%s) failed\n", __FILE__, __LINE__, #cond); \
			test_failures_++;                                                    \
		}                                                                        \
	} while (0)

#define ENSURE_MSG(cond, ...)                                                    \
	do {                                                                         \
		if (!(cond)) {                                                           \
			fprintf(stderr, "%s:%d: ENSURE(%s) failed: ", __FILE__, __LINE__, #cond); \
			fprintf(stderr, __VA_ARGS__);                                        \
			fprintf(stderr, "\n");                                               \
			test_failures_++;                                                    \
		}                                                                        \
	} while (0)

#define ENSURE_EQ_INT(a, b)                                                      \
	do {                                                                         \
		long long ensure_a_ = (long long)(a), ensure_b_ = (long long)(b);        \
		if (ensure_a_ != ensure_b_) {                                            \
			fprintf(stderr, "%s:%d: ENSURE_EQ_INT(%s, %s) failed: %lld != %lld\n", __FILE__, \
			        __LINE__, #a, #b, ensure_a_, ensure_b_);                     \
			test_failures_++;                                                    \
		}                                                                        \
	} while (0)

#define ENSURE_SMALL(value, tolerance)                                           \
	do {                                                                         \
		double ensure_v_ = (double)(value);                                      \
		if (!(fabs(ensure_v_) <= (tolerance))) {                                 \
			fprintf(stderr, "%s:%d: ENSURE_SMALL(%s) failed: %g > %g\n", __FILE__, __LINE__, \
			        #value, ensure_v_, (double)(tolerance));                     \
			test_failures_++;                                                    \
		}                                                                        \
	} while (0)

#define TEST_INIT(argc, argv) (test_filter_ = (argc) > 1 ? (argv)[1] : NULL)

#define RUN_TEST(fn)                                                             \
	do {                                                                         \
		if (test_filter_ == NULL || strstr(#fn, test_filter_) != NULL) {         \
			int before_ = test_failures_;                                        \
			fn();                                                                \
			if (test_failures_ == before_) {                                     \
				test_passed_++;                                                  \
				printf("ok   %s\n", #fn);                                        \
			} else {                                                             \
				test_failed_++;                                                  \
				printf("FAIL %s\n", #fn);                                        \
			}                                                                    \
			fflush(stdout);                                                      \
		}                                                                        \
	} while (0)

#define TEST_SUMMARY()                                                           \
	(printf("%d passed, %d failed\n", test_passed_, test_failed_),               \
	 (test_failed_ > 0 || (test_passed_ == 0 && test_filter_ == NULL)) ? 1 : 0)
