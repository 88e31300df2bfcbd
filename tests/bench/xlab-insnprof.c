// SPDX-License-Identifier: GPL-2.0
/*
 * xlab-insnprof: a QEMU TCG plugin that counts the guest instructions the
 * lab's machine executes, per translation block, so that the bench can say
 * where a job's instructions go: Xen, dom0's or the guest's kernel and
 * modules, user space.  On the icount clock an instruction is a nanosecond,
 * so this is exactly what the bench's IOPS measure (bench.rst).
 *
 * Loaded by tests/lab/run.sh with XLAB_INSNPROF=DIR:
 *
 *   -plugin xlab-insnprof.so,dir=DIR
 *
 * Every block is counted each time it runs (an inline add, no callback).
 * A dump is asked for by writing a tag to DIR/trigger (run.sh does that
 * when the serial console prints "XLAB-PROF-MARK <tag>"): a thread writes
 * DIR/prof-<tag>.txt with one line per block that ran since the previous
 * dump, "vaddr haddr insns executions", and starts counting afresh.  haddr
 * (the host address of the block's code) tells two domains' copies of the
 * same kernel text apart.
 *
 * QEMU's plugin API is declared here, as far as this plugin uses it
 * (QEMU_PLUGIN_VERSION 1, QEMU 7.2), so that building needs no QEMU
 * headers.
 */
#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* ---- the part of QEMU's plugin API (qemu-plugin.h) this file uses ---- */
typedef uint64_t qemu_plugin_id_t;
struct qemu_plugin_tb;
struct qemu_plugin_insn;
typedef struct qemu_info_t qemu_info_t;	/* not looked at */
enum qemu_plugin_op { QEMU_PLUGIN_INLINE_ADD_U64 };
typedef void (*qemu_plugin_vcpu_tb_trans_cb_t)(qemu_plugin_id_t id,
					       struct qemu_plugin_tb *tb);
typedef void (*qemu_plugin_udata_cb_t)(qemu_plugin_id_t id, void *userdata);

void qemu_plugin_register_vcpu_tb_trans_cb(qemu_plugin_id_t id,
					   qemu_plugin_vcpu_tb_trans_cb_t cb);
void qemu_plugin_register_vcpu_tb_exec_inline(struct qemu_plugin_tb *tb,
					      enum qemu_plugin_op op,
					      void *ptr, uint64_t imm);
size_t qemu_plugin_tb_n_insns(const struct qemu_plugin_tb *tb);
uint64_t qemu_plugin_tb_vaddr(const struct qemu_plugin_tb *tb);
struct qemu_plugin_insn *qemu_plugin_tb_get_insn(const struct qemu_plugin_tb *tb,
						 size_t idx);
void *qemu_plugin_insn_haddr(const struct qemu_plugin_insn *insn);
void qemu_plugin_register_atexit_cb(qemu_plugin_id_t id,
				    qemu_plugin_udata_cb_t cb, void *userdata);

__attribute__((visibility("default"))) int qemu_plugin_version = 1;
/* ---------------------------------------------------------------------- */

struct block {
	uint64_t count;		/* first: the inline add's target */
	uint64_t vaddr;
	uint64_t haddr;
	uint32_t insns;
};

#define CHUNK	65536

static struct block **chunks;	/* blocks are never freed: QEMU may run them */
static size_t nr_blocks, nr_chunks;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static char dir[4096];
static int dumps;

static struct block *block_new(void)
{
	struct block *b;

	pthread_mutex_lock(&lock);
	if (nr_blocks == nr_chunks * CHUNK) {
		chunks = realloc(chunks, (nr_chunks + 1) * sizeof(*chunks));
		if (!chunks)
			abort();
		chunks[nr_chunks] = calloc(CHUNK, sizeof(**chunks));
		if (!chunks[nr_chunks])
			abort();
		nr_chunks++;
	}
	b = &chunks[nr_blocks / CHUNK][nr_blocks % CHUNK];
	nr_blocks++;
	pthread_mutex_unlock(&lock);
	return b;
}

static void tb_trans(qemu_plugin_id_t id, struct qemu_plugin_tb *tb)
{
	struct block *b = block_new();

	(void)id;
	b->vaddr = qemu_plugin_tb_vaddr(tb);
	b->insns = qemu_plugin_tb_n_insns(tb);
	b->haddr = b->insns ?
		(uint64_t)(uintptr_t)qemu_plugin_insn_haddr(qemu_plugin_tb_get_insn(tb, 0)) : 0;
	qemu_plugin_register_vcpu_tb_exec_inline(tb, QEMU_PLUGIN_INLINE_ADD_U64,
						 &b->count, 1);
}

/*
 * Write what ran since the last dump and start afresh.  The counters are
 * read and cleared while the vCPU thread adds to them: a block that runs
 * in between loses a few counts, nothing more.
 */
static void dump(const char *tag)
{
	char path[4200], tmp[4300];
	size_t i, n;
	FILE *f;

	snprintf(path, sizeof(path), "%s/prof-%s.txt", dir, tag);
	snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	f = fopen(tmp, "w");
	if (!f) {
		fprintf(stderr, "xlab-insnprof: %s: %s\n", tmp, strerror(errno));
		return;
	}
	pthread_mutex_lock(&lock);
	n = nr_blocks;
	pthread_mutex_unlock(&lock);
	for (i = 0; i < n; i++) {
		struct block *b = &chunks[i / CHUNK][i % CHUNK];
		uint64_t c = __atomic_exchange_n(&b->count, 0, __ATOMIC_RELAXED);

		if (c)
			fprintf(f, "%llx %llx %u %llu\n",
				(unsigned long long)b->vaddr,
				(unsigned long long)b->haddr, b->insns,
				(unsigned long long)c);
	}
	fclose(f);
	rename(tmp, path);
	dumps++;
}

/* Polls DIR/trigger: a tag written there asks for a dump. */
static void *watcher(void *arg)
{
	char trig[4200], tag[128];

	(void)arg;
	snprintf(trig, sizeof(trig), "%s/trigger", dir);
	for (;;) {
		FILE *f = fopen(trig, "r");

		if (f) {
			size_t len;

			if (!fgets(tag, sizeof(tag), f))
				tag[0] = 0;
			fclose(f);
			unlink(trig);
			len = strcspn(tag, "\n /");
			tag[len] = 0;
			if (len)
				dump(tag);
		}
		usleep(2000);
	}
	return NULL;
}

static void at_exit(qemu_plugin_id_t id, void *p)
{
	(void)id;
	(void)p;
	dump("exit");
}

__attribute__((visibility("default")))
int qemu_plugin_install(qemu_plugin_id_t id, const qemu_info_t *info,
			int argc, char **argv)
{
	pthread_t t;
	int i;

	(void)info;
	for (i = 0; i < argc; i++)
		if (!strncmp(argv[i], "dir=", 4))
			snprintf(dir, sizeof(dir), "%s", argv[i] + 4);
	if (!dir[0]) {
		fprintf(stderr, "xlab-insnprof: needs dir=DIR\n");
		return -1;
	}
	qemu_plugin_register_vcpu_tb_trans_cb(id, tb_trans);
	qemu_plugin_register_atexit_cb(id, at_exit, NULL);
	if (pthread_create(&t, NULL, watcher, NULL))
		return -1;
	pthread_detach(t);
	return 0;
}
