// SPDX-License-Identifier: GPL-2.0
/*
 * Folio locks (PG_locked) as lockdep crosslocks.
 *
 * A folio lock is often taken by a task and dropped by someone else, an
 * I/O completion most of the time, so lockdep's held-lock stack cannot
 * follow it.  Folio locks are crosslocks whose class follows what the
 * folio belongs to, the way inode locks get a class per file system type:
 *
 *  - "(PG_locked)<fs>:<a_ops>": the page cache of an inode of file system
 *    type <fs> with those address_space_operations, e.g.
 *    "(PG_locked)btrfs:btrfs_aops" (file data) and
 *    "(PG_locked)btrfs:btree_aops" (extent buffers),
 *    "(PG_locked)bdev:def_blk_aops", "(PG_locked)tmpfs:shmem_aops";
 *  - "(PG_locked)anon": anonymous and swap-cache folios;
 *  - "(PG_locked)folio": folios that belong to nothing (yet, or any more).
 *
 * The class is looked up from folio->mapping at each step, so a folio
 * added to the page cache while locked is unlocked in the class its
 * waiters saw.  For each class:
 *
 *  - a sleeping acquisition, or a wait for the unlock alone, makes every
 *    lock the waiter holds depend on the class (crosslock_owner_wait());
 *  - taking the bit records who took it and when, in the folio's page_ext
 *    (crosslock_owner_acquire()), so that
 *  - folio_unlock() commits what its context acquired since: the unlock
 *    could not happen before those acquisitions did.
 *
 * The folio is never put on the held-lock stack, so locking several folios
 * is not recursive locking and an unlock elsewhere is not a bad unlock.
 * The per-folio state lives in page_ext (struct page does not grow for a
 * debug feature); "lockdep_pagelock=off" on the command line does not even
 * allocate it.  See Documentation/locking/crossrelease.rst.
 */
#define pr_fmt(fmt) "lockdep_pagelock: " fmt

#include <linux/crossrelease.h>
#include <linux/fs.h>
#include <linux/hash.h>
#include <linux/init.h>
#include <linux/jump_label.h>
#include <linux/lockdep_pagelock.h>
#include <linux/mm.h>
#include <linux/page_ext.h>
#include <linux/string.h>

static bool pagelock_wanted __initdata = true;

static int __init lockdep_pagelock_setup(char *str)
{
	if (str && !strcmp(str, "off"))
		pagelock_wanted = false;
	return 0;
}
early_param("lockdep_pagelock", lockdep_pagelock_setup);

/* Off until page_ext has room for every folio's state. */
DEFINE_STATIC_KEY_FALSE(crosslock_folio_key);
EXPORT_SYMBOL_GPL(crosslock_folio_key);

static struct lock_class_key pagelock_key;
static struct lockdep_map pagelock_map =
	STATIC_LOCKDEP_MAP_INIT("(PG_locked)folio", &pagelock_key);

static struct lock_class_key anon_key;
static struct lockdep_map anon_map =
	STATIC_LOCKDEP_MAP_INIT("(PG_locked)anon", &anon_key);

/*
 * Folios are locked by the code of their address_space_operations: a
 * class per a_ops keeps apart what a file system locks in different
 * orders, such as btrfs' file data (btrfs_aops) and its extent buffers
 * (btree_aops, a private inode that is a regular file too).  A small open
 * hash table, filled once per a_ops, read locklessly.
 */
#define AOPS_BITS		7
#define AOPS_CLASSES		BIT(AOPS_BITS)
#define AOPS_PROBES		8
#define AOPS_NAME_LEN		64

struct aops_folio_class {
	const struct address_space_operations	*aops;
	struct lockdep_map			map;
	struct lock_class_key			key;
	char					name[AOPS_NAME_LEN];
};

static struct aops_folio_class aops_classes[AOPS_CLASSES];
static DEFINE_RAW_SPINLOCK(aops_classes_lock);

static struct aops_folio_class *aops_slot(const void *aops, int probe)
{
	return &aops_classes[(hash_ptr(aops, AOPS_BITS) + probe) &
			     (AOPS_CLASSES - 1)];
}

static struct lockdep_map *aops_class_find(const void *aops)
{
	int i;

	for (i = 0; i < AOPS_PROBES; i++) {
		struct aops_folio_class *c = aops_slot(aops, i);
		/* pairs with the release in aops_class_add(): map, name */
		const void *a = smp_load_acquire(&c->aops);

		if (a == aops)
			return &c->map;
		if (!a)
			break;
	}
	return NULL;
}

/* Takes no lock lockdep sees: called from the folio-lock hooks. */
static struct lockdep_map *aops_class_add(const struct address_space_operations *aops,
					  const char *fs_name)
{
	struct lockdep_map *map;
	unsigned long flags;
	int i;

	lockdep_off();
	raw_spin_lock_irqsave(&aops_classes_lock, flags);
	map = aops_class_find(aops);
	for (i = 0; !map && i < AOPS_PROBES; i++) {
		struct aops_folio_class *c = aops_slot(aops, i);

		if (c->aops)
			continue;
		snprintf(c->name, AOPS_NAME_LEN, "(PG_locked)%s:%ps",
			 fs_name, aops);
		lockdep_init_map(&c->map, c->name, &c->key, 0);
		/* publish the map and its name before the aops that find it */
		smp_store_release(&c->aops, aops);
		map = &c->map;
	}
	raw_spin_unlock_irqrestore(&aops_classes_lock, flags);
	lockdep_on();
	return map;
}

static struct lockdep_map *mapping_folio_class(struct address_space *mapping,
					       struct inode *host)
{
	const struct address_space_operations *aops = READ_ONCE(mapping->a_ops);
	struct file_system_type *type = host->i_sb->s_type;
	struct lockdep_map *map;

	map = aops_class_find(aops);
	if (likely(map))
		return map;
	map = aops_class_add(aops, type->name);
	if (!map)
		pr_warn_once("no room for the folio class of %ps (%s): its folios share \"(PG_locked)folio\"\n",
			     aops, type->name);
	return map;
}

/*
 * The class of @folio's lock.  The inode and super block behind a mapping
 * are freed after an RCU grace period; a preempt-disabled section is an
 * RCU reader and, unlike rcu_read_lock(), costs lockdep nothing.
 */
static struct lockdep_map *folio_lock_class(struct folio *folio)
{
	struct lockdep_map *map = NULL;
	struct address_space *mapping;
	struct inode *host;

	if (folio_test_swapcache(folio))
		return &anon_map;
	preempt_disable_notrace();
	mapping = READ_ONCE(folio->mapping);
	if ((unsigned long)mapping & PAGE_MAPPING_ANON) {
		map = &anon_map;
	} else if (mapping && !((unsigned long)mapping & PAGE_MAPPING_FLAGS)) {
		host = READ_ONCE(mapping->host);
		if (host)
			map = mapping_folio_class(mapping, host);
	}
	preempt_enable_notrace();
	return map ?: &pagelock_map;
}

/**
 * crosslock_folio_class_name - the name of @folio's lock class, for tests
 * @folio: the folio
 *
 * Return: the class name, e.g. "(PG_locked)ext4:ext4_aops".
 */
const char *crosslock_folio_class_name(struct folio *folio)
{
	return folio_lock_class(folio)->name;
}
EXPORT_SYMBOL_GPL(crosslock_folio_class_name);

static bool __init need_lockdep_pagelock(void)
{
	return pagelock_wanted && crosslock_enabled();
}

static void __init init_lockdep_pagelock(void)
{
	if (!need_lockdep_pagelock())
		return;
	static_branch_enable(&crosslock_folio_key);
	pr_info("tracking folio locks, %zu bytes per page\n",
		sizeof(struct crosslock_owner));
}

struct page_ext_operations crosslock_folio_ops = {
	.size = sizeof(struct crosslock_owner),
	.need = need_lockdep_pagelock,
	.init = init_lockdep_pagelock,
};

/* A folio's lock state is kept in the page_ext of its first page. */
static struct crosslock_owner *folio_owner(struct page_ext *page_ext)
{
	return (void *)page_ext + crosslock_folio_ops.offset;
}

/*
 * The state moves in and out of page_ext by copy, with preemption
 * disabled, which keeps page_ext from being freed (memory offline waits
 * for an RCU grace period) as page_ext_get()'s RCU read section does,
 * without its lockdep and RCU checks: they would cost several times the
 * rest on every folio lock and unlock, and show up in reports as a held
 * lock.  Plain (marked) accesses are enough: the folio's lock bit orders
 * every writer, as the state is put in after the bit is taken and taken
 * out before it is dropped (or the page is freed with it set, and unused).
 */

/* The page_ext of @page, with preemption disabled; NULL (and enabled) if none */
static struct crosslock_owner *folio_owner_get(struct page *page)
{
	struct page_ext *page_ext;

	preempt_disable_notrace();
	page_ext = page_ext_get_raw(page);
	if (page_ext)
		return folio_owner(page_ext);
	preempt_enable_notrace();
	return NULL;
}

static void folio_owner_put(void)
{
	preempt_enable_notrace();
}

/* Put @new in the page_ext of @page and return the old state in @old. */
static bool folio_swap_owner(struct page *page, const struct crosslock_owner *new,
			     struct crosslock_owner *old)
{
	struct crosslock_owner *o = folio_owner_get(page);

	if (!o)
		return false;
	old->ip = READ_ONCE(o->ip);
	old->pid = READ_ONCE(o->pid);
	old->gen = READ_ONCE(o->gen);
	WRITE_ONCE(o->ip, new->ip);
	WRITE_ONCE(o->pid, new->pid);
	WRITE_ONCE(o->gen, new->gen);
	folio_owner_put();
	return true;
}

/* Move the lock's state out of the page_ext of @page; false if none. */
static bool folio_take_owner(struct page *page, struct crosslock_owner *owner)
{
	static const struct crosslock_owner none;

	return folio_swap_owner(page, &none, owner);
}

/* The slow paths of the hooks in <linux/lockdep_pagelock.h> */

void __crosslock_folio_wait(struct folio *folio, unsigned long ip)
{
	/* the class is looked up only for a wait anything depends on */
	if (crosslock_owner_wait_needed(current->lockdep_depth))
		crosslock_owner_wait(folio_lock_class(folio), ip);
}
EXPORT_SYMBOL_GPL(__crosslock_folio_wait);

struct lockdep_map *__crosslock_folio_wait_class(struct folio *folio,
						 struct spinlock *ptl)
{
	/* after the ptl, the folio may be unlocked, freed and reused */
	lockdep_assert_held(ptl);
	return folio_lock_class(folio);
}

void __crosslock_folio_wait_class_end(struct lockdep_map *map,
				      unsigned long ip)
{
	crosslock_owner_wait(map, ip);
}

void __crosslock_folio_acquire(struct folio *folio, unsigned long ip)
{
	struct crosslock_owner owner = { }, old = { };
	struct lockdep_map *map;

	map = folio_lock_class(folio);
	crosslock_owner_acquire(map, &owner, ip);
	if (!folio_swap_owner(&folio->page, &owner, &old))
		crosslock_owner_release(map, &owner, false);
	else
		crosslock_owner_replaced(&old);
}
EXPORT_SYMBOL_GPL(__crosslock_folio_acquire);

/*
 * A folio locked before tracking started, or whose bit was copied (tail
 * pages of a split folio), is simply not tracked: no warning.
 */
void __crosslock_folio_release(struct folio *folio, bool commit,
			       unsigned long ip)
{
	struct crosslock_owner owner;
	struct lockdep_map *map;

	/*
	 * Commit from a copy, outside page_ext_get()'s RCU read section,
	 * which would otherwise show up in reports as a held lock.  The lock
	 * bit is still set: no new owner can come in between.
	 */
	if (!folio_take_owner(&folio->page, &owner))
		return;
	/* the class is looked up only for an unlock that commits something */
	map = commit && crosslock_owner_commit_needed(&owner) ?
	      folio_lock_class(folio) : &pagelock_map;
	crosslock_owner_release(map, &owner, commit);
}
EXPORT_SYMBOL_GPL(__crosslock_folio_release);

/*
 * Freeing a locked page is a bug the allocator reports (bad_page()); drop
 * the lock's state so that the page's next user starts clean.
 */
void __crosslock_folio_free(struct page *page)
{
	struct crosslock_owner owner;

	if (folio_take_owner(page, &owner))
		crosslock_owner_release(&pagelock_map, &owner, false);
}

/**
 * crosslock_folio_owned - is @folio recorded as locked?
 * @folio: the folio
 *
 * For tests.
 *
 * Return: true between the acquisition and the release of the folio lock
 * as far as lockdep knows.
 */
bool crosslock_folio_owned(struct folio *folio)
{
	struct crosslock_owner *o;
	bool owned;

	if (!crosslock_folio_enabled())
		return false;
	o = folio_owner_get(&folio->page);
	if (!o)
		return false;
	owned = READ_ONCE(o->gen);
	folio_owner_put();
	return owned;
}
EXPORT_SYMBOL_GPL(crosslock_folio_owned);
