// SPDX-License-Identifier: GPL-2.0
/*
 * Folio locks (PG_locked), and folio writeback (PG_writeback), as lockdep
 * crosslocks.
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
 * waiters saw; a folio that left its mapping while locked (truncated,
 * migrated) is unlocked in the class it was locked in, kept next to the
 * owner.  For each class:
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
 *
 * Writeback (CONFIG_LOCKDEP_WRITEBACK) is the same kind of lock on another
 * bit: folio_start_writeback() acquires it, folio_end_writeback() (most
 * often an I/O completion, or the work item that finishes an I/O) commits
 * and releases it, and folio_wait_writeback() waits for it.  Its classes
 * are named "(PG_writeback)..." after the same owners, and its state is a
 * second slot in the same page_ext.
 * The per-folio state lives in page_ext (struct page does not grow for a
 * debug feature); "lockdep_folio_lock=off" on the command line does not even
 * allocate it.  See Documentation/locking/crossrelease.rst.
 */
#define pr_fmt(fmt) "lockdep_folio_lock: " fmt

#include <kunit/visibility.h>
#include <linux/crossrelease.h>
#include <linux/crossrelease_class_table.h>
#include <linux/folio_crossrelease.h>
#include <linux/fs.h>
#include <linux/init.h>
#include <linux/jump_label.h>
#include <linux/mm.h>
#include <linux/page_ext.h>
#include <linux/string.h>

/* The folio bits tracked, each a crosslock with a state slot in page_ext */
enum folio_bit {
	FOLIO_LOCKED,
	FOLIO_WRITEBACK,
	NR_FOLIO_BITS
};

static const char *const folio_bit_names[NR_FOLIO_BITS] = {
	[FOLIO_LOCKED]		= "PG_locked",
	[FOLIO_WRITEBACK]	= "PG_writeback",
};

static bool folio_lock_wanted __initdata = true;
static bool writeback_wanted __initdata = IS_ENABLED(CONFIG_LOCKDEP_WRITEBACK);

CROSSLOCK_OFF_PARAM("lockdep_folio_lock", folio_lock_wanted);
CROSSLOCK_OFF_PARAM("lockdep_writeback", writeback_wanted);

/* Off until page_ext has room for every folio's state. */
DEFINE_STATIC_KEY_FALSE(crosslock_folio_key);
EXPORT_SYMBOL_GPL(crosslock_folio_key);
DEFINE_STATIC_KEY_FALSE(crosslock_writeback_key);
EXPORT_SYMBOL_GPL(crosslock_writeback_key);

static struct lock_class_key folio_keys[NR_FOLIO_BITS];
static struct lockdep_map folio_maps[NR_FOLIO_BITS] = {
	[FOLIO_LOCKED] = CROSSLOCK_MAP_INIT("(PG_locked)folio",
						 &folio_keys[FOLIO_LOCKED]),
	[FOLIO_WRITEBACK] = CROSSLOCK_MAP_INIT("(PG_writeback)folio",
						    &folio_keys[FOLIO_WRITEBACK]),
};

/*
 * Folios locked with __folio_set_locked() while in no mapping: new folios
 * that nobody can see, and so nobody can wait for, until their owner adds
 * them to a mapping.  They must not share a class with folios that left
 * their mapping while a racing look-up still held them, which are waited
 * for: a new folio's owner may take locks (readahead's invalidate_lock,
 * in khugepaged's collapse_file()) that such a waiter holds.
 */
static struct lock_class_key folio_new_key;
static struct lockdep_map folio_new_map =
	CROSSLOCK_MAP_INIT("(PG_locked)new", &folio_new_key);

static struct lock_class_key anon_keys[NR_FOLIO_BITS];
static struct lockdep_map anon_maps[NR_FOLIO_BITS] = {
	[FOLIO_LOCKED] = CROSSLOCK_MAP_INIT("(PG_locked)anon",
						 &anon_keys[FOLIO_LOCKED]),
	[FOLIO_WRITEBACK] = CROSSLOCK_MAP_INIT("(PG_writeback)anon",
						    &anon_keys[FOLIO_WRITEBACK]),
};

/*
 * Folios are locked by the code of their address_space_operations: a
 * class per a_ops keeps apart what a file system locks in different
 * orders, such as btrfs' file data (btrfs_aops) and its extent buffers
 * (btree_aops, a private inode that is a regular file too).  A small
 * table, filled once per a_ops and read without locks
 * (<linux/crossrelease_class_table.h>).
 */
#define AOPS_CLASSES		128
#define AOPS_NAME_LEN		64

struct aops_folio_class {
	struct crosslock_class_slot		slot;	/* the a_ops */
	struct lockdep_map			map[NR_FOLIO_BITS];
	struct lock_class_key			key[NR_FOLIO_BITS];
	char					name[NR_FOLIO_BITS][AOPS_NAME_LEN];
};

static struct aops_folio_class aops_classes[AOPS_CLASSES];
DEFINE_CROSSLOCK_CLASS_TABLE(aops_table, aops_classes);

/* One class per bit: "(PG_locked)ext4:ext4_aops", "(PG_writeback)ext4:..." */
static void aops_class_init(void *entry, const void *aops, const void *fs_name)
{
	struct aops_folio_class *c = entry;
	int bit;

	for (bit = 0; bit < NR_FOLIO_BITS; bit++) {
		snprintf(c->name[bit], AOPS_NAME_LEN, "(%s)%s:%ps",
			 folio_bit_names[bit], (const char *)fs_name, aops);
		crosslock_init_class(&c->map[bit], c->name[bit], &c->key[bit]);
	}
}

static struct lockdep_map *mapping_folio_class(struct address_space *mapping,
					       struct inode *host,
					       enum folio_bit bit)
{
	const struct address_space_operations *aops = READ_ONCE(mapping->a_ops);
	const char *fs_name;
	struct aops_folio_class *c;

	c = crosslock_class_find(&aops_table, aops, NULL);
	if (likely(c))
		return &c->map[bit];
	/* the file system's name only for a new entry: the common lookup is a hit */
	fs_name = host->i_sb->s_type->name;
	c = crosslock_class_add(&aops_table, aops, NULL, aops_class_init, fs_name);
	if (likely(c))
		return &c->map[bit];
	pr_warn_once("no room for the folio classes of %ps (%s): its folios share \"(PG_locked)folio\"\n",
		     aops, fs_name);
	return NULL;
}

/*
 * The class of @folio's @bit.  The inode and super block behind a mapping
 * are freed after an RCU grace period; a preempt-disabled section is an
 * RCU reader and, unlike rcu_read_lock(), costs lockdep nothing.
 */
static struct lockdep_map *folio_class(struct folio *folio, enum folio_bit bit)
{
	struct lockdep_map *map = NULL;
	struct address_space *mapping;
	struct inode *host;

	if (folio_test_swapcache(folio))
		return &anon_maps[bit];
	preempt_disable_notrace();
	mapping = READ_ONCE(folio->mapping);
	if ((unsigned long)mapping & FOLIO_MAPPING_ANON) {
		map = &anon_maps[bit];
	} else if (mapping && !((unsigned long)mapping & FOLIO_MAPPING_FLAGS)) {
		host = READ_ONCE(mapping->host);
		if (host)
			map = mapping_folio_class(mapping, host, bit);
	}
	preempt_enable_notrace();
	return map ?: &folio_maps[bit];
}

/**
 * crosslock_folio_class_name - the name of @folio's lock class, for tests
 * @folio: the folio
 *
 * Return: the class name, e.g. "(PG_locked)ext4:ext4_aops".
 */
const char *crosslock_folio_class_name(struct folio *folio)
{
	return folio_class(folio, FOLIO_LOCKED)->name;
}
EXPORT_SYMBOL_IF_KUNIT(crosslock_folio_class_name);

/**
 * crosslock_writeback_class_name - the name of @folio's writeback class
 * @folio: the folio
 *
 * For tests.
 *
 * Return: the class name, e.g. "(PG_writeback)ext4:ext4_aops".
 */
const char *crosslock_writeback_class_name(struct folio *folio)
{
	return folio_class(folio, FOLIO_WRITEBACK)->name;
}
EXPORT_SYMBOL_IF_KUNIT(crosslock_writeback_class_name);

/*
 * How many bits have a slot: writeback's comes second, so that folio
 * locks alone cost one slot.  Set by need(), before page_ext sizes itself.
 */
static unsigned int nr_folio_slots __ro_after_init;

static bool __init need_folio_crossrelease(void)
{
	if (!folio_lock_wanted || !crosslock_enabled())
		return false;
	nr_folio_slots = writeback_wanted ? 2 : 1;
	crosslock_folio_ops.size = nr_folio_slots * sizeof(struct crosslock_owner);
	return true;
}

static void __init init_folio_crossrelease(void)
{
	if (!nr_folio_slots)
		return;
	static_branch_enable(&crosslock_folio_key);
	if (nr_folio_slots > FOLIO_WRITEBACK)
		static_branch_enable(&crosslock_writeback_key);
	pr_info("tracking folio locks%s, %zu bytes per page\n",
		nr_folio_slots > FOLIO_WRITEBACK ? " and writeback" : "",
		crosslock_folio_ops.size);
}

struct page_ext_operations crosslock_folio_ops = {
	.size = sizeof(struct crosslock_owner),
	.need = need_folio_crossrelease,
	.init = init_folio_crossrelease,
};

/*
 * A bit's slot holds the owner, with the class the bit was taken in, for a
 * release that finds the folio gone from its mapping (truncated, or the
 * source of a migration): it commits in the class its waiters saw.
 */
#define FOLIO_CLASS_NONE	0	/* folio_maps[] */
#define FOLIO_CLASS_ANON	1	/* anon_maps[] */
#define FOLIO_CLASS_NEW		2	/* folio_new_map */
#define FOLIO_CLASS_AOPS	3	/* + the index in aops_classes[] */
static_assert(FOLIO_CLASS_AOPS + AOPS_CLASSES <= U8_MAX);	/* ->class_id */

static u8 folio_class_id(struct lockdep_map *map, enum folio_bit bit)
{
	unsigned long off = (void *)map - (void *)aops_classes;

	if (map == &anon_maps[bit])
		return FOLIO_CLASS_ANON;
	if (map == &folio_new_map)
		return FOLIO_CLASS_NEW;
	if (off < sizeof(aops_classes))
		return FOLIO_CLASS_AOPS + off / sizeof(struct aops_folio_class);
	return FOLIO_CLASS_NONE;
}

static struct lockdep_map *folio_class_of_id(u8 id, enum folio_bit bit)
{
	if (id == FOLIO_CLASS_ANON)
		return &anon_maps[bit];
	if (id == FOLIO_CLASS_NEW)
		return &folio_new_map;
	if (id >= FOLIO_CLASS_AOPS)
		return &aops_classes[id - FOLIO_CLASS_AOPS].map[bit];
	return &folio_maps[bit];
}

/* A folio's state is kept in the page_ext of its first page: an owner per bit */
static struct crosslock_owner *folio_owner(struct page_ext *page_ext,
					   enum folio_bit bit)
{
	struct crosslock_owner *slots = (void *)page_ext + crosslock_folio_ops.offset;

	return &slots[bit];
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
static __always_inline struct page_ext *folio_owner_get(struct page *page)
{
	struct page_ext *page_ext;

	preempt_disable_notrace();
	page_ext = page_ext_get_raw(page);
	if (page_ext)
		return page_ext;
	preempt_enable_notrace();
	return NULL;
}

static void folio_owner_put(void)
{
	preempt_enable_notrace();
}

/*
 * Put @new in @bit's slot of @page; false if @page has no page_ext.  The
 * generation it replaces goes to @old->gen: not 0 if the bit was dropped
 * behind our back.
 */
static __always_inline bool folio_put_state(struct page *page,
					    enum folio_bit bit,
					    const struct crosslock_owner *new,
					    struct crosslock_owner *old)
{
	struct page_ext *page_ext = folio_owner_get(page);
	struct crosslock_owner *o;

	if (!page_ext)
		return false;
	o = folio_owner(page_ext, bit);
	old->gen = READ_ONCE(o->gen);
	WRITE_ONCE(o->ip, new->ip);
	o->pid = new->pid;
	o->class_id = new->class_id;
	WRITE_ONCE(o->gen, new->gen);
	folio_owner_put();
	return true;
}

/*
 * Move @bit's state out of the page_ext of @page; false if none.  Only the
 * generation is cleared: the rest of a slot means nothing without it.
 */
static __always_inline bool folio_take_state(struct page *page,
					     enum folio_bit bit,
					     struct crosslock_owner *state)
{
	struct page_ext *page_ext = folio_owner_get(page);
	struct crosslock_owner *o;

	if (!page_ext)
		return false;
	o = folio_owner(page_ext, bit);
	state->gen = READ_ONCE(o->gen);
	state->pid = o->pid;
	state->class_id = o->class_id;
	state->ip = READ_ONCE(o->ip);
	WRITE_ONCE(o->gen, 0);
	folio_owner_put();
	return true;
}

/* What the hooks of every bit do: wait, acquire, release */

static void folio_bit_wait(struct folio *folio, enum folio_bit bit,
			   unsigned long ip)
{
	/* the class is looked up only for a wait anything depends on */
	if (crosslock_owner_wait_needed(current->lockdep_depth))
		crosslock_owner_wait(folio_class(folio, bit), ip);
}

/*
 * @map: @folio's class (folio_class(), or a new folio's);
 * @waited: a sleeping lock's fast path, the wait and the acquisition in one
 */
static void folio_bit_acquire(struct folio *folio, enum folio_bit bit,
			      struct lockdep_map *map, unsigned long ip,
			      bool waited)
{
	struct crosslock_owner new, old;

	new.class_id = folio_class_id(map, bit);
	new.gen = 0;
	if (waited)
		crosslock_owner_lock(map, &new, ip);
	else
		crosslock_owner_acquire(map, &new, ip);
	if (!new.gen)	/* not tracked: crossrelease is off */
		return;
	if (!folio_put_state(&folio->page, bit, &new, &old))
		crosslock_owner_release(map, &new, false);
	else if (unlikely(old.gen))
		crosslock_owner_replaced(&old);
}

/*
 * The class a release commits in: the folio's now, so that a folio locked
 * before it was added to the page cache commits in the class its waiters
 * saw; or, if the folio has left its mapping since it was taken, the class
 * it was taken in.
 */
static struct lockdep_map *folio_release_class(struct folio *folio,
					       enum folio_bit bit, u8 class_id)
{
	struct lockdep_map *map = folio_class(folio, bit);

	return map == &folio_maps[bit] ? folio_class_of_id(class_id, bit) : map;
}

/*
 * A bit set before tracking started, or copied to the tail pages of a
 * split folio, is not tracked: its release is counted, not warned about.
 */
static void folio_bit_release(struct folio *folio, enum folio_bit bit,
			      bool commit)
{
	struct crosslock_owner state;

	/*
	 * Commit from a copy, taken out of page_ext with preemption
	 * disabled only for the copy (see folio_owner_get()).  The bit is
	 * still set: no new owner can come in between.
	 */
	if (!folio_take_state(&folio->page, bit, &state)) {
		crosslock_owner_untracked(CROSSLOCK_UNTRACKED_NO_STATE);
		return;
	}
	if (!commit)
		crosslock_owner_release(&folio_maps[bit], &state, false);
	/* the class is looked up only for a release that commits something */
	else if (!crosslock_owner_try_release(&state))
		crosslock_owner_release(folio_release_class(folio, bit, state.class_id),
					&state, true);
}

/* The slow paths of the hooks in <linux/folio_crossrelease.h> */

void __crosslock_folio_wait(struct folio *folio, unsigned long ip)
{
	folio_bit_wait(folio, FOLIO_LOCKED, ip);
}
EXPORT_SYMBOL_GPL(__crosslock_folio_wait);

struct lockdep_map *__crosslock_folio_wait_class(struct folio *folio,
						 struct spinlock *ptl)
{
	/* after the ptl, the folio may be unlocked, freed and reused */
	lockdep_assert_held(ptl);
	return folio_class(folio, FOLIO_LOCKED);
}

void __crosslock_folio_wait_class_end(struct lockdep_map *map,
				      unsigned long ip)
{
	crosslock_owner_wait(map, ip);
}

void __crosslock_folio_acquire(struct folio *folio, unsigned long ip)
{
	folio_bit_acquire(folio, FOLIO_LOCKED, folio_class(folio, FOLIO_LOCKED),
			  ip, false);
}
EXPORT_SYMBOL_GPL(__crosslock_folio_acquire);

/* The non-atomic set: a folio in no mapping yet is a new one */
void __crosslock_folio_set_locked(struct folio *folio, unsigned long ip)
{
	struct lockdep_map *map = folio_class(folio, FOLIO_LOCKED);

	if (map == &folio_maps[FOLIO_LOCKED])
		map = &folio_new_map;
	folio_bit_acquire(folio, FOLIO_LOCKED, map, ip, false);
}
EXPORT_SYMBOL_GPL(__crosslock_folio_set_locked);

/*
 * The release depends on what the owner takes once others can wait for
 * the folio: its acquisition starts again here, in the class of the
 * mapping the folio is now in.  A bit nobody recorded stays unrecorded.
 */
void __crosslock_folio_published(struct folio *folio)
{
	struct crosslock_owner state;

	if (!folio_take_state(&folio->page, FOLIO_LOCKED, &state) || !state.gen)
		return;
	crosslock_owner_release(&folio_maps[FOLIO_LOCKED], &state, false);
	folio_bit_acquire(folio, FOLIO_LOCKED, folio_class(folio, FOLIO_LOCKED),
			  state.ip, false);
}
EXPORT_SYMBOL_GPL(__crosslock_folio_published);

/*
 * A sleeping lock that took the bit at once: its wait and its acquisition,
 * with one look-up of the class, which the held bit keeps stable.
 */
void __crosslock_folio_lock(struct folio *folio, unsigned long ip)
{
	folio_bit_acquire(folio, FOLIO_LOCKED, folio_class(folio, FOLIO_LOCKED),
			  ip, true);
}
EXPORT_SYMBOL_GPL(__crosslock_folio_lock);

void __crosslock_folio_release(struct folio *folio, bool commit,
			       unsigned long ip)
{
	folio_bit_release(folio, FOLIO_LOCKED, commit);
}
EXPORT_SYMBOL_GPL(__crosslock_folio_release);

/*
 * Freeing a locked page, or one under writeback, is a bug the allocator
 * reports (bad_page()); drop the state so that the page's next user starts
 * clean.
 */
void __crosslock_folio_free(struct page *page)
{
	struct crosslock_owner state;
	unsigned int bit;

	for (bit = 0; bit < nr_folio_slots; bit++)
		if (folio_take_state(page, bit, &state) && state.gen)
			crosslock_owner_release(&folio_maps[bit], &state, false);
}

/*
 * A split copies the lock bit of @head's folio to the first page of every
 * new folio, @new_nr pages apart, @nr in all.  The split keeps @kept locked
 * for its caller, who unlocks it later: it gets a copy of the head's
 * record.  The others are unlocked by the split itself, right after the
 * head, or before the caller's unlock of @kept, in the same context: what
 * they would commit, the head's or @kept's unlock commits.
 */
void __crosslock_folio_split(struct page *head, unsigned int nr,
			     unsigned int new_nr, struct page *kept)
{
	struct page_ext *page_ext;
	struct crosslock_owner state, old;
	unsigned int i;

	page_ext = folio_owner_get(head);
	if (!page_ext)
		return;
	state = *folio_owner(page_ext, FOLIO_LOCKED);
	folio_owner_put();
	for (i = new_nr; i < nr; i += new_nr) {
		if (head + i != kept) {
			page_ext = folio_owner_get(head + i);
			if (!page_ext)
				continue;
			crosslock_owner_mark_untracked(folio_owner(page_ext, FOLIO_LOCKED),
						       CROSSLOCK_UNTRACKED_SPLIT);
			folio_owner_put();
		} else if (folio_put_state(kept, FOLIO_LOCKED, &state, &old)) {
			crosslock_owner_replaced(&old);
			crosslock_owner_copied(&state);
		}
	}
}

#ifdef CONFIG_LOCKDEP_WRITEBACK
void __crosslock_writeback_wait(struct folio *folio, unsigned long ip)
{
	folio_bit_wait(folio, FOLIO_WRITEBACK, ip);
}
EXPORT_SYMBOL_GPL(__crosslock_writeback_wait);

void __crosslock_writeback_start(struct folio *folio, unsigned long ip)
{
	folio_bit_acquire(folio, FOLIO_WRITEBACK,
			  folio_class(folio, FOLIO_WRITEBACK), ip, false);
}

void __crosslock_writeback_end(struct folio *folio)
{
	folio_bit_release(folio, FOLIO_WRITEBACK, true);
}
#endif

static bool folio_bit_owned(struct folio *folio, enum folio_bit bit)
{
	struct page_ext *page_ext;
	bool owned;

	page_ext = folio_owner_get(&folio->page);
	if (!page_ext)
		return false;
	owned = READ_ONCE(folio_owner(page_ext, bit)->gen);
	folio_owner_put();
	return owned;
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
	return crosslock_folio_enabled() && folio_bit_owned(folio, FOLIO_LOCKED);
}
EXPORT_SYMBOL_IF_KUNIT(crosslock_folio_owned);

/**
 * crosslock_writeback_owned - is @folio recorded as under writeback?
 * @folio: the folio
 *
 * For tests.
 *
 * Return: true between folio_start_writeback() and folio_end_writeback()
 * as far as lockdep knows.
 */
bool crosslock_writeback_owned(struct folio *folio)
{
	return crosslock_writeback_enabled() &&
	       folio_bit_owned(folio, FOLIO_WRITEBACK);
}
EXPORT_SYMBOL_IF_KUNIT(crosslock_writeback_owned);
