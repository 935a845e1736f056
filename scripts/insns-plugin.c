// SPDX-License-Identifier: GPL-2.0
/*
 * A QEMU TCG plugin for scripts/insns.sh: how many guest instructions each
 * kernel translation block executed, written at exit as lines
 * "<start address> <instructions> <executions>" to $INSNS_OUT.
 *
 * Only the few entry points used are declared here, as QEMU 7.2 (Debian
 * 12) exports them (plugin API version 1): Debian ships no qemu-plugin.h.
 * Counting is inline, with no callback per block: a boot costs about
 * twice as long as without the plugin.  One vCPU (-smp 1): the counters
 * are not atomic.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

typedef uint64_t qemu_plugin_id_t;
typedef struct qemu_info_t qemu_info_t;
struct qemu_plugin_tb;
enum qemu_plugin_op { QEMU_PLUGIN_INLINE_ADD_U64 };
typedef void (*tb_trans_cb)(qemu_plugin_id_t id, struct qemu_plugin_tb *tb);
typedef void (*udata_cb)(qemu_plugin_id_t id, void *userdata);

void qemu_plugin_register_vcpu_tb_trans_cb(qemu_plugin_id_t id, tb_trans_cb cb);
size_t qemu_plugin_tb_n_insns(const struct qemu_plugin_tb *tb);
uint64_t qemu_plugin_tb_vaddr(const struct qemu_plugin_tb *tb);
void qemu_plugin_register_vcpu_tb_exec_inline(struct qemu_plugin_tb *tb,
					      enum qemu_plugin_op op,
					      void *ptr, uint64_t imm);
void qemu_plugin_register_atexit_cb(qemu_plugin_id_t id, udata_cb cb,
				    void *userdata);

__attribute__((visibility("default"))) int qemu_plugin_version = 1;

#define TB_BITS		22
#define TB_SIZE		(1u << TB_BITS)
#define KERNEL_START	0xffff000000000000ULL

struct tb_count {
	uint64_t vaddr;
	uint64_t insns;
	uint64_t execs;
};

static struct tb_count *counts;

/* The counters of the block at @vaddr; a block translated again keeps them */
static struct tb_count *tb_count_of(uint64_t vaddr)
{
	uint64_t i = (vaddr * 0x9e3779b97f4a7c15ULL) >> (64 - TB_BITS);

	for (;; i = (i + 1) & (TB_SIZE - 1)) {
		if (!counts[i].vaddr)
			counts[i].vaddr = vaddr;
		if (counts[i].vaddr == vaddr)
			return &counts[i];
	}
}

static void tb_translated(qemu_plugin_id_t id, struct qemu_plugin_tb *tb)
{
	uint64_t vaddr = qemu_plugin_tb_vaddr(tb);
	struct tb_count *c;

	if (vaddr < KERNEL_START)
		return;
	c = tb_count_of(vaddr);
	qemu_plugin_register_vcpu_tb_exec_inline(tb, QEMU_PLUGIN_INLINE_ADD_U64,
						 &c->insns,
						 qemu_plugin_tb_n_insns(tb));
	qemu_plugin_register_vcpu_tb_exec_inline(tb, QEMU_PLUGIN_INLINE_ADD_U64,
						 &c->execs, 1);
}

static void write_counts(qemu_plugin_id_t id, void *userdata)
{
	const char *path = getenv("INSNS_OUT");
	FILE *f = fopen(path ? path : "insns.out", "w");
	uint32_t i;

	if (!f)
		return;
	for (i = 0; i < TB_SIZE; i++)
		if (counts[i].insns)
			fprintf(f, "%llx %llu %llu\n",
				(unsigned long long)counts[i].vaddr,
				(unsigned long long)counts[i].insns,
				(unsigned long long)counts[i].execs);
	fclose(f);
}

__attribute__((visibility("default")))
int qemu_plugin_install(qemu_plugin_id_t id, const qemu_info_t *info,
			int argc, char **argv)
{
	counts = calloc(TB_SIZE, sizeof(*counts));
	if (!counts)
		return -1;
	qemu_plugin_register_vcpu_tb_trans_cb(id, tb_translated);
	qemu_plugin_register_atexit_cb(id, write_counts, NULL);
	return 0;
}
