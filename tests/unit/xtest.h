/* SPDX-License-Identifier: GPL-2.0 */
/*
 * xtest: the minimal in-house unit test framework of tests/unit.
 *
 *	XTEST(name) { CHECK(x); CHECK_EQ(a, b); CHECK_STR(s, "x"); }
 *
 * Cases register themselves (constructor) and run in registration order
 * (xtest.c).  A case fails when any of its checks fails; checks do not abort
 * the case, so one run shows every broken expectation.  CHECK_EQ compares
 * integers of any width and sign as intmax_t after conversion of both sides
 * to the type of their sum (so -EINVAL == -22 and u64 values compare as
 * the C operators would), and prints both values on failure.
 */
#ifndef XTEST_H
#define XTEST_H

#include <inttypes.h>
#include <stdint.h>
#include <string.h>

struct xt_case {
	const char *name;
	const char *file;
	void (*fn)(void);
	struct xt_case *next;
};

void xt_register(struct xt_case *c);
void xt_fail(const char *file, int line, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
extern unsigned long xt_checks;

#define XTEST(name)							\
	static void xt_fn_##name(void);					\
	static struct xt_case xt_case_##name = {			\
		#name, __FILE__, xt_fn_##name, NULL			\
	};								\
	__attribute__((constructor)) static void xt_reg_##name(void)	\
	{								\
		xt_register(&xt_case_##name);				\
	}								\
	static void xt_fn_##name(void)

#define CHECK(cond)							\
	do {								\
		xt_checks++;						\
		if (!(cond))						\
			xt_fail(__FILE__, __LINE__, "CHECK(%s)", #cond);\
	} while (0)

/* Both sides converted to their common type, then compared. */
#define CHECK_EQ(a, b)							\
	do {								\
		__typeof__((a) + (b)) xt_a_ = (a), xt_b_ = (b);		\
		xt_checks++;						\
		if (xt_a_ != xt_b_)					\
			xt_fail(__FILE__, __LINE__,			\
				"CHECK_EQ(%s, %s): %jd (0x%jx) != %jd (0x%jx)",\
				#a, #b, (intmax_t)xt_a_, (uintmax_t)xt_a_, \
				(intmax_t)xt_b_, (uintmax_t)xt_b_);	\
	} while (0)

#define CHECK_STR(a, b)							\
	do {								\
		const char *xt_sa_ = (a), *xt_sb_ = (b);		\
		xt_checks++;						\
		if (!xt_sa_ || !xt_sb_ || strcmp(xt_sa_, xt_sb_))	\
			xt_fail(__FILE__, __LINE__,			\
				"CHECK_STR(%s, %s): \"%s\" != \"%s\"",	\
				#a, #b, xt_sa_ ? xt_sa_ : "(null)",	\
				xt_sb_ ? xt_sb_ : "(null)");		\
	} while (0)

#endif /* XTEST_H */
