// SPDX-License-Identifier: GPL-2.0
/*
 * Lockdep crossrelease: dependencies through locks released elsewhere.
 *
 * Lockdep learns "A -> B" when B is acquired while A is held.  That needs
 * the release of A to happen in the context that acquired it.  A crosslock
 * (a completion, a folio lock) is released by some other context, so its
 * dependencies are decided where it is released: when context R releases
 * crosslock X ("commits" X), every lock R acquired since X was acquired had
 * to be taken before X could be released, so X depends on each of them.
 *
 * To know what R acquired, every task keeps a small ring of its recent
 * typical-lock acquisitions (the history).  A global generation counter,
 * bumped on each crosslock acquisition, orders history entries against
 * crosslocks: an entry counts for X only if it is not older than X.  Each
 * entry also carries the context instance it was made in (a hardirq, a
 * softirq, a work item, a system call), and a commit only looks at entries
 * of its own instance.
 *
 * Committed dependencies go through lockdep's usual checks (cycles, irq
 * inversions) via crosslock_add_dep(); a cache of committed pairs makes a
 * repeated commit cost a hash probe.  Stacks are kept per call site: the
 * first acquisition at a site while a crosslock is in flight saves its
 * stack (deduplicated by lockdep's trace store), later ones only probe a
 * hash, so reports carry full stacks without an unwind per acquisition.
 *
 * Reports are printed by lockdep_crossrelease_report.c, statistics kept
 * by lockdep_crossrelease_stats.c.  See
 * Documentation/locking/crossrelease.rst.
 */
#include <linux/crossrelease.h>
#include <linux/crossrelease_class_table.h>
#include <linux/hash.h>
#include <linux/init.h>
#include <linux/interrupt.h>
#include <linux/module.h>
#include <linux/percpu.h>
#include <linux/pid.h>
#include <linux/sched.h>
#include <linux/sched/task.h>
#include <linux/string.h>
#include <linux/threads.h>
#include <asm/sections.h>

#include "lockdep_internals.h"
#include "lockdep_crossrelease.h"
#include "lockdep_crossrelease_internals.h"

/* Tracking is on unless "crossrelease=off" is given on the command line. */
static bool xr_enabled __read_mostly = true;

static int __init xr_setup(char *str)
{
	if (str && !strcmp(str, "off"))
		xr_enabled = false;
	return 1;
}
__setup("crossrelease=", xr_setup);

/**
 * crosslock_enabled - is crossrelease tracking active in this boot?
 *
 * Return: false if the kernel was booted with "crossrelease=off".
 */
bool crosslock_enabled(void)
{
	return xr_enabled;
}
EXPORT_SYMBOL_GPL(crosslock_enabled);

/*
 * Tested first by the hooks on hot paths (crosslock_on()).  On from the
 * start, so that nothing acquired during boot is missed; switched off
 * before the other CPUs come up if tracking is off, so that a kernel
 * booted with "crossrelease=off" runs the lock paths of plain lockdep but
 * for a patched-out branch.  Until then, xr_enabled keeps those hooks
 * from doing anything.
 */
DEFINE_STATIC_KEY_TRUE(crosslock_on_key);
EXPORT_SYMBOL_GPL(crosslock_on_key);

static int __init xr_key_init(void)
{
	if (!xr_enabled)
		static_branch_disable(&crosslock_on_key);
	return 0;
}
early_initcall(xr_key_init);

/*
 * Bumped by each crosslock acquisition and each freed class; read by every
 * history entry.  64 bits: a folio lock bumps it too, and a wrapped
 * generation would make an old entry look newer than a crosslock.
 */
atomic64_t crosslock_gen = ATOMIC64_INIT(0);

/*
 * The generation at which each class index was last freed.  A history
 * entry older than that names a class that no longer exists, or an index
 * that lockdep handed to another class since: it is skipped.
 */
static atomic64_t xr_class_freed[MAX_LOCKDEP_KEYS];

/*
 * Bumped each time a class index is freed.  What the caches keep of a
 * class (a call site's stack, a committed dependency) carries the count
 * it was saved at and is stale once it differs, so freeing a class costs
 * a store, not a sweep of the caches with interrupts off.
 */
static unsigned int xr_class_incarn[MAX_LOCKDEP_KEYS];

static unsigned int xr_incarn(unsigned int class_idx)
{
	return READ_ONCE(xr_class_incarn[class_idx]);
}

/* Crosslock instances with at least one acquisition not yet released. */
atomic_t crosslock_nr_in_flight = ATOMIC_INIT(0);
EXPORT_SYMBOL_GPL(crosslock_nr_in_flight);

/* Context instances of interrupts, bumped by lockdep_{hard,soft}irq_enter() */
DEFINE_PER_CPU(unsigned int, crosslock_hardirq_seq);
DEFINE_PER_CPU(unsigned int, crosslock_softirq_seq);

/* Is generation @a older than generation @b? */
static inline bool xr_gen_before(u64 a, u64 b)
{
	return a < b;
}

/* Does class @class_idx, as seen at generation @gen, still exist? */
static bool xr_class_alive(unsigned int class_idx, u64 gen)
{
	return !xr_gen_before(gen, atomic64_read(&xr_class_freed[class_idx]));
}

/*
 * Classes of crosslocks, marked when one is acquired or committed: every
 * dependency that leads from a crosslock comes from a commit, so a cycle
 * through a crosslock has a marked class on it (crosslock_cycle_goes_on()); and
 * a lock of a marked class never implies the locks taken under it
 * (xr_hist_redundant()).
 */
DECLARE_BITMAP(crosslock_classes, MAX_LOCKDEP_KEYS);

/* Mark class @class_idx as a crosslock's; read first, as it almost always is */
static __always_inline void xr_mark_class(int class_idx)
{
	if (class_idx >= 0 && !test_bit(class_idx, crosslock_classes))
		set_bit(class_idx, crosslock_classes);
}

/* The class index of crosslock @map, its class marked as a crosslock's */
static int xr_mark_crosslock_class(struct lockdep_map *map)
{
	int class_idx = crosslock_class_idx(map);

	xr_mark_class(class_idx);
	return class_idx;
}

/*
 * Classes whose key is in the kernel's own static data, never freed: not a
 * module's, nor registered with lockdep_register_key().  Worked out once
 * per class index (xr_class_checked), and again once the index is freed.
 */
static DECLARE_BITMAP(xr_class_checked, MAX_LOCKDEP_KEYS);
static DECLARE_BITMAP(xr_class_static, MAX_LOCKDEP_KEYS);

static bool xr_class_never_freed(unsigned int class_idx)
{
	unsigned long key;
	bool never;

	if (likely(test_bit(class_idx, xr_class_checked)))
		return test_bit(class_idx, xr_class_static);
	key = (unsigned long)READ_ONCE(lock_classes[class_idx].key);
	never = is_kernel_core_data(key) || is_kernel_rodata(key) ||
		is_kernel_percpu_address(key);
	if (never)
		set_bit(class_idx, xr_class_static);
	smp_mb__before_atomic();	/* the answer before the mark */
	set_bit(class_idx, xr_class_checked);
	return never;
}

/* ---------------------------------------------------------------------
 * One-time warnings.  Misuse never crashes and never turns lockdep off.
 */
#define xr_warn_once(fmt, ...)						\
do {									\
	static bool __warned;						\
									\
	crosslock_counter_inc(CROSSLOCK_COUNTER_MISUSE);				\
	if (!__warned) {						\
		__warned = true;					\
		pr_warn("crossrelease: " fmt, ##__VA_ARGS__);		\
		dump_stack();						\
	}								\
} while (0)

/* ---------------------------------------------------------------------
 * Context instances.
 */
static unsigned int xr_irq_context(struct task_struct *curr)
{
	return LOCK_CHAIN_HARDIRQ_CONTEXT * !!lockdep_hardirq_context() +
	       LOCK_CHAIN_SOFTIRQ_CONTEXT * !!curr->softirq_context;
}

/*
 * The instance of the context we run in.  Interrupt instances are per CPU
 * sequence numbers tagged with the CPU, so that entries an interrupt left
 * in a task's ring never match a later interrupt on another CPU.
 */
static unsigned int xr_ctx_id(struct task_struct *curr,
			      unsigned int irq_context)
{
	/* process context first: the CPU is read only for an interrupt */
	if (likely(!irq_context))
		return curr->crosslock.ctx;
	if (irq_context & LOCK_CHAIN_HARDIRQ_CONTEXT)
		return raw_cpu_read(crosslock_hardirq_seq) << 8 |
		       (raw_smp_processor_id() & 0xff);
	return raw_cpu_read(crosslock_softirq_seq) << 8 |
	       (raw_smp_processor_id() & 0xff);
}

/**
 * lockdep_invariant_state - start a new process-context instance
 * @force: unused; kept for the callers' signature
 *
 * Called before each work item and on each return to user space: what the
 * task acquired before is not on the path to anything it releases after.
 */
void lockdep_invariant_state(bool force)
{
	current->crosslock.ctx++;
	current->crosslock.repeat_ip = 0;
}

void crosslock_init_task(struct task_struct *task)
{
	task->crosslock.nr_written = 0;
	task->crosslock.ctx = 0;
	task->crosslock.nr_waits = 0;
	task->crosslock.bounded = 0;
	task->crosslock.pushed = NULL;
	memset(task->crosslock.opportunistic, 0,
	       sizeof(task->crosslock.opportunistic));
	task->crosslock.hidden = 0;
	task->crosslock.repeat_ip = 0;
	memset(task->crosslock.span, 0, sizeof(task->crosslock.span));
}

/**
 * lockdep_free_task - check a task that goes away
 * @task: the exiting task
 *
 * A task that exits in the middle of a wait (between the acquisition and
 * the release of a self-released crosslock) has lost track of it.
 */
void lockdep_free_task(struct task_struct *task)
{
	if (unlikely(task->crosslock.nr_waits))
		xr_warn_once("%s/%d exits with %u crosslock acquisition(s) in flight\n",
			     task->comm, task_pid_nr(task), task->crosslock.nr_waits);
}

/* ---------------------------------------------------------------------
 * Stacks, one per (class, call site).
 */
#define XR_STACK_BITS	CONFIG_LOCKDEP_CROSSRELEASE_CACHE_BITS
#define XR_STACK_SIZE	BIT(XR_STACK_BITS)
#define XR_PROBES	8
#define XR_SLOT_FREE	0U
#define XR_SLOT_BUSY	(~0U)
#define XR_SLOT_DEAD	(~0U - 1)

struct xr_stack_slot {
	unsigned int		key;	/* class_idx + 1, or XR_SLOT_* */
	unsigned int		incarn;	/* the class's xr_class_incarn[] */
	unsigned long		ip;
	struct lock_trace	*trace;
};

/* Is @s, whose key is @key, the slot of a class index freed since? */
static bool xr_stack_stale(const struct xr_stack_slot *s, unsigned int key)
{
	return key != XR_SLOT_FREE && key < XR_SLOT_DEAD &&
	       READ_ONCE(s->incarn) != xr_incarn(key - 1);
}

static struct xr_stack_slot xr_stacks[XR_STACK_SIZE];

static struct xr_stack_slot *xr_stack_slot(unsigned int class_idx,
					   unsigned long ip, int probe)
{
	/* the class index in the top bits, which a kernel ip varies least */
	unsigned long h = hash_long(ip ^ ((unsigned long)class_idx <<
					  (BITS_PER_LONG - MAX_LOCKDEP_KEYS_BITS)),
				    XR_STACK_BITS);

	return &xr_stacks[(h + probe) & (XR_STACK_SIZE - 1)];
}

struct lock_trace *crosslock_stack_lookup(unsigned int class_idx,
					  unsigned long ip)
{
	int i;

	for (i = 0; i < XR_PROBES; i++) {
		struct xr_stack_slot *s = xr_stack_slot(class_idx, ip, i);
		/* pairs with the release in xr_stack_publish(): ip, trace */
		unsigned int key = smp_load_acquire(&s->key);

		if (key == XR_SLOT_FREE)
			break;
		if (key == class_idx + 1 && s->ip == ip &&
		    s->incarn == xr_incarn(class_idx))
			return s->trace;
	}
	return NULL;
}

/*
 * Claim a slot for (class, ip) before unwinding, so that a full table costs
 * a few probes, never an unwind per acquisition.  Slots of classes freed
 * since they were saved are taken again.
 */
static struct xr_stack_slot *xr_stack_reserve(unsigned int class_idx,
					      unsigned long ip)
{
	int i;

	for (i = 0; i < XR_PROBES; i++) {
		struct xr_stack_slot *s = xr_stack_slot(class_idx, ip, i);
		unsigned int key = READ_ONCE(s->key);

		if (key != XR_SLOT_FREE && key != XR_SLOT_DEAD &&
		    !xr_stack_stale(s, key))
			continue;
		if (cmpxchg(&s->key, key, XR_SLOT_BUSY) == key)
			return s;
	}
	return NULL;
}

static void xr_stack_publish(struct xr_stack_slot *s, unsigned int class_idx,
			     unsigned long ip, struct lock_trace *trace)
{
	if (!trace) {
		/* dead, not free: lookups must go on probing past it */
		smp_store_release(&s->key, XR_SLOT_DEAD);
		return;
	}
	s->ip = ip;
	s->trace = trace;
	s->incarn = xr_incarn(class_idx);
	/* publish ip, trace and incarnation before the key that finds them */
	smp_store_release(&s->key, class_idx + 1);
}

/*
 * The two call sites whose stacks each class saw last: most classes are
 * taken at one or two sites at a time (a folio lock's wait and its
 * acquisition, a spinlock in lock and unlock paths), so the common
 * acquisition skips the hash probe.
 */
static unsigned long xr_last_ip[MAX_LOCKDEP_KEYS][2];

/* Was @ip one of the two call sites whose stacks @class_idx saw last? */
static bool xr_stack_seen_last(unsigned int class_idx, unsigned long ip)
{
	unsigned long *last = xr_last_ip[class_idx];

	return READ_ONCE(last[0]) == ip || READ_ONCE(last[1]) == ip;
}

/*
 * A call site new to the two last seen: make sure its stack is known,
 * unwinding once per site.  Out of line, as most acquisitions need none.
 */
static noinline void xr_stack_save(unsigned int class_idx, unsigned long ip)
{
	unsigned long *last = xr_last_ip[class_idx];
	struct xr_stack_slot *slot;
	struct lock_trace *trace;

	WRITE_ONCE(last[1], READ_ONCE(last[0]));
	WRITE_ONCE(last[0], ip);
	if (likely(crosslock_stack_lookup(class_idx, ip)))
		return;
	slot = xr_stack_reserve(class_idx, ip);
	if (!slot) {
		crosslock_counter_inc(CROSSLOCK_COUNTER_STACKS_DROPPED);
		pr_warn_once("crossrelease: stack cache full, some reports show call sites only\n");
		return;
	}
	trace = crosslock_save_trace();
	xr_stack_publish(slot, class_idx, ip, trace);
	if (trace)
		crosslock_counter_inc(CROSSLOCK_COUNTER_STACKS_SAVED);
	else
		crosslock_counter_inc(CROSSLOCK_COUNTER_STACKS_DROPPED);
}

/* The stack of this call site is known, or saved now. */
static __always_inline void xr_stack_remember(unsigned int class_idx,
					      unsigned long ip)
{
	if (unlikely(!xr_stack_seen_last(class_idx, ip)))
		xr_stack_save(class_idx, ip);
}

/* ---------------------------------------------------------------------
 * Committed dependencies, so that a repeated commit costs a probe.
 */
#define XR_DEP_BITS	(CONFIG_LOCKDEP_CROSSRELEASE_CACHE_BITS - 1)
#define XR_DEP_SIZE	BIT(XR_DEP_BITS)

/*
 * Each slot: the pair in its low 32 bits (xr_dep_key(), never 0), and in
 * the high 32 the low 16 bits of the incarnation of each class when the
 * pair was checked.  An entry of a class freed since no longer matches
 * and is taken again by the next insertion that probes it.
 */
static atomic64_t xr_deps[XR_DEP_SIZE];

/* 13 + 13 + 2 bits, plus one: never 0 */
static u32 xr_dep_key(unsigned int xclass, unsigned int class,
		      unsigned int read)
{
	BUILD_BUG_ON(MAX_LOCKDEP_KEYS_BITS > 13);
	return (xclass << 15 | class << 2 | read) + 1;
}

/* The slot value for the pair, with both classes' incarnations now */
static u64 xr_dep_entry(unsigned int xclass, unsigned int class,
			unsigned int read)
{
	u32 incarn = (xr_incarn(xclass) & 0xffff) << 16 |
		     (xr_incarn(class) & 0xffff);

	return (u64)incarn << 32 | xr_dep_key(xclass, class, read);
}

/* Is slot value @v of a class freed since it was cached? */
static bool xr_dep_stale(u64 v)
{
	u32 key = lower_32_bits(v) - 1;

	return v != xr_dep_entry(key >> 15, (key >> 2) & 0x1fff, key & 3);
}

static atomic64_t *xr_dep_slot(u64 entry, int probe)
{
	u32 h = hash_32(lower_32_bits(entry), XR_DEP_BITS);

	return &xr_deps[(h + probe) & (XR_DEP_SIZE - 1)];
}

static bool xr_dep_cached(u64 entry)
{
	int i;

	for (i = 0; i < XR_PROBES; i++) {
		u64 v = atomic64_read(xr_dep_slot(entry, i));

		if (v == entry)
			return true;
		if (!v)
			break;
	}
	return false;
}

/*
 * Cache a dependency that lockdep holds.  @entry was made before lockdep
 * checked, under its graph lock, that both classes exist: if one of them
 * was freed since, its incarnation moved on and the entry never matches.
 */
static void xr_dep_remember(u64 entry)
{
	int i;

	for (i = 0; i < XR_PROBES; i++) {
		atomic64_t *slot = xr_dep_slot(entry, i);
		u64 v = atomic64_read(slot);

		if (v == entry)
			return;
		if (v && !xr_dep_stale(v))
			continue;
		if (atomic64_cmpxchg(slot, v, entry) == v)
			return;
	}
	/* Full: the pair is re-checked by lockdep next time, still correct. */
	crosslock_counter_inc(CROSSLOCK_COUNTER_DEPS_UNCACHED);
	pr_warn_once("crossrelease: dependency cache full, repeated commits take lockdep's slower path\n");
}

/**
 * crosslock_dep_cache_entry - the dependency cache's entry for a pair, now
 * @xclass: the crosslock's class index
 * @class:  the class index it depends on
 *
 * For the test suites, with crosslock_dep_cache_add(): an entry made
 * before a class is freed stands for the commit that checked it then.
 *
 * Return: the entry.
 */
u64 crosslock_dep_cache_entry(unsigned int xclass, unsigned int class)
{
	return xr_dep_entry(xclass, class, 0);
}

/* For the test suites: the cache as a commit that made @entry leaves it */
void crosslock_dep_cache_add(u64 entry)
{
	xr_dep_remember(entry);
}

bool crosslock_dep_cache_has(unsigned int xclass, unsigned int class)
{
	return xr_dep_cached(xr_dep_entry(xclass, class, 0));
}

/* For the test suites: entries of classes freed since they were cached */
unsigned int crosslock_dep_cache_stale(void)
{
	unsigned int i, n = 0;

	for (i = 0; i < XR_DEP_SIZE; i++) {
		u64 v = atomic64_read(&xr_deps[i]);

		n += v && xr_dep_stale(v);
	}
	return n;
}

/* ---------------------------------------------------------------------
 * Committed sets of dependencies, so that a repeated commit costs a probe
 * whatever the number of entries it would walk.
 *
 * Each history entry adds a hash of its class and flags to the running
 * sum of its context instance (struct crosslock_span), and keeps the sum
 * as it stands after it.  The entries a commit walks are the newest ones
 * of one instance, so their sum is the span's sum less the sum at the
 * newest of its entries older than the crosslock: a key for the set of
 * dependencies the walk would commit, with the crosslock's class and
 * context kind.  A set once committed in full is in lockdep's graph
 * until a class is freed, which moves the cache to a new epoch: the epoch
 * is part of every key, so that no key made before matches one made after
 * (and a slot of an earlier epoch is taken first).  Like lockdep's own
 * chain keys, two different sets with one key would hide the second: with
 * 64-bit sums of 64-bit hashes, that is not expected to happen.
 */
#define XR_CHAIN_BITS	(CONFIG_LOCKDEP_CROSSRELEASE_CACHE_BITS - 2)
#define XR_CHAIN_SIZE	BIT(XR_CHAIN_BITS)

static u64 xr_chains[XR_CHAIN_SIZE];
/* the epoch each slot was written in: a hint for reuse, not for matching */
static unsigned int xr_chains_epochs[XR_CHAIN_SIZE];
/* bumped by crosslock_zap_class() */
static atomic_t xr_chains_epoch = ATOMIC_INIT(0);

/* splitmix64's step: sums of mixed values collide rarely, and 0 is no fixed point */
static u64 xr_mix(u64 x)
{
	x += 0x9e3779b97f4a7c15ULL;
	x ^= x >> 30;
	x *= 0xbf58476d1ce4e5b9ULL;
	x ^= x >> 27;
	x *= 0x94d049bb133111ebULL;
	return x ^ (x >> 31);
}

/*
 * Spread a small tag over 64 bits before it is mixed with a sum or a chain
 * key: an odd multiplier keeps distinct tags distinct, which one round of
 * xr_mix() on the combination then scatters as well as two would.
 */
static u64 xr_spread(u64 tag)
{
	return tag * 0x9e3779b97f4a7c15ULL;
}

static u64 xr_chain_elem(unsigned int class_idx, u8 flags)
{
	return xr_mix((u64)class_idx << 8 | flags);
}

/* Add entry @e, written at position @pos of the history, to its span */
static void xr_span_add(struct crosslock_span *s, struct crosslock_hist_entry *e,
			unsigned int pos)
{
	if (s->ctx != e->ctx || !s->last_gen) {
		s->ctx = e->ctx;
		s->first_gen = e->gen;
		s->first_pos = pos;
		s->sum = 0;
	}
	s->sum += xr_chain_elem(e->class_idx, e->flags);
	s->last_gen = e->gen;
	e->sum = s->sum;
}

/* Position of the oldest entry still in the ring */
static unsigned int xr_hist_oldest(struct crosslock_task *xt)
{
	return xt->nr_written - min_t(unsigned int, xt->nr_written, CROSSLOCK_HIST_SIZE);
}

/* Did instance @ctx write entries that the ring has lost since? */
static bool xr_hist_lost(struct crosslock_task *xt, unsigned int irq_context,
			 unsigned int ctx)
{
	struct crosslock_span *s = &xt->span[irq_context];
	unsigned int oldest = xr_hist_oldest(xt);

	return s->ctx == ctx && s->first_pos - oldest >= xt->nr_written - oldest;
}

/*
 * Offset from the oldest entry in the ring of the first entry of
 * generation @gen or later: generations only grow along the ring.
 */
static unsigned int xr_hist_find(struct crosslock_task *xt, u64 gen)
{
	unsigned int oldest = xr_hist_oldest(xt);
	unsigned int lo = 0, hi = xt->nr_written - oldest;

	while (lo < hi) {
		unsigned int mid = lo + (hi - lo) / 2;

		if (xr_gen_before(xt->hist[(oldest + mid) % CROSSLOCK_HIST_SIZE].gen, gen))
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/*
 * The sum of the entries that the commit of @c walks in instance @ctx:
 * those of the ring from the first of the instance at or after the
 * crosslock's generation.  It is the span's sum less the sum before that
 * entry.  False inside a bounded section, whose walk stops earlier.
 */
static bool xr_chain_sum(struct crosslock_task *xt, struct crosslock_snapshot *c,
			 unsigned int ctx, u64 *sum)
{
	struct crosslock_span *s = &xt->span[c->irq_context];
	unsigned int oldest = xr_hist_oldest(xt);
	unsigned int nr = xt->nr_written - oldest;
	unsigned int i;

	if (xt->bounded && !c->irq_context)
		return false;
	if (s->ctx != ctx || xr_gen_before(s->last_gen, c->gen)) {
		*sum = 0;		/* nothing written since */
		return true;
	}
	/* from the instance's first entry, or the ring's oldest if lost */
	i = s->first_pos - oldest < nr ? s->first_pos - oldest : 0;
	if (xr_gen_before(s->first_gen, c->gen))
		i = max(i, xr_hist_find(xt, c->gen));
	for (; i < nr; i++) {
		struct crosslock_hist_entry *e;

		e = &xt->hist[(oldest + i) % CROSSLOCK_HIST_SIZE];
		if (e->irq_context == c->irq_context && e->ctx == ctx) {
			*sum = s->sum - e->sum + xr_chain_elem(e->class_idx, e->flags);
			return true;
		}
	}
	return false;
}

/* Another odd multiplier: an epoch never spreads onto a tag's value */
static u64 xr_spread_epoch(unsigned int epoch)
{
	return epoch * 0xd6e8feb86659fd93ULL;
}

static u64 xr_chain_key(struct crosslock_snapshot *c, u64 sum,
			unsigned int epoch)
{
	u64 tag = (u64)c->xhlock.class_idx << 8 | c->irq_context << 1;

	return xr_mix(sum ^ xr_spread(tag | BIT_ULL(40)) ^
		      xr_spread_epoch(epoch)) ?: 1;
}

static u64 *xr_chain_slot(u64 key, int probe)
{
	return &xr_chains[(hash_64(key, XR_CHAIN_BITS) + probe) & (XR_CHAIN_SIZE - 1)];
}

static bool xr_chain_cached(u64 key)
{
	int i;

	for (i = 0; i < XR_PROBES; i++) {
		u64 k = READ_ONCE(*xr_chain_slot(key, i));

		if (k == key)
			return true;
		if (!k)
			break;
	}
	return false;
}

/*
 * Cache @key, made in @epoch, after a walk that committed all of its
 * entries.  A free slot or one of an earlier epoch is taken; when the
 * probed slots are all of this epoch, the first is replaced: a miss only
 * costs the walk.  If a class was freed since the walk began, the key is
 * of an earlier epoch and never matches again.
 */
static void xr_chain_remember(u64 key, unsigned int epoch)
{
	u64 *slot = xr_chain_slot(key, 0);
	int i;

	for (i = 0; i < XR_PROBES; i++) {
		u64 *s = xr_chain_slot(key, i);

		if (!READ_ONCE(*s) ||
		    READ_ONCE(xr_chains_epochs[s - xr_chains]) != epoch) {
			slot = s;
			break;
		}
	}
	WRITE_ONCE(*slot, key);
	WRITE_ONCE(xr_chains_epochs[slot - xr_chains], epoch);
}

static void xr_chains_forget(void)
{
	atomic_inc(&xr_chains_epoch);
}

/**
 * crosslock_zap_class - forget a lock class that lockdep is freeing
 * @class_idx: index of the class in lock_classes[]
 *
 * Called by zap_class() under the graph lock, with interrupts off: it
 * costs a few stores, whatever the size of the caches.  What the caches
 * keep of the class becomes stale by its incarnation (stacks,
 * dependencies) or by the commit cache's epoch, and is taken again
 * lazily.  History entries are not searched either: they carry their
 * generation, and every entry older than this call is from now on ignored
 * (xr_class_alive()).
 */
void crosslock_zap_class(unsigned int class_idx)
{
	atomic64_set(&xr_class_freed[class_idx], atomic64_inc_return(&crosslock_gen));
	WRITE_ONCE(xr_class_incarn[class_idx], xr_class_incarn[class_idx] + 1);
	WRITE_ONCE(xr_last_ip[class_idx][0], 0);
	WRITE_ONCE(xr_last_ip[class_idx][1], 0);
	clear_bit(class_idx, crosslock_classes);
	clear_bit(class_idx, xr_class_checked);
	clear_bit(class_idx, xr_class_static);
	crosslock_cycle_forget_class(class_idx);
	xr_chains_forget();
}

/* ---------------------------------------------------------------------
 * History.
 */
static void xr_entry_fill(struct crosslock_hist_entry *e, unsigned int class_idx,
			  unsigned long ip, unsigned int irq_context, u8 flags,
			  u64 gen, unsigned int ctx)
{
	e->ip = ip;
	e->gen = gen;
	e->ctx = ctx;
	e->class_idx = class_idx;
	e->irq_context = irq_context;
	e->flags = flags;
}

static void xr_hist_add(struct crosslock_task *xt, unsigned int class_idx,
			unsigned long ip, unsigned int irq_context, u8 flags,
			u64 gen, unsigned int ctx)
{
	struct crosslock_hist_entry *e = &xt->hist[xt->nr_written % CROSSLOCK_HIST_SIZE];

	xr_entry_fill(e, class_idx, ip, irq_context, flags, gen, ctx);
	xr_span_add(&xt->span[irq_context], e, xt->nr_written);
	xt->nr_written++;
	xt->repeat_ip = 0;
}

static __always_inline void xr_hist_add_current(struct task_struct *curr,
						unsigned int class_idx, unsigned long ip,
						unsigned int irq_context, u8 flags,
						u64 gen)
{
	xr_hist_add(&curr->crosslock, class_idx, ip, irq_context, flags,
		    gen, xr_ctx_id(curr, irq_context));
}

/* Add @elem to the sums of the entries of instance @ctx from position @pos on */
static u64 xr_span_shift_sums(struct crosslock_task *xt, unsigned int pos,
			      unsigned int irq_context, unsigned int ctx,
			      u64 elem)
{
	u64 before = xt->span[irq_context].sum;
	bool found = false;
	unsigned int k;

	for (k = pos; k < xt->nr_written; k++) {
		struct crosslock_hist_entry *f = &xt->hist[k % CROSSLOCK_HIST_SIZE];

		if (f->irq_context != irq_context || f->ctx != ctx)
			continue;
		if (!found)	/* the sum before the entry that goes in at @pos */
			before = f->sum - xr_chain_elem(f->class_idx, f->flags);
		found = true;
		f->sum += elem;
	}
	return before;
}

/*
 * An entry goes in at @pos: a bound above it, the current one or one a
 * nested section saved, moves up with the entries it bounds.
 */
static void xr_bounds_shift(struct crosslock_task *xt, unsigned int pos)
{
	struct crosslock_bound *b;

	if (xt->bounded && xt->bound > pos)
		xt->bound++;
	for (b = xt->pushed; b; b = b->outer) {
		if (b->bounded && b->bound > pos)
			b->bound++;
	}
}

/*
 * Add an entry dated @gen, which may be older than the newest entries:
 * a wait is dated by the release it consumed, and that may come before
 * what this task acquired since.  Generations only grow along the ring
 * (a commit's walk stops at the first older entry, xr_hist_find()
 * bisects), so the entry goes in behind every newer one, and those move
 * up by one, with the sums and positions that refer to them.  An entry
 * older than the whole of a full ring is dropped, as it would be next.
 */
static void xr_hist_add_dated(struct crosslock_task *xt, unsigned int class_idx,
			      unsigned long ip, unsigned int irq_context, u8 flags,
			      u64 gen, unsigned int ctx)
{
	struct crosslock_span *s = &xt->span[irq_context];
	unsigned int oldest = xr_hist_oldest(xt);
	unsigned int pos = xt->nr_written, k;
	struct crosslock_hist_entry *e;
	u64 elem, before;

	while (pos > oldest &&
	       xr_gen_before(gen, xt->hist[(pos - 1) % CROSSLOCK_HIST_SIZE].gen))
		pos--;
	if (pos == xt->nr_written) {
		xr_hist_add(xt, class_idx, ip, irq_context, flags, gen, ctx);
		return;
	}
	if (pos == oldest && xt->nr_written >= CROSSLOCK_HIST_SIZE)
		return;
	for (k = xt->nr_written; k > pos; k--)
		xt->hist[k % CROSSLOCK_HIST_SIZE] = xt->hist[(k - 1) % CROSSLOCK_HIST_SIZE];
	for (k = 0; k < ARRAY_SIZE(xt->span); k++) {
		if (k != irq_context && xt->span[k].first_pos >= pos)
			xt->span[k].first_pos++;
	}
	xr_bounds_shift(xt, pos);
	xt->nr_written++;

	elem = xr_chain_elem(class_idx, flags);
	e = &xt->hist[pos % CROSSLOCK_HIST_SIZE];
	xr_entry_fill(e, class_idx, ip, irq_context, flags, gen, ctx);
	if (s->ctx != ctx || !s->last_gen) {
		/* the first entry of a new instance: later ones are another's */
		s->ctx = ctx;
		s->first_gen = gen;
		s->first_pos = pos;
		s->last_gen = gen;
		s->sum = elem;
		e->sum = elem;
	} else {
		before = xr_span_shift_sums(xt, pos + 1, irq_context, ctx, elem);
		if (s->first_pos >= pos) {
			s->first_pos = pos;
			s->first_gen = gen;
		}
		s->sum += elem;
		s->last_gen = max(s->last_gen, gen);
		e->sum = before + elem;
	}
	xt->repeat_ip = 0;
}

/*
 * Let crosslock_hist_repeats() skip the next acquisitions that repeat @hlock, the
 * newest entry, without a call: any other write clears this.
 */
static void xr_repeat_remember(struct crosslock_task *xt, struct held_lock *hlock,
			       u64 gen)
{
	static_assert(MAX_LOCKDEP_KEYS_BITS + 2 <= 16);
	xt->repeat_key = crosslock_repeat_key(hlock);
	xt->repeat_gen = gen;
	xt->repeat_ip = hlock->acquire_ip;
}

/*
 * Would writing @hlock add nothing that commits do not already get from
 * the newest entry?  A commit takes either all or none of the entries of
 * one generation, context instance and bounded section, so if the newest
 * entry is of the same ones, @hlock is redundant when it is:
 *
 *  - a repeat of the newest entry (same class, call site and read mode):
 *    a lock taken again and again with nothing in between;
 *  - taken under the lock whose acquisition is the newest entry: lockdep
 *    links the held lock on top to the new one (check_prevs_add()), so
 *    the crosslock reaches @hlock through it.  Not through a recursive
 *    read lock (lockdep adds no edge from it), nor through a lock of a
 *    crosslock's class (a commit skips its own class), nor through a lock
 *    whose class may be freed before the commit (a module's, a dynamic
 *    key's): the edge and the entry that stands for it would go with it,
 *    and @hlock would be lost.  Nested locks are common, a mutex's
 *    wait_lock for one.
 *
 * Only the newest entry is looked at: this runs for every acquisition
 * while a crosslock is in flight, and must cost less than the write.
 */
static bool xr_hist_redundant(struct task_struct *curr,
			      struct held_lock *hlock, u64 gen,
			      unsigned int ctx)
{
	struct crosslock_task *xt = &curr->crosslock;
	struct held_lock *below = hlock - 1;
	struct crosslock_hist_entry *e;

	if (!xt->nr_written || (xt->bounded && xt->nr_written == xt->bound))
		return false;
	e = &xt->hist[(xt->nr_written - 1) % CROSSLOCK_HIST_SIZE];
	if (e->gen != gen || e->ctx != ctx ||
	    e->irq_context != hlock->irq_context)
		return false;
	if (e->class_idx == hlock->class_idx && e->ip == hlock->acquire_ip &&
	    e->flags == (hlock->read & CROSSLOCK_HIST_READ_MASK)) {
		/* process-context repeats stop in crosslock_hist_repeats() */
		crosslock_counter_inc(CROSSLOCK_COUNTER_HIST_REPEATED);
		return true;
	}
	/*
	 * Under a nest lock, lockdep adds no edge to a lock whose class is
	 * held already (check_deadlock() returns 2): no implying then.
	 */
	if (curr->lockdep_depth < 2 || e->class_idx != below->class_idx ||
	    e->ip != below->acquire_ip || e->flags & CROSSLOCK_HIST_WAIT ||
	    below->trylock || !below->check || below->read == 2 ||
	    below->irq_context != hlock->irq_context || hlock->nest_lock ||
	    test_bit(below->class_idx, crosslock_classes) ||
	    !xr_class_never_freed(below->class_idx))
		return false;
	crosslock_counter_inc(CROSSLOCK_COUNTER_HIST_IMPLIED);
	return true;
}

/*
 * Record a typical-lock acquisition (called with interrupts disabled from
 * lock_acquire(), for a checked lock that is not a trylock: a trylock
 * never waits, so it is never a dependency).
 */
void __crosslock_hist_add(struct task_struct *curr, struct held_lock *hlock)
{
	unsigned int irq_context = hlock->irq_context;
	unsigned int ctx;
	u64 gen;

	if (curr->crosslock.hidden)
		return;
	gen = atomic64_read(&crosslock_gen);
	ctx = xr_ctx_id(curr, irq_context);
	if (xr_hist_redundant(curr, hlock, gen, ctx))
		return;
	xr_hist_add(&curr->crosslock, hlock->class_idx, hlock->acquire_ip,
		    irq_context, hlock->read & CROSSLOCK_HIST_READ_MASK, gen, ctx);
	xr_stack_remember(hlock->class_idx, hlock->acquire_ip);
	if (!irq_context)
		xr_repeat_remember(&curr->crosslock, hlock, gen);
}

/**
 * crosslock_hist_add_merged - record a lock merged into the held lock on top
 * @curr:    the current task
 * @trylock: the acquisition was a trylock
 * @ip:      where it was taken
 *
 * Called from lock_acquire() with interrupts disabled, when a lock taken
 * under its nest lock joined the held lock of its class on top of the
 * stack (the ww_mutex and dma_resv pattern) instead of being pushed: it
 * is an acquisition all the same.  Rare, so never implied nor repeated;
 * only called while a crosslock is in flight (crosslock_lock_acquired()).
 */
void crosslock_hist_add_merged(struct task_struct *curr, int trylock,
			       unsigned long ip)
{
	struct held_lock *top = curr->held_locks + curr->lockdep_depth - 1;
	unsigned int irq_context = top->irq_context;

	if (trylock || !top->check || curr->crosslock.hidden)
		return;
	xr_hist_add_current(curr, top->class_idx, ip, irq_context,
			    top->read & CROSSLOCK_HIST_READ_MASK,
			    atomic64_read(&crosslock_gen));
	xr_stack_remember(top->class_idx, ip);
}

/* ---------------------------------------------------------------------
 * Crosslock state.
 */

/**
 * crosslock_init_map - initialise a crosslock map
 * @xmap:  the crosslock map
 * @name:  class name, as shown in reports and /proc/lockdep
 * @key:   class key; one per kind of crosslock, usually per init site
 * @flags: CROSSLOCK_* flags
 *
 * Also used to re-initialise: a crosslock must not be in flight then.
 */
void crosslock_init_map(struct crosslock *xmap,
			const char *name, struct lock_class_key *key,
			unsigned int flags)
{
	struct crosslock_state *x = &xmap->state;

	lockdep_init_map_wait(&xmap->map, name, key, 0, LD_WAIT_SLEEP);
	x->lock = (arch_spinlock_t)__ARCH_SPIN_LOCK_UNLOCKED;
	x->nr_acquired = 0;
	x->gen = 0;
	x->flags = flags;
	atomic64_set(&x->released_gen, 0);
}
EXPORT_SYMBOL_GPL(crosslock_init_map);

/*
 * Can this crosslock be given a class?  A static initialiser leaves the
 * key to lockdep, which uses the object's own address: fine for a static
 * object, but a crosslock on the stack would make lockdep give up
 * ("trying to register non-static key") and switch itself off.  Such a
 * crosslock is left untracked, with one warning.  (DECLARE_COMPLETION()
 * on the stack still switches lockdep off: its wait-queue lock has the
 * same problem, and lockdep itself reports that.)
 */
static bool xr_usable(struct crosslock *xmap, const char *what)
{
	struct crosslock_state *x = &xmap->state;

	if (unlikely(READ_ONCE(x->flags) & CROSSLOCK_UNTRACKED))
		return false;
	/* statically initialised maps get their key from lockdep on first use */
	if (likely(xmap->map.key))
		return true;
	if (unlikely(!xmap->map.name)) {
		xr_warn_once("%s of uninitialised crosslock %p\n", what, xmap);
		return false;
	}
	if (crosslock_key_assignable(&xmap->map))
		return true;
	WRITE_ONCE(x->flags, x->flags | CROSSLOCK_UNTRACKED);
	xr_warn_once("crosslock %s at %p has no class key and is not static (DECLARE_COMPLETION() on the stack? use DECLARE_COMPLETION_ONSTACK()); not tracked\n",
		     xmap->map.name, xmap);
	return false;
}

static void xr_commit_fill(struct crosslock_snapshot *c, int class_idx,
			   struct lockdep_map *map, unsigned long ip,
			   u64 gen, pid_t pid)
{
	memset(&c->xhlock, 0, sizeof(c->xhlock));
	c->xhlock.class_idx = class_idx;
	c->xhlock.acquire_ip = ip;
	c->xhlock.instance = map;
	c->xhlock.check = 1;
	c->gen = gen;
	c->pid = pid;
	c->incomplete = false;
	c->comm[0] = '\0';
}

static bool xr_snapshot(struct crosslock *xmap, struct crosslock_snapshot *c)
{
	struct crosslock_state *x = &xmap->state;
	bool in_flight;
	int class_idx;

	/* The common complete() with nobody waiting costs one read. */
	if (!READ_ONCE(x->nr_acquired))
		return false;
	class_idx = xr_mark_crosslock_class(&xmap->map);
	if (class_idx < 0)
		return false;
	arch_spin_lock(&x->lock);
	in_flight = x->nr_acquired;
	if (in_flight) {
		xr_commit_fill(c, class_idx, &xmap->map, x->ip, x->gen, x->pid);
		memcpy(c->comm, x->comm, CROSSLOCK_COMM_LEN);
	}
	arch_spin_unlock(&x->lock);
	return in_flight;
}

/*
 * Bookkeeping only, done even while lockdep is off so that acquisitions
 * and releases stay balanced across a report.  Returns the generation the
 * acquisition began at: the crosslock's own if it is the first in flight.
 */
static u64 xr_acquired(struct crosslock *xmap, unsigned long ip)
{
	struct crosslock_state *x = &xmap->state;
	u64 gen;

	arch_spin_lock(&x->lock);
	if (!x->nr_acquired++) {
		atomic_inc(&crosslock_nr_in_flight);
		x->gen = atomic64_inc_return(&crosslock_gen);
		x->ip = ip;
		x->pid = task_pid_nr(current);
		BUILD_BUG_ON(CROSSLOCK_COMM_LEN != TASK_COMM_LEN);
		memcpy(x->comm, current->comm, CROSSLOCK_COMM_LEN);
		gen = x->gen;
	} else {
		gen = atomic64_read(&crosslock_gen);
	}
	arch_spin_unlock(&x->lock);
	return gen;
}

/* Returns false if the crosslock was not acquired. */
static bool xr_released(struct crosslock *xmap)
{
	struct crosslock_state *x = &xmap->state;
	bool ok = true;

	arch_spin_lock(&x->lock);
	if (!x->nr_acquired)
		ok = false;
	else if (!--x->nr_acquired)
		atomic_dec(&crosslock_nr_in_flight);
	arch_spin_unlock(&x->lock);
	return ok;
}

/*
 * A wait of the same class under the same held locks, in the same context
 * kind and interrupt state, adds nothing that lockdep's check of an
 * earlier one did not: lockdep itself would find the chain in its cache.
 * Such waits share the chain cache with the commits, under their own tag.
 */
static u64 xr_wait_key(struct task_struct *curr, unsigned int class_idx,
		       unsigned int epoch)
{
	u64 tag = (u64)class_idx << 8 | xr_irq_context(curr) << 2 |
		  !!lockdep_hardirqs_enabled() << 1 |
		  !!lockdep_softirqs_enabled(curr);

	return xr_mix(curr->curr_chain_key ^ xr_spread(tag | BIT_ULL(41)) ^
		      xr_spread_epoch(epoch)) ?: 1;
}

/*
 * A wait makes every lock the waiter holds depend on the crosslock,
 * through lockdep's usual checks.  With no lock held there is nothing to
 * check: lock_sync() would only mark the class as used with interrupts
 * enabled, which matters only for a dependency into the class, and the
 * wait that adds one (a lock held) marks it then.  @class_idx: the class
 * of @map as xr_class_acquired() found it, -1 if lockdep is off.
 */
static __always_inline void xr_check_wait(struct lockdep_map *map,
					  int class_idx, unsigned long ip)
{
	struct task_struct *curr = current;
	unsigned int epoch;
	u64 key;

	if (!curr->lockdep_depth || class_idx < 0)
		return;
	epoch = atomic_read(&xr_chains_epoch);
	key = xr_wait_key(curr, class_idx, epoch);
	if (xr_chain_cached(key)) {
		crosslock_counter_inc(CROSSLOCK_COUNTER_WAITS_CACHED);
		return;
	}
	lock_sync(map, 0, 0, 1, NULL, ip);
	if (debug_locks)
		xr_chain_remember(key, epoch);
}

/*
 * Remember the call site's stack for the report and, for an acquisition
 * that waits (@wait: CROSSLOCK_HIST_WAIT), put the wait in the history: a
 * crosslock released later by this context depends on it.  @crosslock:
 * @map is a crosslock's (not a wait noted by crosslock_wait()), and its
 * class is marked as such from now on.
 *
 * The entry records @gen, the generation the wait began at, read with
 * interrupts disabled until now (0: read now, with them disabled): no
 * interrupt's entry comes between them, so generations only grow along
 * the ring.  Read any later, it could be that of a crosslock acquired
 * elsewhere after the wait was already satisfied, whose release would then
 * seem to wait for it.
 *
 * Inlined, as are xr_hist_add_current() and xr_check_wait(): every uncontended
 * folio lock runs all three (crosslock_owner_lock()), and a call for each
 * cost about as much as the history entry itself.
 *
 * Return: the class index of @map, or -1 if lockdep is off (or @map has
 * no class: lockdep's tables are full).
 */
static __always_inline int xr_class_acquired(struct lockdep_map *map, u8 wait,
					     unsigned long ip, bool crosslock,
					     u64 gen)
{
	unsigned long flags;
	int class_idx;

	class_idx = crosslock_lockdep_enter_class(map, &flags);
	if (class_idx < 0)
		return -1;
	if (crosslock)
		xr_mark_class(class_idx);
	if (wait)
		xr_hist_add_current(current, class_idx, ip,
				    xr_irq_context(current), wait,
				    gen ?: atomic64_read(&crosslock_gen));
	xr_stack_remember(class_idx, ip);
	crosslock_lockdep_exit(flags);
	return class_idx;
}

/*
 * Put @xmap in flight.  A @wait (CROSSLOCK_HIST_WAIT) of a crosslock that
 * another context releases goes in the history now, dated by its start,
 * as a lock's acquisition is; a wait for a self-released crosslock (a
 * completion) goes in when it ends, dated by the release it consumed
 * (crosslock_release()).
 */
static int xr_acquire(struct crosslock *xmap, u8 wait, unsigned long ip)
{
	unsigned long flags;
	int class_idx;
	u64 gen;

	raw_local_irq_save(flags);
	gen = xr_acquired(xmap, ip);
	if (xmap->state.flags & CROSSLOCK_SELF_RELEASE) {
		current->crosslock.nr_waits++;
		wait = 0;
	}
	/* marks the class first: see crosslock_owner_wait() */
	class_idx = xr_class_acquired(&xmap->map, wait, ip, true, gen);
	raw_local_irq_restore(flags);
	return class_idx;
}

/**
 * crosslock_acquire - acquire (start waiting for) a crosslock
 * @xmap:    the crosslock map
 * @trylock: the acquisition cannot wait: no held lock depends on it
 * @ip:      the caller
 *
 * A waiting acquisition makes every lock the caller holds depend on the
 * crosslock, through lockdep's usual checks; then, whether it waits or
 * not, the crosslock is in flight until crosslock_release().
 */
void crosslock_acquire(struct crosslock *xmap, int trylock,
		       unsigned long ip)
{
	int class_idx;

	if (!xr_enabled || !xr_usable(xmap, "acquire"))
		return;

	class_idx = xr_acquire(xmap, trylock ? 0 : CROSSLOCK_HIST_WAIT, ip);
	if (!trylock)
		xr_check_wait(&xmap->map, class_idx, ip);
}
EXPORT_SYMBOL_GPL(crosslock_acquire);

/*
 * The end of a wait for a self-released crosslock that got its release:
 * what this context releases from now on depends on that release.  The
 * entry is dated by the release, not by the wait: had the crosslock not
 * been released yet, the wait would have blocked until it was, so a
 * crosslock acquired before the release is not released by this context
 * before it; one acquired after it (two tasks handing completions back and
 * forth, or a wait that did not block because the release came long
 * before) never waited for it.  Nothing is written while no crosslock is
 * in flight: any crosslock acquired later is younger than the release.
 */
static void xr_hist_add_waited(struct crosslock *xmap, unsigned long ip)
{
	u64 gen = atomic64_read(&xmap->state.released_gen);
	struct task_struct *curr = current;
	unsigned int irq_context;
	unsigned long flags;
	int class_idx;

	if (!gen || !atomic_read(&crosslock_nr_in_flight))
		return;
	class_idx = crosslock_lockdep_enter_class(&xmap->map, &flags);
	if (class_idx < 0)
		return;
	irq_context = xr_irq_context(curr);
	xr_hist_add_dated(&curr->crosslock, class_idx, ip, irq_context,
			  CROSSLOCK_HIST_WAIT, gen, xr_ctx_id(curr, irq_context));
	crosslock_lockdep_exit(flags);
}

/* End one acquisition of @xmap; false (and a warning) if it had none */
static bool xr_release(struct crosslock *xmap, unsigned long ip)
{
	unsigned long flags;
	bool ok;

	if (!xr_enabled ||
	    unlikely(READ_ONCE(xmap->state.flags) & CROSSLOCK_UNTRACKED))
		return false;
	if (unlikely(!xmap->map.key && !xmap->map.name)) {
		xr_warn_once("release of uninitialised crosslock %p at %pS\n",
			     xmap, (void *)ip);
		return false;
	}
	/*
	 * Bookkeeping only: it must stay balanced even while lockdep is
	 * off, so it does not go through crosslock_lockdep_enter().
	 */
	raw_local_irq_save(flags);
	ok = xr_released(xmap);
	if (ok && (xmap->state.flags & CROSSLOCK_SELF_RELEASE) &&
	    current->crosslock.nr_waits)
		current->crosslock.nr_waits--;
	raw_local_irq_restore(flags);

	if (unlikely(!ok) && debug_locks)
		xr_warn_once("release of crosslock %s not acquired (double release?) at %pS\n",
			     xmap->map.name, (void *)ip);
	return ok;
}

/**
 * crosslock_release - end one acquisition of a crosslock
 * @xmap: the crosslock map
 * @ip:   the caller
 *
 * For a lock, the unlocker calls it after the commit.  For a wait for a
 * self-released crosslock (CROSSLOCK_SELF_RELEASE), the waiter calls it
 * when the wait got the release it waited for, whether it had to sleep for
 * it or found it already there: what this context releases from now on
 * depends on that release.  A wait that gave up calls
 * crosslock_give_up() instead.  Releasing a crosslock that is not acquired
 * is reported once.
 */
void crosslock_release(struct crosslock *xmap, unsigned long ip)
{
	if (xr_release(xmap, ip) &&
	    (xmap->state.flags & CROSSLOCK_SELF_RELEASE))
		xr_hist_add_waited(xmap, ip);
}
EXPORT_SYMBOL_GPL(crosslock_release);

/**
 * crosslock_give_up - end a wait that did not get its release
 * @xmap: the crosslock map
 * @ip:   the caller
 *
 * Like crosslock_release(), for a wait for a self-released crosslock that
 * ended without the release (a timeout, a signal): nothing this context
 * does next depends on the release.
 */
void crosslock_give_up(struct crosslock *xmap, unsigned long ip)
{
	xr_release(xmap, ip);
}
EXPORT_SYMBOL_GPL(crosslock_give_up);

/* ---------------------------------------------------------------------
 * Commit.
 */
static bool xr_commit_entry(struct crosslock_snapshot *c, struct crosslock_hist_entry *e)
{
	/* made before lockdep's check: see xr_dep_remember() */
	u64 entry = xr_dep_entry(c->xhlock.class_idx, e->class_idx,
				 e->flags & CROSSLOCK_HIST_READ_MASK);
	struct held_lock next = { };
	enum crosslock_dep_result ret;

	if (xr_dep_cached(entry)) {
		crosslock_counter_inc(CROSSLOCK_COUNTER_DEPS_CACHED);
		return true;
	}

	next.class_idx = e->class_idx;
	next.acquire_ip = e->ip;
	next.irq_context = e->irq_context;
	next.read = e->flags & CROSSLOCK_HIST_READ_MASK;
	next.check = 1;

	crosslock_counter_inc(CROSSLOCK_COUNTER_DEPS_CHECKED);
	c->entry_flags = e->flags;
	crosslock_report_enter(c);
	ret = crosslock_add_dep(&c->xhlock, &next,
				crosslock_stack_lookup(e->class_idx, e->ip));
	crosslock_report_exit();
	switch (ret) {
	case CROSSLOCK_DEP_OFF:
		return false;
	case CROSSLOCK_DEP_SKIPPED:
		c->incomplete = true;
		return true;
	case CROSSLOCK_DEP_ADDED:
		crosslock_counter_inc(CROSSLOCK_COUNTER_DEPS_ADDED);
		fallthrough;
	case CROSSLOCK_DEP_KNOWN:
		/* reported or not, lockdep has it now */
		xr_dep_remember(entry);
	}
	return true;
}

/*
 * How far back a commit may look: all of the ring, or in process context
 * inside a bounded section (crosslock_bound_begin()), only the entries
 * written since the section began.
 */
static unsigned int xr_commit_depth(struct crosslock_task *xt, struct crosslock_snapshot *c)
{
	unsigned int nr = min_t(unsigned int, xt->nr_written, CROSSLOCK_HIST_SIZE);

	if (xt->bounded && !c->irq_context)
		nr = min(nr, xt->nr_written - xt->bound);
	return nr;
}

/*
 * Walk this context's history from the newest entry back to the crosslock's
 * acquisition.  Entries of other context instances (the task under an
 * interrupt, a previous work item) are skipped.  A typical lock becomes a
 * dependency of the crosslock; so does a wait for another crosslock, owned
 * or not, which has to end before this context can release this one.  A
 * crosslock never depends on its own class: folio locks taken in a row,
 * or a wait for a completion of the class being completed, are ordered by
 * instance, which a class cannot tell apart.  An I/O completion that runs
 * in the submitter's context is bounded (crosslock_bound_push()), so that
 * it does not commit what the task took since it queued the I/O.  Entries
 * whose class was freed since are skipped.
 *
 * Returns false if a dependency was left out: lockdep went off, or a
 * class was freed.  Entries lost to the ring are not: they are not part
 * of the set of entries the commit cache keys (xr_chain_sum()).
 */
static bool xr_commit_walk(struct crosslock_task *xt, struct crosslock_snapshot *c,
			   unsigned int ctx)
{
	unsigned int nr = xr_commit_depth(xt, c);
	unsigned int i;

	for (i = 0; i < nr; i++) {
		struct crosslock_hist_entry *e;

		e = &xt->hist[(xt->nr_written - 1 - i) % CROSSLOCK_HIST_SIZE];
		if (xr_gen_before(e->gen, c->gen))
			return !c->incomplete;
		if (e->irq_context != c->irq_context || e->ctx != ctx)
			continue;
		if (e->class_idx == c->xhlock.class_idx)
			continue;
		if (unlikely(!xr_class_alive(e->class_idx, e->gen))) {
			crosslock_counter_inc(CROSSLOCK_COUNTER_STALE_ENTRIES);
			c->incomplete = true;
			continue;
		}
		if (!xr_commit_entry(c, e))
			return false;
	}
	/* the ring's entries are the set: a commit with the same ones adds nothing */
	if (!(xt->bounded && !c->irq_context) &&
	    xr_hist_lost(xt, c->irq_context, ctx)) {
		crosslock_counter_inc(CROSSLOCK_COUNTER_HIST_OVERFLOWS);
		pr_warn_once("crossrelease: history of %s/%d overflowed, acquisitions older than %lu were not checked\n",
			     current->comm, task_pid_nr(current), CROSSLOCK_HIST_SIZE);
	}
	return !c->incomplete;
}

/*
 * Commit this context's history: one probe of the chain cache if the set
 * of dependencies was committed before, else the walk.
 */
static void xr_commit_hist(struct task_struct *curr, struct crosslock_snapshot *c)
{
	struct crosslock_task *xt = &curr->crosslock;
	unsigned int ctx = xr_ctx_id(curr, c->irq_context);
	unsigned int epoch = atomic_read(&xr_chains_epoch);
	u64 sum, key = 0;

	if (xr_chain_sum(xt, c, ctx, &sum)) {
		key = xr_chain_key(c, sum, epoch);
		if (xr_chain_cached(key)) {
			crosslock_counter_inc(CROSSLOCK_COUNTER_CHAINS_CACHED);
			return;
		}
	}
	c->incomplete = false;
	if (xr_commit_walk(xt, c, ctx) && key)
		xr_chain_remember(key, epoch);
}

/* Inside crosslock_opportunistic_begin()/end() of this context */
static bool xr_opportunistic(struct crosslock_task *xt, unsigned int irq_context)
{
	return xt->opportunistic[irq_context];
}

static void xr_commit_run(struct crosslock_snapshot *c)
{
	/* a crosslock whose class was freed while it was in flight */
	if (unlikely(!xr_class_alive(c->xhlock.class_idx, c->gen))) {
		crosslock_counter_inc(CROSSLOCK_COUNTER_STALE_ENTRIES);
		return;
	}
	c->irq_context = xr_irq_context(current);
	if (xr_opportunistic(&current->crosslock, c->irq_context)) {
		crosslock_counter_inc(CROSSLOCK_COUNTER_OPPORTUNISTIC);
		return;
	}
	crosslock_counter_inc(CROSSLOCK_COUNTER_COMMITS);
	xr_commit_hist(current, c);
}

/**
 * crosslock_commit - commit the dependencies of a crosslock release
 * @xmap: the crosslock map
 *
 * Called by the releasing context before it wakes the waiters.  Every lock
 * this context instance acquired since the crosslock was acquired becomes a
 * dependency of the crosslock.  A crosslock nobody acquired (a completion
 * completed before anyone waited) commits nothing.
 */
void crosslock_commit(struct crosslock *xmap)
{
	struct crosslock_snapshot c;
	unsigned long flags;

	if (!xr_enabled || !xr_usable(xmap, "commit"))
		return;
	/*
	 * The waits this release ends, now or later, are dated by it: the
	 * primitive makes them see the release after this (a completion's
	 * count is raised, a fence's flag set, under the lock they read it
	 * under).
	 */
	atomic64_set(&xmap->state.released_gen, atomic64_read(&crosslock_gen));
	if (!crosslock_lockdep_enter(&flags))
		return;
	if (xr_snapshot(xmap, &c))
		xr_commit_run(&c);
	crosslock_lockdep_exit(flags);
}
EXPORT_SYMBOL_GPL(crosslock_commit);

/* ---------------------------------------------------------------------
 * Annotations.
 */

/**
 * crosslock_wait - this context waits for an event of a class
 * @map: the class of the event
 * @ip:  the caller
 *
 * Records a wait in the history without any held-lock check, for waits
 * that lockdep already checks otherwise: a crosslock released later by
 * this context depends on @map.  An item of an ordered workqueue notes a
 * wait for the workqueue: it could not start before the items queued
 * before it finished.
 */
void crosslock_wait(struct lockdep_map *map, unsigned long ip)
{
	if (xr_enabled && atomic_read(&crosslock_nr_in_flight))
		xr_class_acquired(map, CROSSLOCK_HIST_WAIT, ip, false, 0);
}
EXPORT_SYMBOL_GPL(crosslock_wait);

/**
 * crosslock_bound_begin - start a section that bounds commits
 *
 * A crosslock released inside the section depends only on what this task
 * acquired inside it, e.g. a dma-fence signalled in a
 * dma_fence_begin_signalling() section.  Process context only.  These
 * sections do not nest (the outermost one counts), and inside a section
 * of crosslock_bound_push(), which is narrower, they change nothing.
 */
void crosslock_bound_begin(void)
{
	struct crosslock_task *xt = &current->crosslock;

	if (in_task() && !xt->bounded) {
		xt->bound = xt->nr_written;
		xt->bounded = CROSSLOCK_BOUND_BEGIN;
		xt->repeat_ip = 0;
	}
}
EXPORT_SYMBOL_GPL(crosslock_bound_begin);

/**
 * crosslock_bound_end - end the section of crosslock_bound_begin()
 */
void crosslock_bound_end(void)
{
	struct crosslock_task *xt = &current->crosslock;

	if (in_task() && xt->bounded == CROSSLOCK_BOUND_BEGIN)
		xt->bounded = 0;
}
EXPORT_SYMBOL_GPL(crosslock_bound_end);

/**
 * crosslock_bound_push - start a bounded section that nests
 * @saved: where the task's section, if any, is kept until
 *         crosslock_bound_pop()
 *
 * For code that may run, in its caller's context, what is not done on the
 * caller's behalf: an I/O completion that a driver runs before
 * submit_bio() returns, or that the flush of the task's plug runs, commits
 * only what it acquired itself, as it would in an interrupt.  What it
 * acquired stays in the task's history, where the task's own later
 * commits find it: the task did wait for it.
 */
void crosslock_bound_push(struct crosslock_bound *saved)
{
	struct crosslock_task *xt = &current->crosslock;

	if (!in_task())
		return;
	saved->bound = xt->bound;
	saved->bounded = xt->bounded;
	saved->outer = xt->pushed;
	xt->pushed = saved;
	xt->bound = xt->nr_written;
	xt->bounded = CROSSLOCK_BOUND_PUSH;
	xt->repeat_ip = 0;
}
EXPORT_SYMBOL_GPL(crosslock_bound_push);

/**
 * crosslock_bound_pop - end the section of crosslock_bound_push()
 * @saved: the section it saved
 */
void crosslock_bound_pop(struct crosslock_bound *saved)
{
	struct crosslock_task *xt = &current->crosslock;

	if (!in_task())
		return;
	xt->pushed = saved->outer;
	xt->bound = saved->bound;
	xt->bounded = saved->bounded;
}
EXPORT_SYMBOL_GPL(crosslock_bound_pop);

/**
 * crosslock_opportunistic_begin - releases from here on are opportunistic
 *
 * A release that may happen here, in a fast path, also happens for sure
 * in the real release path (an interrupt, a worker), which is where its
 * dependencies are.  Until crosslock_opportunistic_end(), releases in this
 * context commit nothing.  Each context kind (task, softirq, hardirq)
 * keeps its own depth: an interrupt that lands inside a task's section is
 * not in it, and one that opens a section of its own leaves the task's
 * alone.
 */
void crosslock_opportunistic_begin(void)
{
	struct task_struct *curr = current;

	curr->crosslock.opportunistic[xr_irq_context(curr)]++;
}
EXPORT_SYMBOL_GPL(crosslock_opportunistic_begin);

/**
 * crosslock_opportunistic_end - end of crosslock_opportunistic_begin()
 */
void crosslock_opportunistic_end(void)
{
	struct task_struct *curr = current;
	u8 *depth = &curr->crosslock.opportunistic[xr_irq_context(curr)];

	if (likely(*depth))
		(*depth)--;
	else
		xr_warn_once("unbalanced %s at %pS\n", __func__,
			     (void *)_RET_IP_);
}
EXPORT_SYMBOL_GPL(crosslock_opportunistic_end);

/**
 * crosslock_hide_begin - acquisitions from here on are not recorded
 *
 * For lockdep maps that annotate a section rather than lock anything, such
 * as dma_fence_begin_signalling(): a crosslock released in this context
 * must not depend on the annotation itself.  Until crosslock_hide_end(),
 * this task's acquisitions stay out of its history.
 */
void crosslock_hide_begin(void)
{
	current->crosslock.hidden++;
}
EXPORT_SYMBOL_GPL(crosslock_hide_begin);

/**
 * crosslock_hide_end - end of crosslock_hide_begin()
 */
void crosslock_hide_end(void)
{
	struct crosslock_task *xt = &current->crosslock;

	if (likely(xt->hidden))
		xt->hidden--;
	else
		xr_warn_once("unbalanced %s at %pS\n", __func__,
			     (void *)_RET_IP_);
}
EXPORT_SYMBOL_GPL(crosslock_hide_end);

/* ---------------------------------------------------------------------
 * Class tables (<linux/crossrelease_class_table.h>): lookups are inline,
 * adding an owner is here.
 */

/*
 * The class tables that have entries, so that the entries of a module
 * that goes away can be dropped: a table is listed once, the list is only
 * ever appended to and is read without a lock.
 */
#define XR_CLASS_TABLES	8
static struct crosslock_class_table *xr_class_tables[XR_CLASS_TABLES];
static atomic_t xr_nr_class_tables = ATOMIC_INIT(0);

/* Called with @t's lock held */
static void xr_class_table_list(struct crosslock_class_table *t)
{
	int i;

	if (likely(t->listed))
		return;
	i = atomic_fetch_inc(&xr_nr_class_tables);
	if (WARN_ON_ONCE(i >= XR_CLASS_TABLES))
		return;
	WRITE_ONCE(xr_class_tables[i], t);
	t->listed = true;
}

/*
 * Drop the entries of @t whose owner @gone says went away, with the
 * lockdep classes of their keys (the dependencies they had go with
 * them); the slots are not taken again.
 */
static void xr_class_table_forget(struct crosslock_class_table *t,
				  bool (*gone)(const void *owner, void *arg),
				  void *arg)
{
	struct crosslock_class_slot *s;
	unsigned long flags;
	unsigned int i;

	for (i = 0; i < t->nr_entries; i++) {
		s = t->entries + i * t->entry_size;
		if (!READ_ONCE(s->owner) || s->owner == CROSSLOCK_CLASS_GONE ||
		    !(gone(s->owner, arg) || (s->owner2 && gone(s->owner2, arg))))
			continue;
		raw_spin_lock_irqsave(&t->lock, flags);
		WRITE_ONCE(s->owner, CROSSLOCK_CLASS_GONE);
		raw_spin_unlock_irqrestore(&t->lock, flags);
		lockdep_free_key_range(s, t->entry_size);
	}
}

/**
 * crosslock_class_tables_forget - drop the class-table entries of owners gone
 * @gone: tells whether an owner (or a second key) went away
 * @arg:  passed to @gone
 *
 * Classes are named after, and keyed by, the address of what owns the
 * crosslocks (an address_space_operations, a file system type, a
 * dma_fence_ops): when a module takes that away, an unrelated one loaded
 * later at the same address must not inherit the name and the graph.
 * Might sleep.
 */
void crosslock_class_tables_forget(bool (*gone)(const void *owner, void *arg),
				   void *arg)
{
	int i, n = min(atomic_read(&xr_nr_class_tables), XR_CLASS_TABLES);

	for (i = 0; i < n; i++) {
		struct crosslock_class_table *t = READ_ONCE(xr_class_tables[i]);

		if (t)
			xr_class_table_forget(t, gone, arg);
	}
}

static bool xr_owner_in_module(const void *owner, void *mod)
{
	return within_module((unsigned long)owner, mod);
}

static int xr_module_notify(struct notifier_block *nb, unsigned long state,
			    void *mod)
{
	if (state == MODULE_STATE_GOING)
		crosslock_class_tables_forget(xr_owner_in_module, mod);
	return NOTIFY_DONE;
}

static struct notifier_block xr_module_nb = {
	.notifier_call = xr_module_notify,
};

static int __init xr_module_notifier_init(void)
{
	return register_module_notifier(&xr_module_nb);
}
early_initcall(xr_module_notifier_init);

/**
 * crosslock_class_add - give an owner an entry in a class table
 * @t:      the table
 * @owner:  the owner, never NULL
 * @owner2: a second key, or NULL
 * @init:   fills the new entry (names, keys, maps), with the table locked
 * @arg:    passed to @init
 *
 * The table's lock is one lockdep does not see, so that the folio-lock and
 * buffer-lock hooks can add their classes.
 *
 * Return: the owner's entry, new or added meanwhile by another caller;
 * NULL if the table is full (the caller warns and falls back).
 */
void *crosslock_class_add(struct crosslock_class_table *t,
			  const void *owner, const void *owner2,
			  crosslock_class_init_t init, const void *arg)
{
	struct crosslock_class_slot *s;
	unsigned long flags;
	unsigned int i;

	lockdep_off();
	raw_spin_lock_irqsave(&t->lock, flags);
	xr_class_table_list(t);
	s = crosslock_class_probe(t, owner, owner2);
	for (i = 0; !s && i < t->nr_entries; i++) {
		s = crosslock_class_slot(t, owner, owner2, i);
		if (s->owner) {
			s = NULL;
			continue;
		}
		s->owner2 = owner2;
		init(s, owner, arg);
		/* publish the entry before the owner that finds it */
		smp_store_release(&s->owner, owner);
	}
	raw_spin_unlock_irqrestore(&t->lock, flags);
	lockdep_on();
	return s;
}
EXPORT_SYMBOL_GPL(crosslock_class_add);

/* ---------------------------------------------------------------------
 * Classes per (helper, tag), for helpers that many unrelated users share.
 */
#define XR_TAG_CLASSES		256	/* every kthread function, RCU flavours, ... */
#define XR_TAG_NAME_LEN		64

struct xr_tag_class {
	struct crosslock_class_slot	slot;	/* the tag, then the helper */
	struct lock_class_key		key;
	char				name[XR_TAG_NAME_LEN];
};

static struct xr_tag_class xr_tag_classes[XR_TAG_CLASSES];
DEFINE_CROSSLOCK_CLASS_TABLE(xr_tags, xr_tag_classes);

static void xr_tag_class_init(void *entry, const void *tag, const void *what)
{
	struct xr_tag_class *t = entry;

	snprintf(t->name, XR_TAG_NAME_LEN, "(complete)%s:%ps",
		 (const char *)what, tag);
}

/**
 * crosslock_tag_class - a lockdep class per (helper, tag)
 * @what: the helper, a static string such as "wait_rcu_gp"
 * @tag:  a static object naming what the helper serves this time
 * @name: set to the class name, "(complete)<what>:<tag>"
 *
 * A helper whose crosslocks stand for unrelated events (the grace periods
 * of different RCU flavours) gives each its own class this way.
 *
 * Return: the class key, or NULL when the table is full (keep the default
 * class).
 */
struct lock_class_key *crosslock_tag_class(const char *what, const void *tag,
					   const char **name)
{
	struct xr_tag_class *t = crosslock_class_find(&xr_tags, tag, what);

	if (!t)
		t = crosslock_class_add(&xr_tags, tag, what, xr_tag_class_init, what);
	if (!t) {
		pr_warn_once("crossrelease: more than %d tagged classes, later ones share their helper's class\n",
			     XR_TAG_CLASSES);
		return NULL;
	}
	*name = t->name;
	return &t->key;
}
EXPORT_SYMBOL_GPL(crosslock_tag_class);

/* ---------------------------------------------------------------------
 * Crosslocks with one owner at a time.  The primitive's own lock bit
 * orders owners, so the state needs no lock of its own: the owner writes
 * it after taking the bit, the releaser reads and clears it before
 * dropping the bit.
 */

/*
 * Has the current context instance of @curr written a history entry at or
 * after generation @gen?  If not, no commit of a crosslock acquired at
 * @gen has anything to walk.  Only this context writes its span.
 */
static bool xr_hist_written_since(struct task_struct *curr, u64 gen)
{
	unsigned int irq_context = xr_irq_context(curr);
	struct crosslock_span *s = &curr->crosslock.span[irq_context];

	return s->ctx == xr_ctx_id(curr, irq_context) &&
	       !xr_gen_before(s->last_gen, gen);
}

/* Low 32 bits 0 mean "not acquired", so acquisitions never get them. */
static __always_inline unsigned int xr_next_gen(void)
{
	u64 gen = atomic64_inc_return(&crosslock_gen);

	if (unlikely(!lower_32_bits(gen)))
		gen = atomic64_inc_return(&crosslock_gen);
	return lower_32_bits(gen);
}

/*
 * The full generation of an owned acquisition from its low 32 bits: the
 * latest generation with those bits.  If the lock was held for 2^32
 * generations or more, that is younger than the truth, so the commit looks
 * at fewer entries, never at entries older than the acquisition.
 */
static u64 xr_owner_gen(unsigned int low)
{
	u64 now = atomic64_read(&crosslock_gen);
	u64 gen = (now & ~(u64)U32_MAX) | low;

	return gen > now ? gen - BIT_ULL(32) : gen;
}

/**
 * crosslock_owner_wait - a wait for an owned crosslock
 * @map: the crosslock class
 * @ip:  the caller
 *
 * Called before a sleeping acquisition (whether or not it ends up waiting)
 * and before a wait for the release alone: every lock the caller holds
 * then depends on the crosslock.
 */
void crosslock_owner_wait(struct lockdep_map *map, unsigned long ip)
{
	int class_idx;

	if (!xr_enabled || !crosslock_owner_wait_needed(current->lockdep_depth))
		return;
	/*
	 * Mark the class as a crosslock's before the check: a class that
	 * is also a plain lock map's (a kthread_worker's order, a work
	 * item's flush) may close a cycle at its first wait, and a cycle
	 * through a crosslock is reported without switching lockdep off.
	 */
	class_idx = xr_class_acquired(map, CROSSLOCK_HIST_WAIT,
				      ip, true, 0);
	xr_check_wait(map, class_idx, ip);
}
EXPORT_SYMBOL_GPL(crosslock_owner_wait);

/* crosslock_owner::pid has 24 bits */
static_assert(PID_MAX_LIMIT <= 1 << 24);

/* Fill @o as the current context's acquisition of an owned crosslock */
static __always_inline void xr_owner_take(struct crosslock_owner *o,
					  unsigned long ip)
{
	o->ip = ip;
	o->pid = task_pid_nr(current);
	o->gen = xr_next_gen();
	atomic_inc(&crosslock_nr_in_flight);
}

/**
 * crosslock_owner_acquire - an owned crosslock was taken
 * @map: the crosslock class
 * @o:   filled with the new acquisition's state
 * @ip:  the caller
 *
 * The primitive stores @o in its instance; if that replaces a state still
 * marked as acquired, it hands the old one to crosslock_owner_replaced().
 */
void crosslock_owner_acquire(struct lockdep_map *map, struct crosslock_owner *o,
			     unsigned long ip)
{
	int class_idx;

	if (!xr_enabled)
		return;
	xr_owner_take(o, ip);
	/*
	 * An acquisition writes no history: all it has to do is mark the
	 * class and save the call site's stack, once.  Most find both done
	 * and need neither lockdep's recursion guard nor interrupts off.
	 */
	class_idx = crosslock_cached_class_idx(map);
	if (likely(class_idx >= 0 && test_bit(class_idx, crosslock_classes) &&
		   xr_stack_seen_last(class_idx, ip)))
		return;
	/* no wait: no history entry, no generation */
	xr_class_acquired(map, 0, ip, true, 0);
}
EXPORT_SYMBOL_GPL(crosslock_owner_acquire);

/**
 * crosslock_owner_lock - an owned crosslock was taken without sleeping
 * @map: the crosslock class
 * @o:   filled with the new acquisition's state
 * @ip:  the caller
 *
 * crosslock_owner_wait() and crosslock_owner_acquire() in one call, for the
 * fast path of a sleeping lock, which took its bit at the first try: to
 * lockdep that is still a wait.  The class is looked up once, and the
 * wait's note has already marked it and remembered the call site.
 */
void crosslock_owner_lock(struct lockdep_map *map, struct crosslock_owner *o,
			  unsigned long ip)
{
	int class_idx;

	if (!xr_enabled)
		return;
	if (!crosslock_owner_wait_needed(current->lockdep_depth)) {
		crosslock_owner_acquire(map, o, ip);
		return;
	}
	/* the wait's entry is older than the acquisition, as with two calls */
	class_idx = xr_class_acquired(map, CROSSLOCK_HIST_WAIT,
				      ip, true, 0);
	xr_check_wait(map, class_idx, ip);
	xr_owner_take(o, ip);
}
EXPORT_SYMBOL_GPL(crosslock_owner_lock);

/**
 * crosslock_owner_replaced - an acquisition replaced a stale state
 * @old: the state that was replaced
 *
 * The instance's lock bit was dropped behind our back (e.g. copied to split
 * pages and cleared there), so its old state, if acquired, is stale.
 */
void crosslock_owner_replaced(struct crosslock_owner *old)
{
	if (!xr_enabled || !old->gen)
		return;
	crosslock_counter_inc(CROSSLOCK_COUNTER_OWNER_STALE);
	atomic_dec(&crosslock_nr_in_flight);
}
EXPORT_SYMBOL_GPL(crosslock_owner_replaced);

/**
 * crosslock_owner_copied - an acquired state was copied to a second instance
 * @o: the copy
 *
 * A split folio's lock bit goes to the page the split keeps locked: the
 * copy is released, and committed, on its own.
 */
void crosslock_owner_copied(const struct crosslock_owner *o)
{
	if (xr_enabled && o->gen)
		atomic_inc(&crosslock_nr_in_flight);
}
EXPORT_SYMBOL_GPL(crosslock_owner_copied);

/**
 * crosslock_owner_untracked - count a release that has no record
 * @cause: why it has none
 *
 * For a primitive that found no room for the state at all; a state that is
 * there but not acquired is counted by the release itself.
 */
void crosslock_owner_untracked(enum crosslock_untracked cause)
{
	if (xr_enabled)
		crosslock_counter_inc(CROSSLOCK_COUNTER_UNTRACKED + cause);
}
EXPORT_SYMBOL_GPL(crosslock_owner_untracked);

/*
 * @o is not acquired: count its release under the cause the primitive left
 * in ->ip, or as unseen if ->ip still holds a former owner's call site.
 */
static void xr_owner_count_untracked(const struct crosslock_owner *o)
{
	unsigned long cause = o->ip;

	if (cause >= CROSSLOCK_UNTRACKED_NR)
		cause = CROSSLOCK_UNTRACKED_UNSEEN;
	crosslock_counter_inc(CROSSLOCK_COUNTER_UNTRACKED + cause);
}

/* Take @o out of what is in flight */
static void xr_owner_drop(struct crosslock_owner *o)
{
	/* the primitive's own lock bit keeps a second releaser out */
	WRITE_ONCE(o->gen, 0);
	atomic_dec(&crosslock_nr_in_flight);
}

/**
 * crosslock_owner_try_release - release @o, unless it has something to commit
 * @o: the state of an owned crosslock instance
 *
 * Most unlocks follow their lock with no acquisition in between: they are
 * released here, in one call, and the primitive need not look up the
 * class.  Such an unlock is counted as a commit, as it would have been by
 * crosslock_owner_release().
 *
 * Return: false if the current context acquired something since @o was
 * acquired: the primitive then commits with crosslock_owner_release(map,
 * @o, true).  True if @o was released, or was not tracked.
 */
bool crosslock_owner_try_release(struct crosslock_owner *o)
{
	unsigned int gen = READ_ONCE(o->gen);

	if (!xr_enabled)
		return true;
	if (!gen) {
		xr_owner_count_untracked(o);
		return true;
	}
	if (xr_hist_written_since(current, xr_owner_gen(gen)))
		return false;
	crosslock_counter_inc(CROSSLOCK_COUNTER_COMMITS);
	xr_owner_drop(o);
	return true;
}
EXPORT_SYMBOL_GPL(crosslock_owner_try_release);

/*
 * The slow path of crosslock_owner_release(): the commit, kept out of line
 * so that the common unlock, which has nothing to commit, neither sets up
 * nor clears the snapshot of the crosslock on its stack.
 */
static noinline void xr_owner_commit(struct lockdep_map *map,
				     const struct crosslock_owner *o,
				     u64 acquired)
{
	struct crosslock_snapshot c;
	unsigned long flags;
	int class_idx;

	class_idx = crosslock_lockdep_enter_class(map, &flags);
	if (class_idx < 0)
		return;
	xr_mark_class(class_idx);
	xr_commit_fill(&c, class_idx, map, READ_ONCE(o->ip), acquired,
		       o->pid);
	xr_commit_run(&c);
	crosslock_lockdep_exit(flags);
}

/**
 * crosslock_owner_release - release an owned crosslock
 * @map:    the crosslock class
 * @o:      the state of this instance
 * @commit: commit this context's dependencies first (a real unlock, as
 *          opposed to dropping a lock nobody could have waited for)
 *
 * Return: false if the instance was not acquired as far as we know (its
 * lock bit was set before tracking began, or copied): the release is only
 * counted, by the cause the primitive left in @o.
 */
bool crosslock_owner_release(struct lockdep_map *map, struct crosslock_owner *o,
			     bool commit)
{
	unsigned int gen = READ_ONCE(o->gen);
	u64 acquired;

	if (!xr_enabled)
		return true;
	if (!gen) {
		xr_owner_count_untracked(o);
		return false;
	}
	if (commit) {
		acquired = xr_owner_gen(gen);
		if (xr_hist_written_since(current, acquired))
			xr_owner_commit(map, o, acquired);
		else	/* the common unlock: nothing acquired since, nothing to walk */
			crosslock_counter_inc(CROSSLOCK_COUNTER_COMMITS);
	}
	xr_owner_drop(o);
	return true;
}
EXPORT_SYMBOL_GPL(crosslock_owner_release);
