// SPDX-License-Identifier: GPL-2.0
/*
 * Microbenchmarks for lockdep and its crossrelease extension.
 *
 * Write a command to /sys/kernel/debug/bench_crossrelease/run and read the
 * result of the last one back from the same file:
 *
 *   mutex <depth>   nested mutex lock/unlock, one class per level (1-8)
 *   spin <depth>    the same with spinlocks
 *   completion      complete()/wait_for_completion() ping-pong between
 *                   two kthreads on one CPU, per round trip
 *   folio           folio_lock()/folio_unlock() of one folio
 *   hold <n>        park n kthreads in wait_for_completion(), each on a
 *                   completion of its own, until "release"
 *   release         complete and reap them
 *
 * A benchmark prints one line:
 *
 *   <name> ns_per_op=<median> min=<ns> max=<ns> reps=<batches> ops=<n>
 *
 * the median, minimum and maximum over "reps" timed batches of "ops"
 * operations each (module parameters), after one untimed warm-up batch
 * that registers the classes and lock chains.  A lock benchmark's
 * operation is one lock/unlock pair: at depth d a batch runs ops/d rounds
 * of d nested locks.
 *
 * Each command runs in a kthread of its own, bound to CPU 0, that holds
 * no other lock, while the writer sleeps on a wait queue rather than on a
 * completion, so that the benchmark itself puts no crosslock in flight.  The module uses
 * only the kernel's ordinary locking API and builds with or without
 * lockdep and crossrelease, so that kernels can be compared.
 */
#include <linux/bitops.h>
#include <linux/completion.h>
#include <linux/debugfs.h>
#include <linux/delay.h>
#include <linux/gfp.h>
#include <linux/kthread.h>
#include <linux/ktime.h>
#include <linux/math64.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/pagemap.h>
#include <linux/sched.h>
#include <linux/sched/task.h>
#include <linux/slab.h>
#include <linux/sort.h>
#include <linux/spinlock.h>
#include <linux/string.h>
#include <linux/uaccess.h>
#include <linux/wait.h>

#define BENCH_MAX_DEPTH	8
#define BENCH_MAX_REPS	31
#define BENCH_MAX_HOLD	4096
#define BENCH_CMD_LEN	32
#define BENCH_RES_LEN	160
/* every benchmark thread runs on this CPU */
#define BENCH_CPU	0
/* a ping-pong round trip costs about this many lock/unlock pairs */
#define BENCH_PP_DIV	50

static unsigned int reps = 5;
module_param(reps, uint, 0644);
MODULE_PARM_DESC(reps, "Timed batches per benchmark, median reported (1-31, default 5)");

static unsigned int ops = 20000;
module_param(ops, uint, 0644);
MODULE_PARM_DESC(ops, "Operations per batch (default 20000; ping-pong: ops/50)");

static struct mutex bench_mutex[BENCH_MAX_DEPTH];
static spinlock_t bench_spin[BENCH_MAX_DEPTH];
static struct lock_class_key bench_mutex_key[BENCH_MAX_DEPTH];
static struct lock_class_key bench_spin_key[BENCH_MAX_DEPTH];

static const char * const bench_mutex_name[BENCH_MAX_DEPTH] = {
	"bench_mutex_0", "bench_mutex_1", "bench_mutex_2", "bench_mutex_3",
	"bench_mutex_4", "bench_mutex_5", "bench_mutex_6", "bench_mutex_7",
};

static const char * const bench_spin_name[BENCH_MAX_DEPTH] = {
	"bench_spin_0", "bench_spin_1", "bench_spin_2", "bench_spin_3",
	"bench_spin_4", "bench_spin_5", "bench_spin_6", "bench_spin_7",
};

enum bench_kind {
	BENCH_MUTEX,
	BENCH_SPIN,
	BENCH_COMPLETION,
	BENCH_FOLIO,
	BENCH_HOLD,
	BENCH_RELEASE,
};

struct bench_cmd {
	enum bench_kind	kind;
	unsigned int	arg;
	struct folio	*folio;
};

/* The command in progress: one at a time, guarded by bit 0 of bench_busy */
static unsigned long bench_busy;
static struct bench_cmd bench_cur;
static int bench_ret;
static bool bench_done;
static DECLARE_WAIT_QUEUE_HEAD(bench_wq);
static char bench_result[BENCH_RES_LEN];

/* ---------------------------------------------------------------------
 * Lock/unlock pairs.
 */
static u64 bench_mutex_batch(unsigned int depth, unsigned int rounds)
{
	unsigned int i, d;
	u64 t0 = ktime_get_ns();

	for (i = 0; i < rounds; i++) {
		for (d = 0; d < depth; d++)
			mutex_lock(&bench_mutex[d]);
		for (d = depth; d-- > 0; )
			mutex_unlock(&bench_mutex[d]);
	}
	return ktime_get_ns() - t0;
}

/*
 * Levels @d to @depth - 1, each level unlocking what it locked: sparse
 * checks spinlock balance per function and cannot follow the two loops of
 * bench_mutex_batch().
 */
static void bench_spin_nest(unsigned int d, unsigned int depth)
{
	spin_lock(&bench_spin[d]);
	if (d + 1 < depth)
		bench_spin_nest(d + 1, depth);
	spin_unlock(&bench_spin[d]);
}

static u64 bench_spin_batch(unsigned int depth, unsigned int rounds)
{
	unsigned int i;
	u64 t0 = ktime_get_ns();

	for (i = 0; i < rounds; i++)
		bench_spin_nest(0, depth);
	return ktime_get_ns() - t0;
}

static u64 bench_folio_batch(struct folio *folio, unsigned int n)
{
	unsigned int i;
	u64 t0 = ktime_get_ns();

	for (i = 0; i < n; i++) {
		folio_lock(folio);
		folio_unlock(folio);
	}
	return ktime_get_ns() - t0;
}

/* ---------------------------------------------------------------------
 * Completion ping-pong: the benchmark thread pings, a second kthread pongs.
 */
struct bench_pp {
	struct completion	ping;
	struct completion	pong;
	unsigned int		n;
};

static int bench_pong_fn(void *data)
{
	struct bench_pp *pp = data;
	unsigned int i;

	for (i = 0; i < pp->n; i++) {
		wait_for_completion(&pp->ping);
		complete(&pp->pong);
	}
	return 0;
}

static u64 bench_completion_batch(unsigned int n)
{
	struct task_struct *t;
	struct bench_pp pp;
	unsigned int i;
	u64 t0, dt;

	init_completion(&pp.ping);
	init_completion(&pp.pong);
	pp.n = n;
	t = kthread_create(bench_pong_fn, &pp, "bench_xr_pong");
	if (IS_ERR(t))
		return 0;
	/* same CPU as the benchmark thread: no IPIs, no idle wake-ups */
	kthread_bind(t, BENCH_CPU);
	get_task_struct(t);
	wake_up_process(t);

	t0 = ktime_get_ns();
	for (i = 0; i < n; i++) {
		complete(&pp.ping);
		wait_for_completion(&pp.pong);
	}
	dt = ktime_get_ns() - t0;

	kthread_stop(t);
	put_task_struct(t);
	return dt;
}

/* ---------------------------------------------------------------------
 * Crosslocks in flight: kthreads blocked on completions of their own.
 */
struct bench_waiter {
	struct completion	done;
	struct task_struct	*task;
};

static struct bench_waiter *bench_waiters;
static unsigned int bench_nr_held;

static int bench_waiter_fn(void *data)
{
	struct bench_waiter *w = data;

	wait_for_completion(&w->done);
	return 0;
}

static void bench_release(void)
{
	unsigned int i;

	for (i = 0; i < bench_nr_held; i++) {
		complete(&bench_waiters[i].done);
		kthread_stop(bench_waiters[i].task);
		put_task_struct(bench_waiters[i].task);
	}
	kvfree(bench_waiters);
	bench_waiters = NULL;
	bench_nr_held = 0;
}

/* Is the waiter asleep in wait_for_completion()? */
static bool bench_waiter_blocked(struct bench_waiter *w)
{
	return READ_ONCE(w->task->__state) == TASK_UNINTERRUPTIBLE;
}

static int bench_hold(unsigned int n)
{
	unsigned int i, tries;

	bench_release();
	if (n > BENCH_MAX_HOLD)
		return -EINVAL;
	if (!n)
		return 0;
	bench_waiters = kvcalloc(n, sizeof(*bench_waiters), GFP_KERNEL);
	if (!bench_waiters)
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		struct bench_waiter *w = &bench_waiters[i];
		struct task_struct *t;

		init_completion(&w->done);
		t = kthread_create(bench_waiter_fn, w, "bench_xr_w%u", i);
		if (IS_ERR(t)) {
			bench_release();
			return PTR_ERR(t);
		}
		get_task_struct(t);
		w->task = t;
		bench_nr_held++;
		wake_up_process(t);
	}
	/* all of them asleep, and then a little longer to settle */
	for (i = 0, tries = 0; i < n; ) {
		if (bench_waiter_blocked(&bench_waiters[i])) {
			i++;
			continue;
		}
		if (++tries > 10000) {
			bench_release();
			return -ETIMEDOUT;
		}
		usleep_range(1000, 2000);
	}
	msleep(20);
	return 0;
}

/* ---------------------------------------------------------------------
 * Measurement.
 */
static int bench_cmp_u64(const void *a, const void *b)
{
	u64 x = *(const u64 *)a, y = *(const u64 *)b;

	return x < y ? -1 : x > y;
}

static u64 bench_batch(struct bench_cmd *c, unsigned int n)
{
	switch (c->kind) {
	case BENCH_MUTEX:
		return bench_mutex_batch(c->arg, n / c->arg);
	case BENCH_SPIN:
		return bench_spin_batch(c->arg, n / c->arg);
	case BENCH_FOLIO:
		return bench_folio_batch(c->folio, n);
	case BENCH_COMPLETION:
		return bench_completion_batch(n);
	default:
		return 0;
	}
}

/* nanoseconds per operation, in hundredths */
static u64 bench_per_op(u64 ns, unsigned int n)
{
	return div_u64(ns * 100, n);
}

static int bench_measure(struct bench_cmd *c, const char *name)
{
	unsigned int nr = clamp_val(reps, 1, BENCH_MAX_REPS);
	u64 t[BENCH_MAX_REPS], med, lo, hi;
	unsigned int i, n = max(ops, 1U);

	if (c->kind == BENCH_MUTEX || c->kind == BENCH_SPIN)
		n = max(n / c->arg, 1U) * c->arg;
	else if (c->kind == BENCH_COMPLETION)
		n = max(n / BENCH_PP_DIV, 1U);

	bench_batch(c, n);			/* warm-up */
	for (i = 0; i < nr; i++) {
		t[i] = bench_batch(c, n);
		if (!t[i])
			return -ENOMEM;
		cond_resched();
	}
	sort(t, nr, sizeof(t[0]), bench_cmp_u64, NULL);
	med = nr & 1 ? t[nr / 2] : (t[nr / 2 - 1] + t[nr / 2]) / 2;
	med = bench_per_op(med, n);
	lo = bench_per_op(t[0], n);
	hi = bench_per_op(t[nr - 1], n);
	snprintf(bench_result, sizeof(bench_result),
		 "%s ns_per_op=%llu.%02llu min=%llu.%02llu max=%llu.%02llu reps=%u ops=%u\n",
		 name, med / 100, med % 100, lo / 100, lo % 100,
		 hi / 100, hi % 100, nr, n);
	pr_info("bench_crossrelease: %s", bench_result);
	return 0;
}

static int bench_run(struct bench_cmd *c)
{
	char name[24];
	int ret;

	switch (c->kind) {
	case BENCH_MUTEX:
		snprintf(name, sizeof(name), "mutex_d%u", c->arg);
		return bench_measure(c, name);
	case BENCH_SPIN:
		snprintf(name, sizeof(name), "spin_d%u", c->arg);
		return bench_measure(c, name);
	case BENCH_COMPLETION:
		return bench_measure(c, "completion_pingpong");
	case BENCH_FOLIO:
		c->folio = folio_alloc(GFP_KERNEL, 0);
		if (!c->folio)
			return -ENOMEM;
		ret = bench_measure(c, "folio_lock");
		folio_put(c->folio);
		c->folio = NULL;
		return ret;
	case BENCH_HOLD:
		ret = bench_hold(c->arg);
		snprintf(bench_result, sizeof(bench_result),
			 "hold waiters=%u\n", bench_nr_held);
		return ret;
	case BENCH_RELEASE:
		bench_release();
		snprintf(bench_result, sizeof(bench_result), "release\n");
		return 0;
	}
	return -EINVAL;
}

static int bench_thread_fn(void *data)
{
	bench_ret = bench_run(&bench_cur);
	/* publish bench_ret and bench_result before bench_done */
	smp_store_release(&bench_done, true);
	wake_up(&bench_wq);
	return 0;
}

static int bench_parse(char *buf, struct bench_cmd *c)
{
	char word[16];
	unsigned int arg = 0;
	int n;

	n = sscanf(strim(buf), "%15s %u", word, &arg);
	if (n < 1)
		return -EINVAL;
	memset(c, 0, sizeof(*c));
	c->arg = arg;
	if (!strcmp(word, "mutex") || !strcmp(word, "spin")) {
		if (n < 2 || !arg || arg > BENCH_MAX_DEPTH)
			return -EINVAL;
		c->kind = word[0] == 'm' ? BENCH_MUTEX : BENCH_SPIN;
	} else if (!strcmp(word, "completion")) {
		c->kind = BENCH_COMPLETION;
	} else if (!strcmp(word, "folio")) {
		c->kind = BENCH_FOLIO;
	} else if (!strcmp(word, "hold")) {
		if (n < 2 || arg > BENCH_MAX_HOLD)
			return -EINVAL;
		c->kind = BENCH_HOLD;
	} else if (!strcmp(word, "release")) {
		c->kind = BENCH_RELEASE;
	} else {
		return -EINVAL;
	}
	return 0;
}

/* ---------------------------------------------------------------------
 * debugfs
 */
static ssize_t bench_write(struct file *file, const char __user *ubuf,
			   size_t len, loff_t *ppos)
{
	char buf[BENCH_CMD_LEN];
	struct task_struct *t;
	int ret;

	if (len >= sizeof(buf))
		return -EINVAL;
	if (copy_from_user(buf, ubuf, len))
		return -EFAULT;
	buf[len] = '\0';
	if (test_and_set_bit_lock(0, &bench_busy))
		return -EBUSY;
	ret = bench_parse(buf, &bench_cur);
	if (ret)
		goto out;

	bench_done = false;
	bench_result[0] = '\0';
	t = kthread_create(bench_thread_fn, NULL, "bench_xr");
	if (IS_ERR(t)) {
		ret = PTR_ERR(t);
		goto out;
	}
	kthread_bind(t, BENCH_CPU);
	get_task_struct(t);
	wake_up_process(t);
	/* a wait queue, not a completion: no crosslock while it runs */
	wait_event(bench_wq, smp_load_acquire(&bench_done));
	kthread_stop(t);
	put_task_struct(t);
	ret = bench_ret;
out:
	clear_bit_unlock(0, &bench_busy);
	return ret ? ret : len;
}

static ssize_t bench_read(struct file *file, char __user *ubuf, size_t len,
			  loff_t *ppos)
{
	ssize_t ret;

	if (test_and_set_bit_lock(0, &bench_busy))
		return -EBUSY;
	ret = simple_read_from_buffer(ubuf, len, ppos, bench_result,
				      strlen(bench_result));
	clear_bit_unlock(0, &bench_busy);
	return ret;
}

static const struct file_operations bench_fops = {
	.owner	= THIS_MODULE,
	.read	= bench_read,
	.write	= bench_write,
	.llseek	= default_llseek,
};

static struct dentry *bench_dir;

static int __init bench_init(void)
{
	int i;

	for (i = 0; i < BENCH_MAX_DEPTH; i++) {
		mutex_init(&bench_mutex[i]);
		lockdep_set_class_and_name(&bench_mutex[i], &bench_mutex_key[i],
					   bench_mutex_name[i]);
		spin_lock_init(&bench_spin[i]);
		lockdep_set_class_and_name(&bench_spin[i], &bench_spin_key[i],
					   bench_spin_name[i]);
	}
	bench_dir = debugfs_create_dir("bench_crossrelease", NULL);
	debugfs_create_file("run", 0600, bench_dir, NULL, &bench_fops);
	return 0;
}

static void __exit bench_exit(void)
{
	debugfs_remove_recursive(bench_dir);
	bench_release();
}

module_init(bench_init);
module_exit(bench_exit);

MODULE_DESCRIPTION("Microbenchmarks for lockdep and crossrelease");
MODULE_LICENSE("GPL");
