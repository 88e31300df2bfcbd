// SPDX-License-Identifier: GPL-2.0
/*
 * xlab-kprof: where a lab kernel spends its time, from the kernel's own
 * timer-tick profiler (/proc/profile, enabled by booting with profile=N).
 * Under QEMU's icount clock the ticks come every 4 ms of virtual time, that
 * is every 4 million instructions of the interrupted vCPU, so the counts
 * are an instruction profile of the kernel (user mode is not sampled;
 * module text falls into the profiler's last bucket, "[modules]").
 *
 *   xlab-kprof reset                 clear the counters
 *   xlab-kprof top N [MAP]           the N busiest functions, one a line:
 *                                    "ticks percent symbol", after a line
 *                                    "total TICKS"; MAP is /proc/kallsyms
 *                                    (Debian ships no real System.map; with
 *                                    kptr_restrict 0 root reads addresses)
 *
 * Runs in the lab's images (busybox, no perf); static, no library.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct sym {
	unsigned long addr;
	char name[64];
	unsigned long ticks;
};

static int by_addr(const void *a, const void *b)
{
	const struct sym *x = a, *y = b;

	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

static int by_ticks(const void *a, const void *b)
{
	const struct sym *x = a, *y = b;

	return x->ticks < y->ticks ? 1 : x->ticks > y->ticks ? -1 : 0;
}

/* Every text symbol of a System.map, sorted by address. */
static struct sym *read_map(const char *path, size_t *n, unsigned long *stext)
{
	struct sym *s = NULL;
	size_t cap = 0;
	char line[256], type, name[200];
	unsigned long a;
	FILE *f = fopen(path, "r");

	if (!f) {
		fprintf(stderr, "xlab-kprof: %s: %s\n", path, strerror(errno));
		return NULL;
	}
	*n = 0;
	*stext = 0;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%lx %c %199s", &a, &type, name) != 3)
			continue;
		if (!strcmp(name, "_stext"))
			*stext = a;
		if (type != 't' && type != 'T')
			continue;
		if (*n == cap) {
			cap = cap ? cap * 2 : 65536;
			s = realloc(s, cap * sizeof(*s));
			if (!s)
				exit(2);
		}
		s[*n].addr = a;
		snprintf(s[*n].name, sizeof(s[*n].name), "%.63s", name);
		s[*n].ticks = 0;
		(*n)++;
	}
	fclose(f);
	qsort(s, *n, sizeof(*s), by_addr);
	return s;
}

/* The symbol that holds @addr: the last one at or below it. */
static struct sym *lookup(struct sym *s, size_t n, unsigned long addr)
{
	size_t lo = 0, hi = n;

	if (!n || addr < s[0].addr)
		return NULL;
	while (hi - lo > 1) {
		size_t mid = (lo + hi) / 2;

		if (s[mid].addr <= addr)
			lo = mid;
		else
			hi = mid;
	}
	return &s[lo];
}

static int top(int nr, const char *map)
{
	unsigned long stext, total = 0, modules = 0, other = 0;
	unsigned int *buf, step;
	struct sym *s;
	size_t n, len = 0, cap = 1 << 22, i;
	ssize_t r;
	int fd;

	s = read_map(map, &n, &stext);
	if (!s || !stext) {
		fprintf(stderr, "xlab-kprof: no _stext in %s (kptr_restrict?)\n", map);
		return 2;
	}
	fd = open("/proc/profile", O_RDONLY);
	if (fd < 0) {
		fprintf(stderr, "xlab-kprof: /proc/profile: %s (boot with profile=2)\n",
			strerror(errno));
		return 2;
	}
	buf = malloc(cap);
	while (buf && (r = read(fd, (char *)buf + len, cap - len)) > 0) {
		len += r;
		if (len == cap)
			buf = realloc(buf, cap *= 2);
	}
	close(fd);
	if (!buf || len < 2 * sizeof(*buf))
		return 2;
	step = buf[0];		/* the first word: bytes per bucket */
	len /= sizeof(*buf);
	for (i = 1; i < len; i++) {
		unsigned long a = stext + (unsigned long)(i - 1) * step;
		struct sym *y;

		if (!buf[i])
			continue;
		total += buf[i];
		if (i == len - 1) {	/* beyond _etext: modules */
			modules += buf[i];
			continue;
		}
		y = lookup(s, n, a);
		if (y)
			y->ticks += buf[i];
		else
			other += buf[i];
	}
	qsort(s, n, sizeof(*s), by_ticks);
	printf("total %lu\n", total);
	if (!total)
		return 0;
	if (modules)
		printf("%lu %.1f [modules]\n", modules, 100.0 * modules / total);
	for (i = 0; i < n && (int)i < nr && s[i].ticks; i++)
		printf("%lu %.1f %s\n", s[i].ticks, 100.0 * s[i].ticks / total,
		       s[i].name);
	if (other)
		printf("%lu %.1f [unknown]\n", other, 100.0 * other / total);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc == 2 && !strcmp(argv[1], "reset")) {
		int fd = open("/proc/profile", O_WRONLY);

		/* Any write but of one int (a multiplier) clears it. */
		if (fd < 0 || write(fd, "0\n", 2) < 0) {
			fprintf(stderr, "xlab-kprof: reset: %s\n", strerror(errno));
			return 2;
		}
		close(fd);
		return 0;
	}
	if (argc >= 3 && !strcmp(argv[1], "top"))
		return top(atoi(argv[2]), argc > 3 ? argv[3] : "/proc/kallsyms");
	fprintf(stderr, "usage: xlab-kprof reset | top N [SYSTEM.MAP]\n");
	return 2;
}
