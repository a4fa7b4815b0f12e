/* SPDX-License-Identifier: GPL-2.0 */
/*
 * TAP output for pclab's C tests, kselftest style: a plan, one line per
 * check, skips with a reason, and an exit status that says whether all
 * checks passed.
 */
#ifndef PCLAB_TAP_H
#define PCLAB_TAP_H

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int tap_count;
static int tap_failures;

static inline void tap_plan(int n)
{
	printf("1..%d\n", n);
	fflush(stdout);
}

static inline void tap_diag(const char *fmt, ...)
{
	va_list ap;

	printf("# ");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	fflush(stdout);
}

static inline void tap_skip(const char *reason, const char *fmt, ...)
{
	va_list ap;

	tap_count++;
	printf("ok %d - ", tap_count);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf(" # SKIP %s\n", reason);
	fflush(stdout);
}

/*
 * Checks in the words of the guest suites' kselftest harness, so that host
 * and guest tests read alike and a failure says where and what:
 *
 *   EXPECT_TRUE(cond, fmt, ...)             cond holds
 *   EXPECT_EQ(expected, seen, fmt, ...)     two integers are equal
 *   EXPECT_STREQ(expected, seen, fmt, ...)  two strings are equal
 *
 * Each records one check, described by fmt, and returns whether it passed.
 * A failure adds "# FILE:LINE: ..." with the expression, or with both
 * values and the expressions that gave them.
 */
#define EXPECT_TRUE(cond, ...) tap_check(!!(cond), __FILE__, __LINE__, #cond, __VA_ARGS__)
#define TAP_SIGNED(x) (((__typeof__(x))-1) < (__typeof__(x))1)
/* integers, enums and pointers only: a double would be cut to an integer */
#define TAP_INTEGER(x) _Static_assert(_Generic((x) + 0, float: 0, double: 0, long double: 0, \
					       default: 1), "EXPECT_EQ compares integers")
#define EXPECT_EQ(expected, seen, ...)                                                        \
	__extension__({                                                                       \
		TAP_INTEGER(expected);                                                        \
		TAP_INTEGER(seen);                                                            \
		__typeof__(expected) tap_e_ = (expected);                                     \
		__typeof__(seen) tap_s_ = (seen);                                             \
		tap_check_eq((unsigned long long)tap_e_ == (unsigned long long)tap_s_,        \
			     __FILE__, __LINE__, #expected, #seen,                            \
			     (unsigned long long)tap_e_, TAP_SIGNED(tap_e_),                  \
			     (unsigned long long)tap_s_, TAP_SIGNED(tap_s_), __VA_ARGS__);    \
	})
#define EXPECT_STREQ(expected, seen, ...)                                                     \
	tap_check_streq(__FILE__, __LINE__, #seen, (expected), (seen), __VA_ARGS__)

static inline void tap_vok(int cond, const char *fmt, va_list ap)
{
	tap_count++;
	if (!cond)
		tap_failures++;
	printf("%s %d - ", cond ? "ok" : "not ok", tap_count);
	vprintf(fmt, ap);
	printf("\n");
}

static inline int tap_check(int cond, const char *file, int line, const char *expr,
			    const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	tap_vok(cond, fmt, ap);
	va_end(ap);
	if (!cond)
		printf("# %s:%d: expected %s\n", file, line, expr);
	fflush(stdout);
	return cond;
}

static inline void tap_print_int(unsigned long long v, int is_signed)
{
	if (is_signed)
		printf("%lld", (long long)v);
	else
		printf("%llu", v);
}

static inline int tap_check_eq(int cond, const char *file, int line, const char *e_expr,
			       const char *s_expr, unsigned long long e, int e_signed,
			       unsigned long long s, int s_signed, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	tap_vok(cond, fmt, ap);
	va_end(ap);
	if (!cond) {
		printf("# %s:%d: expected %s (", file, line, e_expr);
		tap_print_int(e, e_signed);
		printf(") == %s (", s_expr);
		tap_print_int(s, s_signed);
		printf(")\n");
	}
	fflush(stdout);
	return cond;
}

static inline int tap_check_streq(const char *file, int line, const char *s_expr,
				  const char *e, const char *s, const char *fmt, ...)
{
	int cond = e && s && !strcmp(e, s);
	va_list ap;

	va_start(ap, fmt);
	tap_vok(cond, fmt, ap);
	va_end(ap);
	if (!cond)
		printf("# %s:%d: expected \"%s\", %s is \"%s\"\n", file, line, e ? e : "(null)",
		       s_expr, s ? s : "(null)");
	fflush(stdout);
	return cond;
}

/* Prints the plan if none was given up front, and exits. */
static inline int tap_done(int planned)
{
	if (!planned)
		printf("1..%d\n", tap_count);
	fflush(stdout);
	exit(tap_failures ? EXIT_FAILURE : EXIT_SUCCESS);
}

#endif
