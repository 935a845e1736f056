/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Folio locks (PG_locked) and writeback (PG_writeback) as lockdep
 * crosslocks: the hooks that the folio lock and writeback primitives
 * call.  Each is an inline test of a static key around an out-of-line
 * slow path (as <linux/page_owner.h> does), so that a kernel booted with
 * "lockdep_folio_lock=off" pays one patched-out branch per hook.
 * See mm/folio_crossrelease.c.
 */
#ifndef __LINUX_FOLIO_CROSSRELEASE_H
#define __LINUX_FOLIO_CROSSRELEASE_H

#include <linux/jump_label.h>
#include <linux/types.h>

struct folio;
struct lockdep_map;
struct page;
struct spinlock;

#ifdef CONFIG_LOCKDEP_FOLIO_LOCK

struct page_ext_operations;
extern struct page_ext_operations crosslock_folio_ops;

DECLARE_STATIC_KEY_FALSE(crosslock_folio_key);

void __crosslock_folio_wait(struct folio *folio, unsigned long ip);
struct lockdep_map *__crosslock_folio_wait_class(struct folio *folio,
						 struct spinlock *ptl);
void __crosslock_folio_wait_class_end(struct lockdep_map *map,
				      unsigned long ip);
void __crosslock_folio_acquire(struct folio *folio, unsigned long ip);
void __crosslock_folio_lock(struct folio *folio, unsigned long ip);
void __crosslock_folio_set_locked(struct folio *folio, unsigned long ip);
void __crosslock_folio_published(struct folio *folio);
void __crosslock_folio_release(struct folio *folio, bool commit,
			       unsigned long ip);
void __crosslock_folio_free(struct page *page);
void __crosslock_folio_split(struct page *head, unsigned int nr,
			     unsigned int new_nr, struct page *kept);
bool crosslock_folio_owned(struct folio *folio);
const char *crosslock_folio_class_name(struct folio *folio);
bool crosslock_writeback_owned(struct folio *folio);
const char *crosslock_writeback_class_name(struct folio *folio);

/**
 * crosslock_folio_enabled - are folio locks tracked in this boot?
 *
 * Return: false before page_ext is set up, or when booted with
 * "lockdep_folio_lock=off" or "crossrelease=off".
 */
static __always_inline bool crosslock_folio_enabled(void)
{
	return static_branch_likely(&crosslock_folio_key);
}

/*
 * crosslock_folio_wait - a task may wait for @folio to be unlocked
 *
 * Called by folio_lock() and friends once their first try failed (their
 * fast path records the wait and the acquisition in one call), and by the
 * waits for an unlock (folio_wait_locked()); whether they end up sleeping
 * or not, the locks the caller holds depend on the folio lock.
 */
static __always_inline void crosslock_folio_wait(struct folio *folio,
						 unsigned long ip)
{
	if (crosslock_folio_enabled())
		__crosslock_folio_wait(folio, ip);
}

/*
 * crosslock_folio_wait_class - the class of @folio's lock, under @ptl
 *
 * For a wait that begins after dropping @ptl, the page table lock that
 * keeps @folio from being freed (migration_entry_wait_on_locked()): the
 * class is looked up while the folio is sure to be what the caller saw,
 * and the wait is noted once @ptl is dropped, by
 * crosslock_folio_wait_class_end(), so that @ptl is not a held lock of
 * the wait.
 */
static __always_inline struct lockdep_map *
crosslock_folio_wait_class(struct folio *folio, struct spinlock *ptl)
{
	if (crosslock_folio_enabled())
		return __crosslock_folio_wait_class(folio, ptl);
	return NULL;
}

/* crosslock_folio_wait_class_end - the wait of crosslock_folio_wait_class() */
static __always_inline void crosslock_folio_wait_class_end(struct lockdep_map *map,
							   unsigned long ip)
{
	if (map)
		__crosslock_folio_wait_class_end(map, ip);
}

/* crosslock_folio_acquire - @folio's lock bit was just taken */
static __always_inline void crosslock_folio_acquire(struct folio *folio,
						    unsigned long ip)
{
	if (crosslock_folio_enabled())
		__crosslock_folio_acquire(folio, ip);
}

/*
 * crosslock_folio_set_locked - __folio_set_locked() took @folio's lock
 * bit: a folio in no mapping yet is a new one, which nobody can wait for
 * until it is published (added to a mapping)
 */
static __always_inline void crosslock_folio_set_locked(struct folio *folio,
						       unsigned long ip)
{
	if (crosslock_folio_enabled())
		__crosslock_folio_set_locked(folio, ip);
}

/*
 * crosslock_folio_published - @folio, locked new, can be seen and waited
 * for from now on
 *
 * For an owner that takes other locks between __folio_set_locked() and
 * the store that makes the folio visible (khugepaged's collapse_file()):
 * what it took before cannot keep a waiter waiting.  The page cache's
 * own helpers publish at once and need not call this.
 */
static __always_inline void crosslock_folio_published(struct folio *folio)
{
	if (crosslock_folio_enabled())
		__crosslock_folio_published(folio);
}

/*
 * crosslock_folio_lock - a sleeping lock took @folio's lock bit at once:
 * crosslock_folio_wait() and crosslock_folio_acquire() in one call
 */
static __always_inline void crosslock_folio_lock(struct folio *folio,
						 unsigned long ip)
{
	if (crosslock_folio_enabled())
		__crosslock_folio_lock(folio, ip);
}

/*
 * crosslock_folio_release - @folio's lock bit is about to be dropped;
 * @commit: a real unlock, which waiters may have waited for
 */
static __always_inline void crosslock_folio_release(struct folio *folio,
						    bool commit,
						    unsigned long ip)
{
	if (crosslock_folio_enabled())
		__crosslock_folio_release(folio, commit, ip);
}

/* crosslock_folio_free - a page is freed with PG_locked set */
static __always_inline void crosslock_folio_free(struct page *page)
{
	if (crosslock_folio_enabled())
		__crosslock_folio_free(page);
}

/*
 * crosslock_folio_split - a locked folio of @nr pages at @head was split
 * into folios of @new_nr pages, each with the lock bit set; the split keeps
 * @kept locked for its caller and unlocks the others
 */
static __always_inline void crosslock_folio_split(struct page *head,
						  unsigned int nr,
						  unsigned int new_nr,
						  struct page *kept)
{
	if (crosslock_folio_enabled())
		__crosslock_folio_split(head, nr, new_nr, kept);
}

#else /* !CONFIG_LOCKDEP_FOLIO_LOCK */

static inline void crosslock_folio_wait(struct folio *folio,
					unsigned long ip) { }
static inline struct lockdep_map *
crosslock_folio_wait_class(struct folio *folio, struct spinlock *ptl)
{
	return NULL;
}

static inline void crosslock_folio_wait_class_end(struct lockdep_map *map,
						  unsigned long ip) { }
static inline void crosslock_folio_acquire(struct folio *folio,
					   unsigned long ip) { }
static inline void crosslock_folio_lock(struct folio *folio,
					unsigned long ip) { }
static inline void crosslock_folio_set_locked(struct folio *folio,
					      unsigned long ip) { }
static inline void crosslock_folio_published(struct folio *folio) { }
static inline void crosslock_folio_release(struct folio *folio, bool commit,
					   unsigned long ip) { }
static inline void crosslock_folio_free(struct page *page) { }
static inline void crosslock_folio_split(struct page *head, unsigned int nr,
					 unsigned int new_nr,
					 struct page *kept) { }
static inline bool crosslock_folio_enabled(void) { return false; }
static inline bool crosslock_folio_owned(struct folio *folio) { return false; }
static inline const char *crosslock_folio_class_name(struct folio *folio)
{
	return "";
}

static inline bool crosslock_writeback_owned(struct folio *folio)
{
	return false;
}

static inline const char *crosslock_writeback_class_name(struct folio *folio)
{
	return "";
}

#endif /* CONFIG_LOCKDEP_FOLIO_LOCK */

#ifdef CONFIG_LOCKDEP_WRITEBACK

DECLARE_STATIC_KEY_FALSE(crosslock_writeback_key);

void __crosslock_writeback_wait(struct folio *folio, unsigned long ip);
void __crosslock_writeback_start(struct folio *folio, unsigned long ip);
void __crosslock_writeback_end(struct folio *folio);

/**
 * crosslock_writeback_enabled - is folio writeback tracked in this boot?
 *
 * Return: false before page_ext is set up, or when booted with
 * "lockdep_writeback=off", "lockdep_folio_lock=off" or "crossrelease=off".
 */
static __always_inline bool crosslock_writeback_enabled(void)
{
	return static_branch_likely(&crosslock_writeback_key);
}

/*
 * crosslock_writeback_wait - a task may wait for @folio's writeback to end
 *
 * Called by folio_wait_writeback() and its killable twin whether or not
 * writeback is under way: the locks the caller holds depend on the end of
 * writeback, which could have been under way.
 */
static __always_inline void crosslock_writeback_wait(struct folio *folio,
						     unsigned long ip)
{
	if (crosslock_writeback_enabled())
		__crosslock_writeback_wait(folio, ip);
}

/* crosslock_writeback_start - @folio's PG_writeback was just set */
static __always_inline void crosslock_writeback_start(struct folio *folio,
						      unsigned long ip)
{
	if (crosslock_writeback_enabled())
		__crosslock_writeback_start(folio, ip);
}

/*
 * crosslock_writeback_end - @folio's PG_writeback is about to be cleared:
 * what its context acquired since the start is committed
 */
static __always_inline void crosslock_writeback_end(struct folio *folio)
{
	if (crosslock_writeback_enabled())
		__crosslock_writeback_end(folio);
}

#else /* !CONFIG_LOCKDEP_WRITEBACK */

static inline bool crosslock_writeback_enabled(void) { return false; }
static inline void crosslock_writeback_wait(struct folio *folio,
					    unsigned long ip) { }
static inline void crosslock_writeback_start(struct folio *folio,
					     unsigned long ip) { }
static inline void crosslock_writeback_end(struct folio *folio) { }

#endif /* CONFIG_LOCKDEP_WRITEBACK */
#endif /* __LINUX_FOLIO_CROSSRELEASE_H */
