// SPDX-License-Identifier: GPL-2.0
/*
 * xlab-ackw: the lab's "acknowledged writes" writer and checker (suite lifecycle).
 *
 *   xlab-ackw write  -d DEV -r RUNID -c CYCLE -l LOGDIR [-j JOBS] [-m REGION_MIB] [-t SECS]
 *   xlab-ackw verify -d DEV -r RUNID -c CYCLE -l LOGDIR
 *   xlab-ackw tear   -d DEV -r RUNID -c CYCLE -l LOGDIR -J JOB -s SECTORS   (checker test)
 *
 * write: JOBS processes (default 8), each with its own region of REGION_MIB (default 16) on
 * DEV, write it sequentially (wrapping around) with O_DIRECT pwrite()s of 4, 16, 64 or 256 KiB
 * (by job number), so that up to JOBS requests are in flight at any time. Every 4 KiB block
 * describes itself: a header (magic, run id, cycle, job, sequence number of the write, block
 * number on DEV) and a payload generated from those. Before each write a job appends
 * "S <seq> <blk>" to LOGDIR/job<N>.log (tmpfs), after the write returned success
 * "A <seq>", after a failure "E <seq> <errno>", and then it stops. Jobs end at the first
 * error, or after SECS (default 300) seconds.
 *
 * verify: reads the logs back and checks, with O_DIRECT reads, that every block whose last
 * write was acknowledged holds exactly that write. A block that a later, unacknowledged write
 * (the one in flight when the job stopped) also covered may hold either version, or a mix of
 * the two by 512-byte sector ("mixed"): a failed write is only atomic per logical block, and
 * the block layer may have split it into requests of which only some reached the disk (seen
 * with a 255-sector request limit, which cuts a 256 KiB write inside a 4 KiB block). Prints
 * XLAB-ACKV with the counts and one XLAB-ACKV-BAD line per mismatch (the first 20); exit status
 * 0 if nothing is wrong, 1 on a mismatch, 2 on a usage or I/O error.
 *
 * tear: for tests/lab/tools/test-ackw.sh, after a write run ended by timeout: logs the next
 * write of job JOB as started and puts only its first SECTORS 512-byte sectors on DEV, as a
 * write split into requests of which only the first reached the disk.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define BLK		4096u
#define SECT		512u
#define MAGIC		"XLABACKW"
#define MAX_JOBS	32
#define CHUNK_BLKS	256u	/* verify reads 1 MiB at a time */

struct hdr {
	char magic[8];
	uint64_t runid;
	uint32_t cycle;
	uint32_t job;
	uint64_t seq;
	uint64_t blk;
};

static const char *dev, *logdir;
static uint64_t runid;
static uint32_t cycle;
static unsigned int jobs = 8, region_mib = 16, max_secs = 300;

/* 4 KiB blocks per write of job @j: 4, 4, 4, 4, 16, 16, 64, 256 KiB, repeating */
static unsigned int job_nblk(unsigned int j)
{
	static const unsigned int n[8] = { 1, 1, 1, 1, 4, 4, 16, 64 };

	return n[j % 8];
}

static uint64_t mix(uint64_t x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdULL;
	x ^= x >> 33;
	x *= 0xc4ceb9fe1a85ec53ULL;
	x ^= x >> 33;
	return x;
}

/* the exact content of block @blk as written by write @seq of job @job */
static void fill_block(unsigned char *b, uint32_t job, uint64_t seq, uint64_t blk)
{
	struct hdr h;
	uint64_t s, *p;
	unsigned int i;

	memcpy(h.magic, MAGIC, 8);
	h.runid = runid;
	h.cycle = cycle;
	h.job = job;
	h.seq = seq;
	h.blk = blk;
	s = mix(runid ^ mix(((uint64_t)cycle << 32 | job) ^ mix(seq ^ mix(blk)))) | 1;
	p = (uint64_t *)b;
	for (i = 0; i < BLK / 8; i++) {
		s ^= s << 13;
		s ^= s >> 7;
		s ^= s << 17;
		p[i] = s;
	}
	memcpy(b, &h, sizeof(h));
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static int log_line(int fd, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static int log_line(int fd, const char *fmt, ...)
{
	char buf[96];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	return write(fd, buf, n) == n ? 0 : -1;
}

/* 4 KiB blocks in each job's region */
static uint64_t region_blocks(void)
{
	return (uint64_t)region_mib * (1 << 20) / BLK;
}

/* where in its region a job's next write of @nblk blocks goes, after one at @pos - @nblk */
static uint64_t next_pos(uint64_t pos, unsigned int nblk)
{
	return pos + nblk > region_blocks() ? 0 : pos;
}

static int job_write(unsigned int j)
{
	unsigned int nblk = job_nblk(j), i;
	uint64_t rblocks = region_blocks();
	uint64_t start = (uint64_t)j * rblocks, pos = 0, seq = 0, acked = 0;
	unsigned char *buf;
	char path[512];
	double t0 = now();
	int fd, lfd, err = 0;
	ssize_t r;

	snprintf(path, sizeof(path), "%s/job%u.log", logdir, j);
	lfd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_APPEND, 0644);
	fd = open(dev, O_WRONLY | O_DIRECT);
	if (lfd < 0 || fd < 0 || posix_memalign((void **)&buf, BLK, (size_t)nblk * BLK)) {
		printf("XLAB-ACKW job=%u setup failed: %s\n", j, strerror(errno));
		return 2;
	}
	log_line(lfd, "J %u %u %" PRIu64 " %" PRIu64 "\n", j, nblk, start, rblocks);
	while (now() - t0 < max_secs) {
		pos = next_pos(pos, nblk);
		seq++;
		for (i = 0; i < nblk; i++)
			fill_block(buf + (size_t)i * BLK, j, seq, start + pos + i);
		if (log_line(lfd, "S %" PRIu64 " %" PRIu64 "\n", seq, start + pos))
			return 2;
		r = pwrite(fd, buf, (size_t)nblk * BLK, (off_t)(start + pos) * BLK);
		if (r != (ssize_t)nblk * BLK) {
			err = r < 0 ? errno : EIO;
			log_line(lfd, "E %" PRIu64 " %d\n", seq, err);
			break;
		}
		log_line(lfd, "A %" PRIu64 "\n", seq);
		acked++;
		pos += nblk;
	}
	printf("XLAB-ACKW job=%u bs=%uk acked_writes=%" PRIu64 " acked_blocks=%" PRIu64
	       " end=%s errno=%d after=%.1fs\n", j, nblk * 4, acked, acked * nblk,
	       err ? strerrorname_np(err) ?: "?" : "timeout", err, now() - t0);
	fflush(stdout);
	close(fd);
	return err ? 1 : 0;
}

static int do_write(void)
{
	unsigned int j, nerr = 0, nto = 0;
	pid_t pids[MAX_JOBS];
	int st;

	setvbuf(stdout, NULL, _IOLBF, 0);
	for (j = 0; j < jobs; j++) {
		pids[j] = fork();
		if (pids[j] < 0)
			return 2;
		if (!pids[j])
			_exit(job_write(j));
	}
	for (j = 0; j < jobs; j++) {
		if (waitpid(pids[j], &st, 0) < 0 || !WIFEXITED(st) || WEXITSTATUS(st) > 1)
			nerr += 100;
		else if (WEXITSTATUS(st) == 1)
			nerr++;
		else
			nto++;
	}
	printf("XLAB-ACKW-END jobs=%u ended_by_error=%u ended_by_timeout=%u broken=%u\n",
	       jobs, nerr % 100, nto, nerr / 100);
	return nerr >= 100 ? 2 : 0;
}

struct jstate {
	unsigned int nblk;
	uint64_t start, rblocks;
	uint64_t *acked;	/* per region block: seq of the last acknowledged write, 0 none */
	uint64_t pend_seq, pend_pos;	/* the write with no "A" (in flight at the end) */
	uint64_t acked_writes, top;	/* top: blocks [0, top) of the region were written */
};

static int load_log(unsigned int j, struct jstate *js)
{
	uint64_t seq, blk, cur_seq = 0, cur_pos = 0, acked_seq;
	char path[512], line[128];
	unsigned int jj, nblk, i;
	int e, have = 0;
	FILE *f;

	snprintf(path, sizeof(path), "%s/job%u.log", logdir, j);
	f = fopen(path, "r");
	if (!f)
		return -1;
	memset(js, 0, sizeof(*js));
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "J %u %u %" SCNu64 " %" SCNu64, &jj, &nblk, &js->start,
			   &js->rblocks) == 4) {
			js->nblk = nblk;
			js->acked = calloc(js->rblocks, sizeof(uint64_t));
			if (!js->acked)
				return -1;
		} else if (js->acked && sscanf(line, "S %" SCNu64 " %" SCNu64, &seq, &blk) == 2) {
			cur_seq = seq;
			cur_pos = blk - js->start;
			if (cur_pos + js->nblk > js->rblocks)
				return -1;
			have = 1;
		} else if (js->acked && sscanf(line, "A %" SCNu64, &acked_seq) == 1) {
			if (!have || acked_seq != cur_seq)
				return -1;
			for (i = 0; i < js->nblk; i++)
				js->acked[cur_pos + i] = cur_seq;
			js->acked_writes++;
			have = 0;
		} else if (sscanf(line, "E %" SCNu64 " %d", &seq, &e) == 2) {
			/* the failed write stays "pending": it may or may not have landed */
		} else {
			/* a line cut by the end of the log: the write was not acknowledged */
		}
		if (have && cur_pos + js->nblk > js->top)
			js->top = cur_pos + js->nblk;
	}
	fclose(f);
	if (!js->acked)
		return -1;
	if (have) {
		js->pend_seq = cur_seq;
		js->pend_pos = cur_pos;
	}
	return 0;
}

/* each 512-byte sector of @got is the one of @a or the one of @b, and both occur */
static int sector_mix(const unsigned char *got, const unsigned char *a, const unsigned char *b)
{
	unsigned int s, na = 0, nb = 0;

	for (s = 0; s < BLK; s += SECT) {
		if (!memcmp(got + s, a + s, SECT))
			na++;
		else if (!memcmp(got + s, b + s, SECT))
			nb++;
		else
			return 0;
	}
	return na && nb;
}

static int do_verify(void)
{
	uint64_t ok = 0, ok_new = 0, mixed = 0, un_landed = 0, un_absent = 0, bad = 0, blocks = 0;
	uint64_t awrites = 0, ablocks = 0, sample = UINT64_MAX, b, c, n, blk;
	unsigned char *buf, *want, *want2;
	struct jstate js;
	unsigned int j, i;
	int fd;

	fd = open(dev, O_RDONLY | O_DIRECT);
	if (fd < 0 || posix_memalign((void **)&buf, BLK, CHUNK_BLKS * BLK) ||
	    posix_memalign((void **)&want, BLK, BLK) || posix_memalign((void **)&want2, BLK, BLK)) {
		printf("XLAB-ACKV error: open %s: %s\n", dev, strerror(errno));
		return 2;
	}
	for (j = 0; j < jobs; j++) {
		if (load_log(j, &js)) {
			printf("XLAB-ACKV error: log of job %u missing or malformed\n", j);
			return 2;
		}
		if (!js.acked_writes && !js.pend_seq)
			printf("XLAB-ACKV note: job %u wrote nothing\n", j);
		awrites += js.acked_writes;
		ablocks += js.acked_writes * js.nblk;
		for (c = 0; c < js.top; c += n) {
			n = js.top - c < CHUNK_BLKS ? js.top - c : CHUNK_BLKS;
			if (pread(fd, buf, n * BLK, (off_t)(js.start + c) * BLK) != (ssize_t)(n * BLK)) {
				printf("XLAB-ACKV error: read of blocks %" PRIu64 "+%" PRIu64
				       " failed: %s\n", js.start + c, n, strerror(errno));
				return 2;
			}
			for (i = 0; i < n; i++) {
				b = c + i;
				blk = js.start + b;
				int pend = js.pend_seq && b >= js.pend_pos && b < js.pend_pos + js.nblk;
				unsigned char *got = buf + (size_t)i * BLK;

				if (js.acked[b]) {
					blocks++;
					fill_block(want, j, js.acked[b], blk);
					if (!memcmp(got, want, BLK)) {
						ok++;
						if (!pend && sample == UINT64_MAX)
							sample = blk;
						continue;
					}
					if (pend) {
						fill_block(want2, j, js.pend_seq, blk);
						if (!memcmp(got, want2, BLK)) {
							ok_new++;
							continue;
						}
						if (sector_mix(got, want, want2)) {
							mixed++;
							continue;
						}
					}
					if (++bad <= 20) {
						struct hdr *h = (struct hdr *)got;

						printf("XLAB-ACKV-BAD job=%u blk=%" PRIu64 " acked_seq=%" PRIu64
						       " found: magic_ok=%d cycle=%u job=%u seq=%" PRIu64
						       " blk=%" PRIu64 "%s\n", j, blk, js.acked[b],
						       !memcmp(h->magic, MAGIC, 8), h->cycle, h->job,
						       h->seq, h->blk,
						       pend ? " (a later unacked write covered it too)" : "");
					}
				} else if (pend) {
					fill_block(want, j, js.pend_seq, blk);
					if (!memcmp(got, want, BLK))
						un_landed++;
					else
						un_absent++;
				}
			}
		}
		free(js.acked);
	}
	printf("XLAB-ACKV cycle=%u jobs=%u acked_writes=%" PRIu64 " acked_blocks=%" PRIu64
	       " checked_blocks=%" PRIu64 " ok=%" PRIu64 " ok_newer=%" PRIu64
	       " unacked_landed=%" PRIu64 " unacked_absent=%" PRIu64 " bad=%" PRIu64
	       " sample=%" PRId64 " mixed=%" PRIu64 "\n", cycle, jobs, awrites, ablocks, blocks,
	       ok, ok_new, un_landed, un_absent, bad,
	       sample == UINT64_MAX ? (int64_t)-1 : (int64_t)sample, mixed);
	return bad ? 1 : 0;
}

static int do_tear(unsigned int j, unsigned int sectors)
{
	unsigned int nblk = job_nblk(j), i;
	uint64_t start = (uint64_t)j * region_blocks(), seq = 0, blk = 0, pos, s;
	char path[512], line[128];
	unsigned char *buf;
	int fd, lfd;
	FILE *f;

	snprintf(path, sizeof(path), "%s/job%u.log", logdir, j);
	f = fopen(path, "r");
	if (!f)
		return 2;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "S %" SCNu64 " %" SCNu64, &s, &pos) == 2)
			seq = s, blk = pos;
	fclose(f);
	if (!seq || sectors > nblk * (BLK / SECT))
		return 2;
	/* the write after the last one, where job_write() would place it */
	pos = next_pos(blk - start + nblk, nblk);
	blk = start + pos;
	if (posix_memalign((void **)&buf, BLK, (size_t)nblk * BLK))
		return 2;
	for (i = 0; i < nblk; i++)
		fill_block(buf + (size_t)i * BLK, j, seq + 1, blk + i);
	lfd = open(path, O_WRONLY | O_APPEND);
	fd = open(dev, O_WRONLY);
	if (lfd < 0 || fd < 0 ||
	    log_line(lfd, "S %" PRIu64 " %" PRIu64 "\n", seq + 1, blk) ||
	    pwrite(fd, buf, (size_t)sectors * SECT, (off_t)blk * BLK) != (ssize_t)sectors * SECT ||
	    fsync(fd))
		return 2;
	printf("XLAB-ACKT job=%u seq=%" PRIu64 " blk=%" PRIu64 " sectors=%u\n", j, seq + 1, blk,
	       sectors);
	return 0;
}

static void usage(void)
{
	fprintf(stderr, "usage: xlab-ackw write|verify|tear -d DEV -r RUNID -c CYCLE -l LOGDIR "
		"[-j JOBS] [-m REGION_MIB] [-t SECS] [-J JOB -s SECTORS]\n");
	exit(2);
}

int main(int argc, char **argv)
{
	unsigned int tjob = 0, tsect = 0;
	const char *mode;
	int o;

	if (argc < 2)
		usage();
	mode = argv[1];
	optind = 2;
	while ((o = getopt(argc, argv, "d:r:c:l:j:m:t:J:s:")) != -1) {
		switch (o) {
		case 'd': dev = optarg; break;
		case 'r': runid = strtoull(optarg, NULL, 0); break;
		case 'c': cycle = strtoul(optarg, NULL, 0); break;
		case 'l': logdir = optarg; break;
		case 'j': jobs = strtoul(optarg, NULL, 0); break;
		case 'm': region_mib = strtoul(optarg, NULL, 0); break;
		case 't': max_secs = strtoul(optarg, NULL, 0); break;
		case 'J': tjob = strtoul(optarg, NULL, 0); break;
		case 's': tsect = strtoul(optarg, NULL, 0); break;
		default: usage();
		}
	}
	if (!dev || !logdir || !runid || !jobs || jobs > MAX_JOBS || !region_mib)
		usage();
	if (!strcmp(mode, "write"))
		return do_write();
	if (!strcmp(mode, "verify"))
		return do_verify();
	if (!strcmp(mode, "tear") && tjob < jobs && tsect)
		return do_tear(tjob, tsect);
	usage();
	return 2;
}
