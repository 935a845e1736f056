// SPDX-License-Identifier: GPL-2.0
/*
 * Folio locks (PG_locked) as lockdep crosslocks.
 *
 * A folio lock is often taken by a task and dropped by someone else, an
 * I/O completion most of the time, so lockdep's held-lock stack cannot
 * follow it.  Every folio lock is one crosslock class, "(PG_locked)folio":
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
static DEFINE_STATIC_KEY_FALSE(pagelock_on);

static struct lock_class_key pagelock_key;
static struct lockdep_map pagelock_map =
	STATIC_LOCKDEP_MAP_INIT("(PG_locked)folio", &pagelock_key);

static bool __init need_lockdep_pagelock(void)
{
	return pagelock_wanted && crossrelease_enabled();
}

static void __init init_lockdep_pagelock(void)
{
	if (!need_lockdep_pagelock())
		return;
	static_branch_enable(&pagelock_on);
	pr_info("tracking folio locks, %zu bytes per page\n",
		sizeof(struct cross_owner));
}

struct page_ext_operations lockdep_pagelock_ops = {
	.size = sizeof(struct cross_owner),
	.need = need_lockdep_pagelock,
	.init = init_lockdep_pagelock,
};

/**
 * lockdep_pagelock_enabled - are folio locks tracked in this boot?
 *
 * Return: false before page_ext is set up, or when booted with
 * "lockdep_pagelock=off" or "crossrelease=off".
 */
bool lockdep_pagelock_enabled(void)
{
	return static_branch_likely(&pagelock_on);
}
EXPORT_SYMBOL_GPL(lockdep_pagelock_enabled);

/* A folio's lock state is kept in the page_ext of its first page. */
static struct cross_owner *folio_owner(struct page_ext *page_ext)
{
	return (void *)page_ext + lockdep_pagelock_ops.offset;
}

/*
 * The state moves in and out of page_ext by copy, with lockdep off around
 * page_ext_get()/page_ext_put(): their RCU read section is not a lock of
 * the folio, and lockdep would check it on every folio lock and unlock
 * (several times the cost of the rest) and list it in reports as held.
 */

/* Put @new in the page_ext of @page and return the old state in @old. */
static bool folio_swap_owner(struct page *page, const struct cross_owner *new,
			     struct cross_owner *old)
{
	struct page_ext *page_ext;
	struct cross_owner *o;

	lockdep_off();
	page_ext = page_ext_get(page);
	if (page_ext) {
		o = folio_owner(page_ext);
		old->ip = xchg(&o->ip, new->ip);
		old->pid = xchg(&o->pid, new->pid);
		old->gen = xchg(&o->gen, new->gen);
		page_ext_put(page_ext);
	}
	lockdep_on();
	return page_ext;
}

/* Move the lock's state out of the page_ext of @page; false if none. */
static bool folio_take_owner(struct page *page, struct cross_owner *owner)
{
	static const struct cross_owner none;

	return folio_swap_owner(page, &none, owner);
}

/**
 * lockdep_folio_wait - a task may wait for @folio to be unlocked
 * @folio: the folio
 * @ip:    the caller
 *
 * Called by folio_lock() and friends before they try the lock, and by the
 * waits for an unlock (folio_wait_locked()); whether they end up sleeping
 * or not, the locks the caller holds depend on the folio lock.
 */
void lockdep_folio_wait(struct folio *folio, unsigned long ip)
{
	if (lockdep_pagelock_enabled())
		crosslock_owner_wait(&pagelock_map, ip);
}
EXPORT_SYMBOL_GPL(lockdep_folio_wait);

/**
 * lockdep_folio_acquire - @folio's lock bit was just taken
 * @folio: the folio
 * @ip:    the caller
 */
void lockdep_folio_acquire(struct folio *folio, unsigned long ip)
{
	struct cross_owner owner = { }, old = { };

	if (!lockdep_pagelock_enabled())
		return;
	crosslock_owner_acquire(&pagelock_map, &owner, ip);
	if (!folio_swap_owner(&folio->page, &owner, &old))
		crosslock_owner_release(&pagelock_map, &owner, false);
	else
		crosslock_owner_replaced(&old);
}
EXPORT_SYMBOL_GPL(lockdep_folio_acquire);

/**
 * lockdep_folio_release - @folio's lock bit is about to be dropped
 * @folio:  the folio
 * @commit: a real unlock, which waiters may have waited for
 * @ip:     the caller
 *
 * A folio locked before tracking started, or whose bit was copied (tail
 * pages of a split folio), is simply not tracked: no warning.
 */
void lockdep_folio_release(struct folio *folio, bool commit, unsigned long ip)
{
	struct cross_owner owner;

	if (!lockdep_pagelock_enabled())
		return;
	/*
	 * Commit from a copy, outside page_ext_get()'s RCU read section,
	 * which would otherwise show up in reports as a held lock.  The lock
	 * bit is still set: no new owner can come in between.
	 */
	if (folio_take_owner(&folio->page, &owner))
		crosslock_owner_release(&pagelock_map, &owner, commit);
}
EXPORT_SYMBOL_GPL(lockdep_folio_release);

/**
 * lockdep_pagelock_free - a locked page goes back to the allocator
 * @page: the page being freed, PG_locked still set
 *
 * Freeing a locked page is a bug the allocator reports (bad_page()); drop
 * the lock's state so that the page's next user starts clean.
 */
void lockdep_pagelock_free(struct page *page)
{
	struct cross_owner owner;

	if (lockdep_pagelock_enabled() && folio_take_owner(page, &owner))
		crosslock_owner_release(&pagelock_map, &owner, false);
}

/**
 * lockdep_folio_owned - is @folio recorded as locked?
 * @folio: the folio
 *
 * For tests: true between the acquisition and the release of the folio
 * lock as far as lockdep knows.
 */
bool lockdep_folio_owned(struct folio *folio)
{
	struct page_ext *page_ext;
	bool owned = false;

	if (!lockdep_pagelock_enabled())
		return false;
	lockdep_off();
	page_ext = page_ext_get(&folio->page);
	if (page_ext) {
		owned = READ_ONCE(folio_owner(page_ext)->gen);
		page_ext_put(page_ext);
	}
	lockdep_on();
	return owned;
}
EXPORT_SYMBOL_GPL(lockdep_folio_owned);
