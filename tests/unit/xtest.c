// SPDX-License-Identifier: GPL-2.0
/*
 * xtest runner: runs every registered case (or those whose name contains one
 * of the arguments), reports each failed check, and ends with the line
 * "N passed, M failed" (cases, not checks).  Exit status 1 if any failed.
 *
 *	./unit_tests [-v] [-l] [substring...]
 */
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include "xtest.h"

unsigned long xt_checks;
static struct xt_case *xt_head, **xt_tail = &xt_head;
static const struct xt_case *xt_cur;
static unsigned int xt_cur_failures;

void xt_register(struct xt_case *c)
{
	c->next = NULL;
	*xt_tail = c;
	xt_tail = &c->next;
}

void xt_fail(const char *file, int line, const char *fmt, ...)
{
	va_list ap;

	if (!xt_cur_failures++)
		printf("FAIL %s\n", xt_cur ? xt_cur->name : "?");
	printf("  %s:%d: ", file, line);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	fflush(stdout);
}

static bool selected(const struct xt_case *c, int argc, char **argv)
{
	int i, filters = 0;

	for (i = 1; i < argc; i++) {
		if (argv[i][0] == '-')
			continue;
		filters++;
		if (strstr(c->name, argv[i]))
			return true;
	}
	return !filters;
}

int main(int argc, char **argv)
{
	unsigned int passed = 0, failed = 0;
	bool verbose = false, list = false;
	struct xt_case *c;
	int i;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "-v"))
			verbose = true;
		else if (!strcmp(argv[i], "-l"))
			list = true;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	for (c = xt_head; c; c = c->next) {
		if (!selected(c, argc, argv))
			continue;
		if (list) {
			printf("%s\t%s\n", c->name, c->file);
			continue;
		}
		xt_cur = c;
		xt_cur_failures = 0;
		c->fn();
		if (xt_cur_failures) {
			failed++;
		} else {
			passed++;
			if (verbose)
				printf("ok   %s\n", c->name);
		}
	}
	if (list)
		return 0;
	if (verbose)
		printf("(%lu checks)\n", xt_checks);
	printf("%u passed, %u failed\n", passed, failed);
	return failed ? 1 : 0;
}
